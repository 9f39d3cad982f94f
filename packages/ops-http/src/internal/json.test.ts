import { describe, expect, it } from 'vitest';
import { goJson } from './json.ts';

describe('goJson', () => {
  it('escapes HTML characters as Go does', () => {
    expect(goJson({ reason: '<a & b>' })).toBe('{"reason":"\\u003ca \\u0026 b\\u003e"}');
  });
  it('escapes line and paragraph separators', () => {
    expect(goJson('\u2028\u2029')).toBe('"\\u2028\\u2029"');
  });
  it('is compact and keeps key order', () => {
    expect(goJson({ CommitSHA: 'abc1234', Version: '1.0.0' })).toBe('{"CommitSHA":"abc1234","Version":"1.0.0"}');
  });
  it('round-trips through JSON.parse', () => {
    const value = { s: '<>&\u2028 "quoted" \\ é 😀', n: [1, 2.5, null] };
    expect(JSON.parse(goJson(value))).toEqual(value);
  });
});
