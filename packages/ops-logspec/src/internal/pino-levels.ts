import type { Level } from './levels.ts';
import type { LoggerLevelName } from './logger-types.ts';

// pino's level scheme, which both engines follow (the lean one writes pino's bytes): its method
// names, their numeric values, and how Fabric's levels map onto them and back.

export const LOGGER_LEVEL_NAMES: readonly LoggerLevelName[] = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'];

export const LEVEL_VALUE_OF: Readonly<Record<LoggerLevelName, number>> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };

/** pino has no levels between error and fatal: dpanic and panic thresholds behave as fatal. */
export const LOGGER_LEVEL_OF: Readonly<Record<Level, LoggerLevelName>> = {
  payload: 'trace',
  debug: 'debug',
  info: 'info',
  warn: 'warn',
  error: 'error',
  dpanic: 'fatal',
  panic: 'fatal',
  fatal: 'fatal',
};

/** The Fabric level a logger method counts as (observer metrics are labelled with Fabric's names). */
export const FABRIC_LEVEL_OF: Readonly<Record<LoggerLevelName, Level>> = { trace: 'payload', debug: 'debug', info: 'info', warn: 'warn', error: 'error', fatal: 'fatal' };
