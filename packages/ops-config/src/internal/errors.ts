import { errorGuard, FabricOpsError } from '@fabric-ops/ops-http/errors';

export type ConfigErrorCode = 'CONFIG_NOT_FOUND' | 'CONFIG_UNREADABLE' | 'CONFIG_INVALID';

/** A configuration problem. `problems` holds one readable line per problem. */
export class ConfigError extends FabricOpsError<ConfigErrorCode> {
  override readonly name = 'ConfigError';
  readonly problems: readonly string[];

  constructor(code: ConfigErrorCode, problems: readonly string[], options?: { cause?: unknown }) {
    super(code, problems.join('\n'), options);
    this.problems = problems;
  }
}

/** True for a ConfigError, also across duplicate copies of this package. */
export const isConfigError: (value: unknown) => value is ConfigError = errorGuard(ConfigError, 'ConfigError', 'problems');
