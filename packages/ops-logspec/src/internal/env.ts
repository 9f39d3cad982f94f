import { isLogspecError, LogspecError } from '../errors.ts';
import { createLogging, type LogFormat, type Logging, type LoggingOptions } from './registry.ts';
import { parseSpec, type ParsedSpec } from './spec.ts';

export const LOGGING_SPEC_ENV = 'FABRIC_LOGGING_SPEC';
export const LOGGING_FORMAT_ENV = 'FABRIC_LOGGING_FORMAT';

export interface EnvLoggingSettings {
  /** Parsed once here; hand it to createLogging as it is. */
  readonly spec: ParsedSpec;
  readonly format: LogFormat;
}

/**
 * Reads `FABRIC_LOGGING_SPEC` (default `info`) and `FABRIC_LOGGING_FORMAT` (`json`, or
 * `text` by default). A Fabric format template (`%{...}`) is accepted and gives text,
 * so an existing Fabric deployment's environment still starts. Throws a LogspecError
 * whose message is one line naming the variable.
 */
export function loggingSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): EnvLoggingSettings {
  let spec: ParsedSpec;
  try {
    spec = parseSpec(env[LOGGING_SPEC_ENV] ?? '');
  } catch (error) {
    if (!isLogspecError(error)) throw error;
    throw new LogspecError(error.code, `${LOGGING_SPEC_ENV}: ${error.message}`, { cause: error });
  }
  const formatText = env[LOGGING_FORMAT_ENV] ?? '';
  let format: LogFormat;
  if (formatText === '' || formatText === 'text' || formatText.includes('%{')) format = 'text';
  else if (formatText === 'json') format = 'json';
  else {
    throw new LogspecError('INVALID_FORMAT', `${LOGGING_FORMAT_ENV}: unknown log format '${formatText}': expected 'json', 'text' or a Fabric format template`);
  }
  return { spec, format };
}

/** `createLogging` with the spec and format from the environment, each read and parsed once. */
export function createLoggingFromEnv(env: NodeJS.ProcessEnv = process.env, options: Omit<LoggingOptions, 'spec' | 'format'> = {}): Logging {
  const settings = loggingSettingsFromEnv(env);
  return createLogging({ ...options, spec: settings.spec, format: settings.format });
}
