import { afterEach, describe, expect, it } from 'vitest';
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
