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
  return `${pad(date.getFullYear(), 4)}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` + `T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}${frac}${zone}`;
}

// The date, time and zone of the current second, formatted once per second (`zone` apart so
// the fraction can go between them). Only the whole-second part is reused: the milliseconds and
// microseconds of every answer are read from the clocks at that moment, so the text is as current
// as it was when it was formatted from scratch each time. A zone offset changes only on a second
// boundary, so formatting it with the second is exact.
let cachedSecond = Number.NaN;
let cachedDateTime = '';
let cachedZone = '';

/** `.d…` with trailing zeros trimmed, for 0–999999 µs (Go prints nanoseconds; ours end in `000`, trimmed). */
function microsFraction(micros: number): string {
  if (micros === 0) return '';
  let digits = String(1_000_000 + micros).slice(1);
  let end = digits.length;
  while (digits.charCodeAt(end - 1) === 0x30) end--;
  if (end !== digits.length) digits = digits.slice(0, end);
  return '.' + digits;
}

/**
 * The current time as Fabric's /healthz writes it. The wall clock gives the milliseconds
 * (so clock changes are honoured); the monotonic clock's sub-millisecond part fills the
 * extra digits Go would print, to the microsecond. Same text as `rfc3339Nano(new Date(),
 * subMicroseconds * 1000)`, without formatting the date and zone again within one second.
 */
export function nowRfc3339Nano(): string {
  const subMicros = Math.floor((performance.now() % 1) * 1_000);
  const ms = Date.now();
  const second = Math.floor(ms / 1_000);
  if (second !== cachedSecond) {
    const whole = rfc3339Nano(new Date(second * 1_000));
    const zoneAt = whole.length - (whole.endsWith('Z') ? 1 : 6);
    cachedDateTime = whole.slice(0, zoneAt);
    cachedZone = whole.slice(zoneAt);
    cachedSecond = second;
  }
  return cachedDateTime + microsFraction((ms - second * 1_000) * 1_000 + subMicros) + cachedZone;
}
