import { LogspecError } from '../errors.ts';
import { levelFromName, lowerLevel, type Level } from './levels.ts';

// Marks a ParsedSpec built by parseSpec (in any copy of this package), so that the registry
// can take one without checking it again; anything else is checked by printing and parsing it.
const PARSED = Symbol.for('@fabric-ops/ops-logspec.parsed');

const printed = new WeakMap<ParsedSpec, string>();

function brand(parsed: ParsedSpec): ParsedSpec {
  // A literal symbol key: Object.defineProperty or freeze per parse showed in PUT profiles.
  return { defaultLevel: parsed.defaultLevel, loggers: parsed.loggers, [PARSED]: true } as ParsedSpec;
}

/** The spec itself when parseSpec made it, else the same spec checked by Fabric's grammar (throws when invalid). */
export function trustedSpec(spec: string | ParsedSpec): ParsedSpec {
  if (typeof spec === 'string') return parseSpec(spec);
  return (spec as unknown as Record<symbol, unknown>)[PARSED] === true ? spec : parseSpec(formatSpec(spec));
}

/** A spec taken apart: the default level and the level of each named logger. */
export interface ParsedSpec {
  readonly defaultLevel: Level;
  /** Keys keep a trailing dot (`a.` = logger `a` only, not its children). Later duplicates won. */
  readonly loggers: ReadonlyMap<string, Level>;
}

function specError(code: 'BAD_SEGMENT' | 'NO_LOGGER' | 'BAD_LOGGER_NAME', spec: string, reason: string): LogspecError {
  return new LogspecError(code, `invalid logging specification '${spec}': ${reason}`);
}

function isNameChar(code: number): boolean {
  return (
    (code >= 0x61 && code <= 0x7a) || // a-z
    (code >= 0x41 && code <= 0x5a) || // A-Z
    (code >= 0x30 && code <= 0x39) || // 0-9
    code === 0x5f || // _
    code === 0x23 || // #
    code === 0x3a || // :
    code === 0x2d // -
  );
}

/**
 * Fabric's logger-name rule, `^[[:alnum:]_#:-]+(\.[[:alnum:]_#:-]+)*$` over ASCII, checked
 * in one pass without building a regular expression: dot-separated, no empty part.
 */
export function isValidLoggerName(name: string): boolean {
  if (name.length === 0) return false;
  let partLength = 0;
  for (let i = 0; i < name.length; i++) {
    const code = name.charCodeAt(i);
    if (code === 0x2e) {
      if (partLength === 0) return false;
      partLength = 0;
    } else if (isNameChar(code)) {
      partLength++;
    } else {
      return false;
    }
  }
  return partLength > 0;
}

/**
 * Parses a logging spec exactly as Fabric's `ActivateSpec` reads it: `:`-separated
 * fields; a bare level (or an empty field, meaning info) sets the default, the last one
 * winning; `a,b=level` sets named loggers. Throws a LogspecError with Fabric's text.
 * Linear in the spec's length (every split and check is one pass).
 */
export function parseSpec(spec: string): ParsedSpec {
  let defaultLevel: Level = 'info';
  const loggers = new Map<string, Level>();
  for (const field of spec.split(':')) {
    const eq = field.indexOf('=');
    if (eq === -1) {
      if (field === '') {
        defaultLevel = 'info';
        continue;
      }
      const level = levelFromName(field);
      if (level === undefined) throw specError('BAD_SEGMENT', spec, `bad segment '${field}'`);
      defaultLevel = level;
      continue;
    }
    if (field.indexOf('=', eq + 1) !== -1) throw specError('BAD_SEGMENT', spec, `bad segment '${field}'`);
    const names = field.slice(0, eq);
    if (names === '') throw specError('NO_LOGGER', spec, `no logger specified in segment '${field}'`);
    const level = levelFromName(field.slice(eq + 1));
    if (level === undefined) throw specError('BAD_SEGMENT', spec, `bad segment '${field}'`);
    for (const name of names.split(',')) {
      const bare = name.endsWith('.') ? name.slice(0, -1) : name;
      if (!isValidLoggerName(bare)) throw specError('BAD_LOGGER_NAME', spec, `bad logger name '${name}'`);
      // A later duplicate overwrites; the insertion order is never observable (formatSpec sorts).
      loggers.set(name, level);
    }
  }
  return brand({ defaultLevel, loggers });
}

/**
 * The normalised text of a parsed spec, as Fabric's `Spec()` prints it: every
 * `name=level` sorted byte-wise, then the default level. Unlike Fabric, `payload` prints
 * as `payload` (Fabric prints `Level(-2)`, which it cannot read back).
 */
export function formatSpec(parsed: ParsedSpec): string {
  const known = printed.get(parsed);
  if (known !== undefined) return known;
  const entries: string[] = [];
  for (const [name, level] of parsed.loggers) entries.push(`${name}=${level}`);
  // Names and levels are ASCII, so UTF-16 order is byte order.
  entries.sort();
  entries.push(parsed.defaultLevel);
  const text = entries.join(':');
  // The sort is the one step that is more than linear: a spec is printed once, however often it is asked for.
  if ((parsed as unknown as Record<symbol, unknown>)[PARSED] === true) printed.set(parsed, text);
  return text;
}

/** Parses and prints back: `b=warn:a=error` → `a=error:b=warn:info`. Throws on a bad spec. */
export function normaliseSpec(spec: string): string {
  return formatSpec(parseSpec(spec));
}

/** The lowest level any logger can have under this spec (Fabric's `minLevel`). */
export function lowestLevel(parsed: ParsedSpec): Level {
  let lowest = parsed.defaultLevel;
  for (const level of parsed.loggers.values()) lowest = lowerLevel(lowest, level);
  return lowest;
}

/** The keys Fabric's lookup tries for logger `name`, in order: `a.b.`, `a.b`, `a`. */
export function lookupKeys(name: string): string[] {
  const keys: string[] = [];
  let candidate = `${name}.`;
  for (;;) {
    keys.push(candidate);
    const dot = candidate.lastIndexOf('.');
    if (dot <= 0) return keys;
    candidate = candidate.slice(0, dot);
  }
}

/**
 * The level a logger gets under a parsed spec, from its lookup keys (`lookupKeys(name)`):
 * the first key the spec names, else the default. The one lookup every caller uses; the
 * registry computes each logger's keys once and keeps them.
 */
export function resolveKeys(parsed: ParsedSpec, keys: readonly string[]): Level {
  const { loggers, defaultLevel } = parsed;
  if (loggers.size === 0) return defaultLevel;
  for (const key of keys) {
    const level = loggers.get(key);
    if (level !== undefined) return level;
  }
  return defaultLevel;
}

/** The level of logger `name` under a parsed spec (Fabric's lookup: `name.`, `name`, each parent, the default). */
export function resolveLevel(parsed: ParsedSpec, name: string): Level {
  return resolveKeys(parsed, lookupKeys(name));
}
