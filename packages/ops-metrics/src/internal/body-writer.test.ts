import { describe, expect, it } from 'vitest';
import { BodyWriter } from './body-writer.ts';
import { formatSampleValue } from './exposition.ts';

describe('BodyWriter', () => {
  it('writes ASCII, non-ASCII and single bytes as Buffer.from would, growing past its first capacity', () => {
    const writer = new BodyWriter(8);
    const parts = ['# HELP a b', 'x{l="héllo ✓ 日本 😀"} ', '12345', 'plain ascii line that is longer than eight bytes'];
    for (const part of parts) {
      writer.write(part);
      writer.byte(0x0a);
    }
    expect(writer.capacity).toBeGreaterThan(8);
    expect(writer.take().equals(Buffer.from(parts.map((p) => `${p}\n`).join(''), 'utf8'))).toBe(true);
  });

  it('starts again from empty after reset, and hands out copies', () => {
    const writer = new BodyWriter(16);
    writer.write('first body');
    const first = writer.take();
    writer.reset();
    writer.write('second');
    expect(writer.take().toString()).toBe('second');
    expect(first.toString()).toBe('first body');
  });

  it('writes safe integers exactly as String() does, and declines every other number', () => {
    const writer = new BodyWriter(4);
    const integers = [0, -0, 1, 9, 10, 99, 100, -1, -10, 123456789, 2 ** 31, 2 ** 32 + 1, 1e15, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER];
    for (const value of integers) {
      expect(writer.integer(value)).toBe(true);
      writer.byte(0x20);
    }
    expect(writer.take().toString()).toBe(integers.map((v) => `${String(v)} `).join(''));
    for (const value of [0.5, -1.25, NaN, Infinity, -Infinity, 2 ** 53, 1e21]) expect(writer.integer(value)).toBe(false);
  });

  it('writes every sample value as formatSampleValue prints it', () => {
    const writer = new BodyWriter(4);
    const values = [NaN, Infinity, -Infinity, -0, 0.1, -1.5e-7, 1e21, 1.7976931348623157e308, 5e-324, 2 ** 53, 123.456, 1 / 3];
    for (let i = 0; i < 500; i++) values.push((Math.random() - 0.5) * 10 ** ((i % 40) - 20));
    for (const value of values) {
      writer.number(value);
      writer.byte(0x0a);
    }
    expect(writer.take().toString()).toBe(values.map((v) => `${formatSampleValue(v)}\n`).join(''));
  });
});
