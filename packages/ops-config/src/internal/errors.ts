export type ConfigErrorCode = 'CONFIG_NOT_FOUND' | 'CONFIG_UNREADABLE' | 'CONFIG_INVALID';

/** A configuration problem. `problems` holds one readable line per problem. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly code: ConfigErrorCode;
  readonly problems: readonly string[];

  constructor(code: ConfigErrorCode, problems: readonly string[], options?: { cause?: unknown }) {
    super(problems.join('\n'), options);
    this.code = code;
    this.problems = problems;
  }
}

export function isConfigError(value: unknown): value is ConfigError {
  return value instanceof ConfigError || (value instanceof Error && value.name === 'ConfigError' && 'problems' in value);
}
