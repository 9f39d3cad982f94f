// Fabric reads its settings with Go's strconv and time packages; operators' files are
// written against those grammars, so the same inputs must mean the same things here.

const TRUE_WORDS = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE_WORDS = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** Go's `strconv.ParseBool`; undefined where Go returns an error. */
export function parseGoBool(text: string): boolean | undefined {
  if (TRUE_WORDS.has(text)) return true;
  if (FALSE_WORDS.has(text)) return false;
  return undefined;
}

const NANOS_PER_UNIT: ReadonlyMap<string, bigint> = new Map([
  ['ns', 1n],
  ['us', 1_000n],
  ['\u00b5s', 1_000n], // micro sign
  ['\u03bcs', 1_000n], // Greek mu; Go accepts both spellings
  ['ms', 1_000_000n],
  ['s', 1_000_000_000n],
  ['m', 60_000_000_000n],
  ['h', 3_600_000_000_000n],
]);

/** Go's time.Duration is an int64 count of nanoseconds. */
export const MAX_GO_DURATION_NANOS: bigint = 2n ** 63n - 1n;

const DURATION_TERM = /(\d*)(?:\.(\d*))?([^\d.]*)/y;

/**
 * Go's `time.ParseDuration`, in nanoseconds; undefined where Go returns an error. Exact
 * integer arithmetic, as Go's, so that what ops-http's formatGoDuration prints reads back unchanged.
 */
export function parseGoDuration(text: string): number | undefined {
  let rest = text;
  let negative = false;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    negative = rest.startsWith('-');
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') return undefined;
  let total = 0n;
  DURATION_TERM.lastIndex = 0;
  while (DURATION_TERM.lastIndex < rest.length) {
    const before = DURATION_TERM.lastIndex;
    const match = DURATION_TERM.exec(rest);
    if (match === null || DURATION_TERM.lastIndex === before) return undefined;
    const [, whole = '', fraction, unitName = ''] = match;
    if (whole === '' && (fraction === undefined || fraction === '')) return undefined;
    const unit = NANOS_PER_UNIT.get(unitName);
    if (unit === undefined) return undefined;
    total += BigInt(whole === '' ? '0' : whole) * unit;
    if (fraction !== undefined && fraction !== '') total += (BigInt(fraction) * unit) / 10n ** BigInt(fraction.length);
    if (total > MAX_GO_DURATION_NANOS + (negative ? 1n : 0n)) return undefined;
  }
  return Number(negative ? -total : total) + 0;
}

/**
 * spf13/cast's `ToDuration` for text, which the peer's viper uses: text carrying a unit
 * letter goes to ParseDuration, bare numbers are nanoseconds.
 */
export function parseCastDuration(text: string): number | undefined {
  return /[nsuµmh]/.test(text) ? parseGoDuration(text) : parseGoDuration(`${text}ns`);
}

/** Go's `strings.Fields`: split on runs of whitespace, no empty entries. */
export function splitFields(text: string): string[] {
  return text.split(/[\t\n\v\f\r \u0085\u00a0]+/).filter((part) => part !== '');
}

/**
 * The orderer's list syntax for environment values: `[a, b]` is split on commas and each
 * entry trimmed; text without brackets is one entry.
 */
export function splitBracketList(text: string): string[] {
  const trimmedText = text.trim();
  if (!trimmedText.startsWith('[') || !trimmedText.endsWith(']')) return [text];
  const inner = trimmedText.slice(1, -1);
  if (inner.trim() === '') return [];
  return inner.split(',').map((part) => part.trim());
}
