import { formatGoDuration } from '@fabric-ops/ops-http/go';

/** A duration in milliseconds (how the checks time themselves) as Go prints it (`5s`, `250ms`). */
export function goDuration(ms: number): string {
  return formatGoDuration(Math.round(ms * 1_000_000));
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
