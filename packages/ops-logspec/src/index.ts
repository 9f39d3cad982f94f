export { LogspecError, isLogspecError } from './errors.ts';
export type { LogspecErrorCode } from './errors.ts';
export type { Level } from './internal/levels.ts';
export { formatSpec, normaliseSpec, parseSpec } from './internal/spec.ts';
export type { ParsedSpec } from './internal/spec.ts';
export { createLogLevels } from './internal/levels-registry.ts';
export type { LevelListener, LoggingObserver, LogLevels, LogLevelsOptions } from './internal/levels-registry.ts';
// pino's registry: pino is loaded on the first createLogging call, not by importing this entry.
export { createLogging } from './internal/registry.ts';
export type { LogFormat, Logging, LoggingOptions, PinoLineOptions } from './internal/registry.ts';
// The lean engine: the same lines, levels, counts and destination without a logger library.
export { createLeanLogging } from './internal/lean.ts';
export type { LeanLogger, LeanLogging, LeanLoggingOptions, LineDestination } from './internal/lean.ts';
export type { LoggerLevelName, LoggingRegistry, LogMethod, LogspecLogger } from './internal/logger-types.ts';
export { createLoggingFromEnv, loggingSettingsFromEnv } from './internal/env.ts';
export type { EnvLoggingSettings } from './internal/env.ts';
export { logspecHandler } from './internal/handler.ts';
export type { AuditLogger, LogspecHandlerOptions, LogspecTarget } from './internal/handler.ts';
