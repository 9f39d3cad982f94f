import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatGoDuration } from '@fabric-ops/ops-http/go';
import { parseCastDuration, parseGoBool, parseGoDuration, splitBracketList, splitFields } from './go-values.ts';

describe('parseGoBool (strconv.ParseBool)', () => {
  it.each(['1', 't', 'T', 'TRUE', 'true', 'True'])('%s is true', (text) => expect(parseGoBool(text)).toBe(true));
  it.each(['0', 'f', 'F', 'FALSE', 'false', 'False'])('%s is false', (text) => expect(parseGoBool(text)).toBe(false));
  it.each(['yes', 'no', 'on', 'off', 'tRUE', 'y', '', ' true', 'true ', '2'])('%j is not a Go boolean', (text) => expect(parseGoBool(text)).toBeUndefined());
});

describe('parseGoDuration (time.ParseDuration)', () => {
  it.each([
    ['10s', 10e9],
    ['1m30s', 90e9],
    ['250ms', 250e6],
    ['1h', 3600e9],
    ['1.5s', 1.5e9],
    ['.5s', 0.5e9],
    ['1.s', 1e9],
    ['2h45m', 9900e9],
    ['100us', 100e3],
    ['100µs', 100e3],
    ['100μs', 100e3],
    ['7ns', 7],
    ['0', 0],
    ['-0', 0],
    ['+5s', 5e9],
    ['-1m', -60e9],
    ['1h1m1s1ms', 3661.001e9],
  ])('%s is %d ns', (text, nanos) => expect(parseGoDuration(text)).toBeCloseTo(nanos, 0));

  it('rejects what overflows int64 nanoseconds, as Go does', () => {
    expect(parseGoDuration('2562047h47m16.854775807s')).toBe(9_223_372_036_854_775_807);
    expect(parseGoDuration('2562048h')).toBeUndefined();
    expect(parseGoDuration('99999999999999999999ns')).toBeUndefined();
  });

  it('drops fractions of a nanosecond, as Go does', () => {
    expect(parseGoDuration('1.9ns')).toBe(1);
    expect(parseGoDuration('1.0000000005s')).toBe(1e9);
  });

  it.each(['', 'fast', '30', '1', 's', '.s', '1x', '1 s', ' 1s', '1s ', '1S', '1sec', '--1s', '1..5s', '1e3s', 'constructor1s', '1constructor'])('%j is not a Go duration', (text) =>
    expect(parseGoDuration(text)).toBeUndefined(),
  );
});

describe('parseCastDuration (spf13/cast for the peer)', () => {
  it('reads a bare number as nanoseconds', () => {
    expect(parseCastDuration('10')).toBe(10);
    expect(parseCastDuration('1500000000')).toBe(1.5e9);
  });
  it('reads text with a unit as Go does', () => expect(parseCastDuration('1m30s')).toBe(90e9));
  it('rejects what Go rejects', () => {
    expect(parseCastDuration('fast')).toBeUndefined();
    expect(parseCastDuration('')).toBeUndefined();
  });
});

describe("ops-http's formatGoDuration read back by parseGoDuration", () => {
  it('prints what parseGoDuration reads back exactly, across the int64 range', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 63n) + 1025n, max: 2n ** 63n - 1025n }), (big) => {
        const nanos = Number(big);
        expect(parseGoDuration(formatGoDuration(nanos))).toBe(nanos);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('list syntaxes', () => {
  it('splits the peer environment on any whitespace (strings.Fields)', () => {
    expect(splitFields('  a.pem\tb.pem\n c.pem ')).toEqual(['a.pem', 'b.pem', 'c.pem']);
    expect(splitFields('')).toEqual([]);
    expect(splitFields('[a,b]')).toEqual(['[a,b]']);
  });
  it('splits the orderer environment [a, b] on commas and trims', () => {
    expect(splitBracketList('[a.pem, b.pem ,c.pem]')).toEqual(['a.pem', 'b.pem', 'c.pem']);
    expect(splitBracketList('[]')).toEqual([]);
    expect(splitBracketList('single.pem')).toEqual(['single.pem']);
  });
});
