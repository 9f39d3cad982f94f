import { describe, expect, it } from 'vitest';
import { newRequestId } from './request-id.ts';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('newRequestId', () => {
  it('makes lower-case UUIDv4s (version and variant bits set), all different, across many refills', () => {
    const count = 100_000;
    const seen = new Set<string>();
    for (let i = 0; i < count; i++) {
      const id = newRequestId();
      if (!UUID_V4.test(id)) expect(id).toMatch(UUID_V4);
      seen.add(id);
    }
    expect(seen.size).toBe(count);
  });

  it('spreads randomness over every other hex digit', () => {
    // Each of the 30 random digit positions takes many values over a few thousand ids; a
    // formatting slip (a position never written, or written from the wrong byte) shows as a constant.
    const ids = Array.from({ length: 4_096 }, newRequestId);
    for (let at = 0; at < 36; at++) {
      if ([8, 13, 14, 18, 23].includes(at)) continue;
      const values = new Set(ids.map((id) => id[at]));
      expect(values.size, `position ${at}`).toBeGreaterThan(at === 19 ? 3 : 15);
    }
  });
});
