import { describe, expect, it } from 'vitest';
import { BodyWriter } from './body-writer.ts';

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
});
