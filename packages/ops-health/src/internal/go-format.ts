const NS_PER_MS = 1_000_000n;
const UNITS: ReadonlyArray<readonly [bigint, string]> = [
  [3_600_000_000_000n, 'h'],
  [60_000_000_000n, 'm'],
];

function fraction(value: bigint, scale: bigint, digits: number): string {
  const whole = value / scale;
  const rest = (value % scale).toString().padStart(digits, '0').replace(/0+$/, '');
  return rest === '' ? whole.toString() : `${whole}.${rest}`;
}

/**
 * A duration in milliseconds written as Go's `time.Duration.String()` does (`5s`, `1.5s`,
 * `250ms`, `1m30s`), so timeout reasons read the same as Fabric's Go messages.
 */
export function goDuration(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms);
  let ns = BigInt(Math.round(ms * 1_000_000));
  if (ns === 0n) return '0s';
  const sign = ns < 0n ? '-' : '';
  if (ns < 0n) ns = -ns;
  if (ns < 1_000n) return `${sign}${ns}ns`;
  if (ns < 1_000_000n) return `${sign}${fraction(ns, 1_000n, 3)}µs`;
  if (ns < 1_000_000_000n) return `${sign}${fraction(ns, NS_PER_MS, 6)}ms`;
  let text = '';
  let rest = ns;
  let started = false;
  for (const [size, unit] of UNITS) {
    const count = rest / size;
    if (count > 0n || started) {
      text += `${count}${unit}`;
      started = true;
    }
    rest %= size;
  }
  return `${sign}${text}${fraction(rest, 1_000_000_000n, 9)}s`;
}

function pad(value: number, width = 2): string {
  return value.toString().padStart(width, '0');
}

/**
 * Go's `time.RFC3339Nano` in the process's local zone (`Z` when the offset is zero):
 * up to nine fractional digits, trailing zeros trimmed, no dot when the fraction is zero.
 * `subMillisecondNanos` adds the precision a JS Date lacks (0–999999).
 */
export function rfc3339Nano(date: Date, subMillisecondNanos = 0): string {
  const offsetMinutes = -date.getTimezoneOffset();
  const nanos = date.getMilliseconds() * 1_000_000 + Math.max(0, Math.min(999_999, Math.trunc(subMillisecondNanos)));
  const frac = nanos === 0 ? '' : '.' + pad(nanos, 9).replace(/0+$/, '');
  let zone = 'Z';
  if (offsetMinutes !== 0) {
    const abs = Math.abs(offsetMinutes);
    zone = `${offsetMinutes < 0 ? '-' : '+'}${pad(Math.trunc(abs / 60))}:${pad(abs % 60)}`;
  }
  return (
    `${pad(date.getFullYear(), 4)}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}${frac}${zone}`
  );
}

/**
 * The current time as Fabric's /healthz writes it. The wall clock gives the milliseconds
 * (so clock changes are honoured); the monotonic clock's sub-millisecond part fills the
 * extra digits Go would print.
 */
export function nowRfc3339Nano(): string {
  const subMs = performance.now() % 1;
  return rfc3339Nano(new Date(), Math.floor(subMs * 1_000) * 1_000);
}
