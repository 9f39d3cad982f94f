import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatGoFloat } from './format-float.ts';

/** Exact `%f`: the double's exact binary value, rounded half-to-even at 6 decimals. */
function referenceFormat(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? '+Inf' : '-Inf';
  const negative = value < 0 || Object.is(value, -0);
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(value));
  const bits = view.getBigUint64(0);
  const exponentBits = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  const mantissa = exponentBits === 0 ? fraction : fraction | (1n << 52n);
  const exponent = (exponentBits === 0 ? 1 : exponentBits) - 1075;
  let scaled: bigint;
  if (exponent >= 0) {
    scaled = (mantissa << BigInt(exponent)) * 1_000_000n;
  } else {
    const numerator = mantissa * 1_000_000n;
    const denominator = 1n << BigInt(-exponent);
    const quotient = numerator / denominator;
    const remainder = (numerator % denominator) * 2n;
    scaled = remainder > denominator || (remainder === denominator && quotient % 2n === 1n) ? quotient + 1n : quotient;
  }
  const text = scaled.toString().padStart(7, '0');
  return `${negative ? '-' : ''}${text.slice(0, -6)}.${text.slice(-6)}`;
}

describe('formatGoFloat (Go %f)', () => {
  it.each([
    [1, '1.000000'],
    [0, '0.000000'],
    [-0, '-0.000000'],
    [6, '6.000000'],
    [0.5, '0.500000'],
    [-2.25, '-2.250000'],
    [1234567.891, '1234567.891000'],
    [1e-7, '0.000000'],
    [-1e-7, '-0.000000'],
    [0.0078125, '0.007812'],
    [0.0234375, '0.023438'],
    [1e21, '1000000000000000000000.000000'],
    [2 ** 80, '1208925819614629174706176.000000'],
    [NaN, 'NaN'],
    [Infinity, '+Inf'],
    [-Infinity, '-Inf'],
  ])('%s → %s', (value, text) => {
    expect(formatGoFloat(value)).toBe(text);
  });

  it('agrees with an exact half-to-even reference on any double', () => {
    fc.assert(
      fc.property(fc.double(), (value) => formatGoFloat(value) === referenceFormat(value)),
      { numRuns: 5_000 },
    );
  });

  it('agrees with the reference on exact ties (odd multiples of 1/128)', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e9, max: 1e9 }), (n) => {
        const value = (2 * n + 1) / 128;
        return formatGoFloat(value) === referenceFormat(value);
      }),
    );
  });
});
