/**
 * A number as Go's `%f` prints it: always six decimals, never an exponent, `NaN`,
 * `+Inf`, `-Inf`, and `-0.000000` for negative zero. Fabric's StatsD lines use it.
 *
 * `toFixed(6)` agrees with Go except on exact ties, where Go rounds half to even and
 * `toFixed` rounds away from zero. A double is an exact tie at the sixth decimal only
 * when `x * 128` is an odd integer (x = a/2^7 with a odd; then x·10^6 = a·15625/2).
 */
export function formatGoFloat(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  const negative = value < 0 || Object.is(value, -0);
  const magnitude = Math.abs(value);
  let digits: string;
  if (magnitude >= 1e21) {
    // Every double this large is an integer; toFixed would switch to exponent form.
    digits = `${BigInt(magnitude).toString()}.000000`;
  } else {
    const scaled = magnitude * 128;
    if (Number.isInteger(scaled) && scaled % 2 === 1) {
      const lower = (BigInt(scaled) * 15625n - 1n) / 2n;
      const rounded = lower % 2n === 0n ? lower : lower + 1n;
      const text = rounded.toString().padStart(7, '0');
      digits = `${text.slice(0, -6)}.${text.slice(-6)}`;
    } else {
      digits = magnitude.toFixed(6);
    }
  }
  return negative ? `-${digits}` : digits;
}
