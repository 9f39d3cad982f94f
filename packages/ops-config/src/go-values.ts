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

const NANOS_PER_UNIT: ReadonlyMap<string, number> = new Map([
  ['ns', 1],
  ['us', 1e3],
  ['\u00b5s', 1e3], // micro sign
  ['\u03bcs', 1e3], // Greek mu; Go accepts both spellings
  ['ms', 1e6],
  ['s', 1e9],
  ['m', 60e9],
  ['h', 3600e9],
]);

const DURATION_TERM = /(\d+\.?\d*|\.\d+)([^\d.]*)/y;

/** Go's `time.ParseDuration`, in nanoseconds; undefined where Go returns an error. */
export function parseGoDuration(text: string): number | undefined {
  let rest = text;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    sign = rest.startsWith('-') ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') return undefined;
  let total = 0;
  DURATION_TERM.lastIndex = 0;
  while (DURATION_TERM.lastIndex < rest.length) {
    const match = DURATION_TERM.exec(rest);
    if (match === null) return undefined;
    const unit = NANOS_PER_UNIT.get(match[2]!);
    if (unit === undefined) return undefined;
    total += Number(match[1]) * unit;
  }
  return sign * total + 0;
}

/**
 * spf13/cast's `ToDuration` for text, which the peer's viper uses: text carrying a unit
 * letter goes to ParseDuration, bare numbers are nanoseconds.
 */
export function parseCastDuration(text: string): number | undefined {
  return /[nsuµmh]/.test(text) ? parseGoDuration(text) : parseGoDuration(`${text}ns`);
}

function trimmed(value: number): string {
  return String(Number(value.toFixed(9)));
}

/** Go's `time.Duration.String()` for a nanosecond count (`10s`, `1m30s`, `250ms`, `1h0m0s`). */
export function formatGoDuration(nanosIn: number): string {
  const nanos = Math.round(nanosIn);
  if (nanos === 0) return '0s';
  const sign = nanos < 0 ? '-' : '';
  let left = Math.abs(nanos);
  if (left < 1e3) return `${sign}${left}ns`;
  if (left < 1e6) return `${sign}${trimmed(left / 1e3)}µs`;
  if (left < 1e9) return `${sign}${trimmed(left / 1e6)}ms`;
  const hours = Math.floor(left / 3600e9);
  left -= hours * 3600e9;
  const minutes = Math.floor(left / 60e9);
  left -= minutes * 60e9;
  const seconds = `${trimmed(left / 1e9)}s`;
  if (hours > 0) return `${sign}${hours}h${minutes}m${seconds}`;
  if (minutes > 0) return `${sign}${minutes}m${seconds}`;
  return `${sign}${seconds}`;
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
