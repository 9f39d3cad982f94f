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
  return isValidNameIn(name, 0, name.length);
}

// The rule above over `text[start, end)`, so the parser needs no substring to check a name.
function isValidNameIn(text: string, start: number, end: number): boolean {
  if (end <= start) return false;
  let partLength = 0;
  for (let i = start; i < end; i++) {
    const code = text.charCodeAt(i);
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

const COLON = 0x3a;
const EQUALS = 0x3d;
const COMMA = 0x2c;
const DOT = 0x2e;

/**
 * Parses a logging spec exactly as Fabric's `ActivateSpec` reads it: `:`-separated
 * fields; a bare level (or an empty field, meaning info) sets the default, the last one
 * winning; `a,b=level` sets named loggers. Throws a LogspecError with Fabric's text.
 *
 * One pass over the text with indices: the only strings made are the logger names (the
 * map's keys) and one level name per field, so a spec of 100,000 loggers costs 100,000
 * small strings and map inserts, and no intermediate arrays.
 */
export function parseSpec(spec: string): ParsedSpec {
  const state: ParseState = { defaultLevel: 'info', loggers: new Map(), next: 0 };
  parseFields(spec, state, spec.length);
  return brand({ defaultLevel: state.defaultLevel, loggers: state.loggers });
}

/** Characters parsed between two turns of the event loop by parseSpecInSlices. */
export const PARSE_SLICE_CHARS: number = 64 * 1024;

/**
 * parseSpec for large specs, yielding to the event loop every PARSE_SLICE_CHARS characters,
 * so a client's 1 MiB spec cannot hold every other connection for the whole parse. The
 * same answers and errors as parseSpec.
 */
export async function parseSpecInSlices(spec: string, sliceChars: number = PARSE_SLICE_CHARS): Promise<ParsedSpec> {
  const state: ParseState = { defaultLevel: 'info', loggers: new Map(), next: 0 };
  for (;;) {
    parseFields(spec, state, Math.min(spec.length, state.next + sliceChars));
    if (state.next < 0) break;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return brand({ defaultLevel: state.defaultLevel, loggers: state.loggers });
}

interface ParseState {
  defaultLevel: Level;
  readonly loggers: Map<string, Level>;
  /** Where the next field starts; -1 once the whole spec is parsed. */
  next: number;
}

/** Parses the fields that start before `until` (at least one), continuing from `state.next`. */
function parseFields(spec: string, state: ParseState, until: number): void {
  const { loggers } = state;
  const length = spec.length;
  let fieldStart = state.next;
  for (;;) {
    // Find the field's end and its '=' signs in one scan.
    let fieldEnd = fieldStart;
    let eq = -1;
    let extraEq = false;
    for (; fieldEnd < length; fieldEnd++) {
      const code = spec.charCodeAt(fieldEnd);
      if (code === COLON) break;
      if (code === EQUALS) {
        if (eq === -1) eq = fieldEnd;
        else extraEq = true;
      }
    }
    const field = () => spec.slice(fieldStart, fieldEnd);
    if (eq === -1) {
      if (fieldEnd === fieldStart) state.defaultLevel = 'info';
      else {
        const level = levelFromName(field());
        if (level === undefined) throw specError('BAD_SEGMENT', spec, `bad segment '${field()}'`);
        state.defaultLevel = level;
      }
    } else {
      if (extraEq) throw specError('BAD_SEGMENT', spec, `bad segment '${field()}'`);
      if (eq === fieldStart) throw specError('NO_LOGGER', spec, `no logger specified in segment '${field()}'`);
      const level = levelFromName(spec.slice(eq + 1, fieldEnd));
      if (level === undefined) throw specError('BAD_SEGMENT', spec, `bad segment '${field()}'`);
      let nameStart = fieldStart;
      for (let i = fieldStart; i <= eq; i++) {
        if (i < eq && spec.charCodeAt(i) !== COMMA) continue;
        // Fabric trims one trailing dot before checking; the key keeps it (`a.` = `a` only).
        const checkEnd = i > nameStart && spec.charCodeAt(i - 1) === DOT ? i - 1 : i;
        if (!isValidNameIn(spec, nameStart, checkEnd)) throw specError('BAD_LOGGER_NAME', spec, `bad logger name '${spec.slice(nameStart, i)}'`);
        // A later duplicate overwrites; the insertion order is never observable (formatSpec sorts).
        loggers.set(spec.slice(nameStart, i), level);
        nameStart = i + 1;
      }
    }
    if (fieldEnd >= length) {
      state.next = -1;
      return;
    }
    fieldStart = fieldEnd + 1;
    // A trailing empty field (`debug:`) is still a field: it sets the default to info.
    if (fieldStart >= until && fieldStart < length) {
      state.next = fieldStart;
      return;
    }
  }
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
