import { afterEach, describe, expect, it, vi } from 'vitest';
import { goDuration, nowRfc3339Nano, rfc3339Nano } from './go-format.ts';

describe('goDuration', () => {
  it('rounds milliseconds to whole nanoseconds before formatting', () => {
    expect(goDuration(1.25)).toBe('1.25ms');
    expect(goDuration(0.000_5)).toBe('500ns');
    expect(goDuration(3_723_004)).toBe('1h2m3.004s');
  });
});

describe('rfc3339Nano', () => {
  const savedTz = process.env['TZ'];
  afterEach(() => {
    if (savedTz === undefined) delete process.env['TZ'];
    else process.env['TZ'] = savedTz;
  });

  it('writes Z in UTC, trims trailing zeros and drops an empty fraction', () => {
    process.env['TZ'] = 'UTC';
    expect(rfc3339Nano(new Date(Date.UTC(2026, 10, 21, 5, 25, 34, 432)), 990_520)).toBe('2026-11-21T05:25:34.43299052Z');
    expect(rfc3339Nano(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 0)))).toBe('2026-01-02T03:04:05Z');
    expect(rfc3339Nano(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 100)))).toBe('2026-01-02T03:04:05.1Z');
  });

  it('uses the local zone offset like Go', () => {
    process.env['TZ'] = 'Asia/Kolkata';
    expect(rfc3339Nano(new Date(Date.UTC(2026, 10, 21, 5, 0, 0, 7)))).toBe('2026-11-21T10:30:00.007+05:30');
    process.env['TZ'] = 'America/New_York';
    expect(rfc3339Nano(new Date(Date.UTC(2026, 10, 21, 5, 0, 0)))).toBe('2026-11-21T00:00:00-05:00');
  });

  it('now is parseable and close to the wall clock', () => {
    const text = nowRfc3339Nano();
    expect(text).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?(Z|[+-]\d\d:\d\d)$/);
    expect(Math.abs(Date.parse(text) - Date.now())).toBeLessThan(60_000);
  });
});

describe('nowRfc3339Nano', () => {
  it('gives the text rfc3339Nano gives for the same instant, to the microsecond', () => {
    // Instants across second boundaries, with and without a fraction, and with fractions ending in zeros.
    const cases: Array<[number, number]> = [
      [Date.UTC(2026, 10, 21, 5, 25, 34, 432), 0.9905],
      [Date.UTC(2026, 10, 21, 5, 25, 34, 999), 0.999_9],
      [Date.UTC(2026, 10, 21, 5, 25, 35, 0), 0],
      [Date.UTC(2026, 10, 21, 5, 25, 35, 0), 0.000_4],
      [Date.UTC(2026, 10, 21, 5, 25, 35, 120), 0.5],
      [Date.UTC(2026, 10, 21, 5, 25, 36, 1), 0.01],
    ];
    for (const [ms, subMs] of cases) {
      const now = vi.spyOn(Date, 'now').mockReturnValue(ms);
      const mono = vi.spyOn(performance, 'now').mockReturnValue(1_000 + subMs);
      try {
        const expected = rfc3339Nano(new Date(ms), Math.floor(((1_000 + subMs) % 1) * 1_000) * 1_000);
        expect(nowRfc3339Nano()).toBe(expected);
      } finally {
        now.mockRestore();
        mono.mockRestore();
      }
    }
  });

  it('follows the clock from one call to the next (nothing but the second is reused)', () => {
    const base = Date.UTC(2026, 10, 21, 5, 25, 34, 0);
    const mono = vi.spyOn(performance, 'now').mockReturnValue(7);
    const now = vi.spyOn(Date, 'now');
    try {
      now.mockReturnValue(base + 1);
      const first = nowRfc3339Nano();
      now.mockReturnValue(base + 2);
      const second = nowRfc3339Nano();
      now.mockReturnValue(base + 1_000);
      const third = nowRfc3339Nano();
      expect([first, second, third].map((t) => Date.parse(t))).toEqual([base + 1, base + 2, base + 1_000]);
      expect(third).toMatch(/:35(Z|[+-]\d\d:\d\d)$/);
    } finally {
      now.mockRestore();
      mono.mockRestore();
    }
  });
});
