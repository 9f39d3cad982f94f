import { LogspecError } from './errors.ts';
import { levelFromName, lowerLevel, type Level } from './levels.ts';

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
      // Delete first so that a later duplicate also takes the later position (order is not observable, but keep it honest).
      loggers.delete(name);
      loggers.set(name, level);
    }
  }
  return { defaultLevel, loggers };
}

/**
 * The normalised text of a parsed spec, as Fabric's `Spec()` prints it: every
 * `name=level` sorted byte-wise, then the default level. Unlike Fabric, `payload` prints
 * as `payload` (Fabric prints `Level(-2)`, which it cannot read back).
 */
export function formatSpec(parsed: ParsedSpec): string {
  const entries: string[] = [];
  for (const [name, level] of parsed.loggers) entries.push(`${name}=${level}`);
  // Names and levels are ASCII, so UTF-16 order is byte order.
  entries.sort();
  entries.push(parsed.defaultLevel);
  return entries.join(':');
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

/**
 * The level of logger `name` under a parsed spec, by Fabric's lookup: `name.` first,
 * then `name`, then each parent (cut at the last dot), else the default.
 */
export function resolveLevel(parsed: ParsedSpec, name: string): Level {
  let candidate = `${name}.`;
  for (;;) {
    const level = parsed.loggers.get(candidate);
    if (level !== undefined) return level;
    const dot = candidate.lastIndexOf('.');
    if (dot <= 0) return parsed.defaultLevel;
    candidate = candidate.slice(0, dot);
  }
}

const MAX_CACHED_NAMES = 65_536;

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
 * The active spec and a per-name level cache, cleared by every activation (its
 * generation). Activation is atomic: a bad spec throws and changes nothing.
 */
export class LoggerLevels {
  #parsed: ParsedSpec = { defaultLevel: 'info', loggers: new Map() };
  #text = 'info';
  #lowest: Level = 'info';
  #generation = 0;
  #cache = new Map<string, Level>();

  constructor(spec = '') {
    this.activateSpec(spec);
  }

  /** Replaces the whole active spec; throws a LogspecError (changing nothing) when it is invalid. */
  activateSpec(spec: string): void {
    const parsed = parseSpec(spec);
    this.#parsed = parsed;
    this.#text = formatSpec(parsed);
    this.#lowest = lowestLevel(parsed);
    this.#cache = new Map();
    this.#generation++;
  }

  /** The active spec, normalised. */
  spec(): string {
    return this.#text;
  }

  defaultLevel(): Level {
    return this.#parsed.defaultLevel;
  }

  /** The lowest level any logger has under the active spec. */
  lowestLevel(): Level {
    return this.#lowest;
  }

  /** Increases by one with every successful activation. */
  generation(): number {
    return this.#generation;
  }

  /**
   * The effective level for a logger whose lookup keys (`lookupKeys(name)`) were computed
   * once, without touching the cache: for callers that cache per logger. Reusing the same
   * key strings lets their hashes be reused too.
   */
  resolveKeys(keys: readonly string[]): Level {
    const { loggers, defaultLevel } = this.#parsed;
    if (loggers.size === 0) return defaultLevel;
    for (const key of keys) {
      const level = loggers.get(key);
      if (level !== undefined) return level;
    }
    return defaultLevel;
  }

  /** The effective level of logger `name`, cached until the next activation. */
  levelOf(name: string): Level {
    const cached = this.#cache.get(name);
    if (cached !== undefined) return cached;
    const level = resolveLevel(this.#parsed, name);
    // Callers may ask about any number of names; keep the cache bounded.
    if (this.#cache.size >= MAX_CACHED_NAMES) this.#cache.clear();
    this.#cache.set(name, level);
    return level;
  }
}
