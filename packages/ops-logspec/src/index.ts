export { LogspecError, isLogspecError } from './errors.ts';
export type { LogspecErrorCode } from './errors.ts';
export { isValidLevelName, levelFromName, levelEnables, LEVEL_SEVERITY } from './levels.ts';
export type { Level } from './levels.ts';
export { formatSpec, isValidLoggerName, LoggerLevels, lowestLevel, normaliseSpec, parseSpec, resolveLevel } from './spec.ts';
export type { ParsedSpec } from './spec.ts';
