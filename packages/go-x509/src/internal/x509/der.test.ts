import { describe, expect, it } from 'vitest';
import { DerReader, formatRfc3339, parseGeneralizedTime, parseOidBody, parseUTCTime } from './der.ts';

const bytes = (...b: number[]): Uint8Array => Uint8Array.from(b);
const text = (s: string): Uint8Array => Uint8Array.from(Buffer.from(s, 'latin1'));

describe('DerReader follows cryptobyte', () => {
  it.each([
    ['short form', bytes(0x04, 0x01, 0xaa), true],
    ['long form under 128', bytes(0x04, 0x81, 0x01, 0xaa), false],
    ['long form with a leading zero octet', bytes(0x04, 0x82, 0x00, 0x80, ...new Array<number>(128).fill(0)), false],
    ['long form of 128', bytes(0x04, 0x81, 0x80, ...new Array<number>(128).fill(0)), true],
    ['indefinite length', bytes(0x30, 0x80, 0x00, 0x00), false],
    ['five length octets', bytes(0x04, 0x85, 0, 0, 0, 0, 1, 0), false],
    ['high tag number', bytes(0x1f, 0x01, 0x01, 0x00), false],
    ['truncated contents', bytes(0x04, 0x03, 0xaa), false],
    ['header only', bytes(0x04), false],
  ] as const)('%s', (_name, input, ok) => {
    expect(new DerReader(input).readAny() !== undefined).toBe(ok);
  });

  it.each([
    [bytes(0x00), 0n],
    [bytes(0x7f), 127n],
    [bytes(0x00, 0x80), 128n],
    [bytes(0xff), -1n],
    [bytes(0xff, 0x7f), -129n],
    [bytes(0x00, 0x7f), undefined],
    [bytes(0xff, 0x80), undefined],
    [bytes(), undefined],
  ] as const)('INTEGER %o reads as %s', (body, value) => {
    expect(new DerReader(bytes(0x02, body.length, ...body)).readBigInt()).toBe(value);
  });

  it('refuses an int64 wider than eight octets', () => {
    expect(new DerReader(bytes(0x02, 9, 0x01, 0, 0, 0, 0, 0, 0, 0, 0)).readInt64()).toBeUndefined();
    expect(new DerReader(bytes(0x02, 8, 0x7f, 0, 0, 0, 0, 0, 0, 0)).readInt64()).toBe(0x7f00000000000000n);
  });

  it.each([
    [bytes(0x01, 0x01, 0xff), true],
    [bytes(0x01, 0x01, 0x00), false],
    [bytes(0x01, 0x01, 0x01), undefined],
    [bytes(0x01, 0x02, 0xff, 0xff), undefined],
  ] as const)('BOOLEAN %o', (input, value) => {
    expect(new DerReader(input).readBoolean()).toBe(value);
  });

  it.each([
    ['no padding', bytes(0x03, 0x02, 0x00, 0xff), 8],
    ['padding bits zero', bytes(0x03, 0x02, 0x01, 0xfe), 7],
    ['padding bits set', bytes(0x03, 0x02, 0x01, 0xff), undefined],
    ['padding over 7', bytes(0x03, 0x02, 0x08, 0x00), undefined],
    ['empty with padding', bytes(0x03, 0x01, 0x01), undefined],
    ['empty', bytes(0x03, 0x01, 0x00), 0],
    ['no contents', bytes(0x03, 0x00), undefined],
  ] as const)('BIT STRING %s', (_name, input, bitLength) => {
    expect(new DerReader(input).readBitString()?.bitLength).toBe(bitLength);
  });

  it.each([
    [bytes(0x2a, 0x86, 0x48), [1, 2, 840]],
    [bytes(0x55, 0x1d, 0x13), [2, 5, 29, 19]],
    [bytes(0x88, 0x37), [2, 999]],
    // A leading 0x80 octet in an arc is refused since Go 1.23's cryptobyte (X.690: fewest octets).
    [bytes(0x2a, 0x80, 0x01), undefined],
    [bytes(0x2a, 0x87, 0xff, 0xff, 0xff, 0x7f), [1, 2, 2147483647]],
    [bytes(0x2a, 0x8f, 0xff, 0xff, 0xff, 0x7f), undefined],
    [bytes(0x2a, 0x90, 0x80, 0x80, 0x80, 0x00), undefined],
    [bytes(0x2a, 0x81), undefined],
    [bytes(), undefined],
  ] as const)('OID %o', (body, arcs) => {
    expect(parseOidBody(body)).toEqual(arcs);
  });
});

describe('times read as Go parses and re-formats them', () => {
  const utc = (s: string): number | undefined => parseUTCTime(text(s))?.ms;
  const gen = (s: string): number | undefined => parseGeneralizedTime(text(s))?.ms;

  it.each([
    ['260115120000Z', Date.UTC(2026, 0, 15, 12)],
    ['2601151200Z', Date.UTC(2026, 0, 15, 12)],
    ['500101000000Z', Date.UTC(1950, 0, 1)],
    ['491231235959Z', Date.UTC(2049, 11, 31, 23, 59, 59)],
    ['260115120000+0130', Date.UTC(2026, 0, 15, 10, 30)],
    ['260115120000-0000', undefined],
    ['260115120000+0000', undefined],
    ['260115120000+0060', undefined],
    ['260115120000.5Z', undefined],
    ['260115240000Z', undefined],
    ['260229000000Z', undefined],
    ['280229000000Z', Date.UTC(2028, 1, 29)],
    ['260115120060Z', undefined],
    ['260115120000', undefined],
    ['2601151200', undefined],
    ['26011512000Z', undefined],
    ['+60115120000Z', undefined],
  ] as const)('UTCTime %s', (s, ms) => {
    expect(utc(s)).toBe(ms);
  });

  it.each([
    ['20260115120000Z', Date.UTC(2026, 0, 15, 12)],
    ['99991231235959Z', Date.UTC(9999, 11, 31, 23, 59, 59)],
    ['20260115120000-0800', Date.UTC(2026, 0, 15, 20)],
    ['202601151200Z', undefined],
    ['20260115120000.000Z', undefined],
    ['20260115120000+0000', undefined],
    ['20261315120000Z', undefined],
    ['20260100120000Z', undefined],
    ['21000229000000Z', undefined],
    ['20000229000000Z', Date.UTC(2000, 1, 29)],
  ] as const)('GeneralizedTime %s', (s, ms) => {
    expect(gen(s)).toBe(ms);
  });

  it('formats as RFC 3339 in the zone the time was written with', () => {
    expect(formatRfc3339(parseUTCTime(text('260115120000+0130'))!)).toBe('2026-01-15T12:00:00+01:30');
    expect(formatRfc3339(parseGeneralizedTime(text('19990101000000Z'))!)).toBe('1999-01-01T00:00:00Z');
  });
});
