/**
 * Fabric's levels (zap's), lowest first. `payload` sits below `debug`; `dpanic` and
 * `panic` sit between `error` and `fatal`.
 */
export type Level = 'payload' | 'debug' | 'info' | 'warn' | 'error' | 'dpanic' | 'panic' | 'fatal';

/** zap's numeric value of each level; only the order matters here. */
export const LEVEL_SEVERITY: Readonly<Record<Level, number>> = {
  payload: -2,
  debug: -1,
  info: 0,
  warn: 1,
  error: 2,
  dpanic: 3,
  panic: 4,
  fatal: 5,
};

// A null-prototype table so that names like `constructor` or `__proto__` are simply unknown.
const NAMES: Readonly<Record<string, Level>> = Object.assign(Object.create(null) as Record<string, Level>, {
  PAYLOAD: 'payload',
  payload: 'payload',
  DEBUG: 'debug',
  debug: 'debug',
  INFO: 'info',
  info: 'info',
  WARNING: 'warn',
  WARN: 'warn',
  warning: 'warn',
  warn: 'warn',
  ERROR: 'error',
  error: 'error',
  DPANIC: 'dpanic',
  dpanic: 'dpanic',
  PANIC: 'panic',
  panic: 'panic',
  FATAL: 'fatal',
  fatal: 'fatal',
  NOTICE: 'info',
  notice: 'info',
  CRITICAL: 'error',
  critical: 'error',
});

/**
 * The level a name stands for, exactly as Fabric accepts it: all lower-case or all
 * upper-case, `warning`/`warn`, `notice` → info, `critical` → error. Anything else
 * (`Debug`, `disabled`, ` info`) is undefined.
 */
export function levelFromName(name: string): Level | undefined {
  return NAMES[name];
}

/** True when `name` is a level name Fabric accepts. */
export function isValidLevelName(name: string): boolean {
  return NAMES[name] !== undefined;
}

/** Whether an entry at `entry` passes a threshold of `threshold`. */
export function levelEnables(threshold: Level, entry: Level): boolean {
  return LEVEL_SEVERITY[entry] >= LEVEL_SEVERITY[threshold];
}

/** The lower of two levels. */
export function lowerLevel(a: Level, b: Level): Level {
  return LEVEL_SEVERITY[a] <= LEVEL_SEVERITY[b] ? a : b;
}
