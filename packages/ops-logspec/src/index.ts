// The main entry: the levels, both engines, the environment's settings and the /logspec handler.
// The grammar (parseSpec, formatSpec, normaliseSpec, ParsedSpec) is the `./spec` entry; each
// logger library's adapter its own entry (`./pino`, `./winston`, `./bunyan`, `./log4js`). An
// options type only one function takes or returns is that function's parameter (or return) type
// (`Parameters<typeof createLogging>[0]`), not a name of its own.
export { LogspecError, isLogspecError } from './errors.ts';
export type { LogspecErrorCode } from './errors.ts';
export type { Level } from './internal/levels.ts';
export { createLogLevels } from './internal/levels-registry.ts';
export type { LoggingObserver, LogLevels } from './internal/levels-registry.ts';
// pino's registry: pino is loaded on the first createLogging call, not by importing this entry.
export { createLogging } from './internal/registry.ts';
export type { LogFormat, Logging } from './internal/registry.ts';
// The lean engine: the same lines, levels, counts and destination without a logger library.
export { createLeanLogging } from './internal/lean.ts';
export type { LeanLogging } from './internal/lean.ts';
export type { LoggingRegistry, LogspecLogger } from './internal/logger-types.ts';
export { createLoggingFromEnv, loggingSettingsFromEnv } from './internal/env.ts';
export { logspecHandler } from './internal/handler.ts';
export type { LogspecTarget } from './internal/handler.ts';
