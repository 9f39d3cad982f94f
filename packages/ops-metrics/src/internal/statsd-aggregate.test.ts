import { describe, expect, it } from 'vitest';
import { backoffDelayMs, packLines, StatsdAggregate } from './statsd-aggregate.ts';

describe('StatsdAggregate', () => {
  it('sums counters, keeps the last gauge, and sends each timing', () => {
    const aggregate = new StatsdAggregate();
    aggregate.count('c', 1);
    aggregate.count('c', 2.5);
    aggregate.setGauge('g', 7);
    aggregate.setGauge('g', 3);
    aggregate.time('t', 0.25);
    aggregate.time('t', 1.5);
    expect(aggregate.drain('org1.')).toEqual(['org1.c:3.500000|c', 'org1.g:3.000000|g', 'org1.t:0.250000|ms', 'org1.t:1.500000|ms']);
  });

  it('adds to a gauge within the interval, from 0 after a flush (Fabric: Set(1) + 5×Add(1) = 6)', () => {
    const aggregate = new StatsdAggregate();
    aggregate.setGauge('g', 1);
    for (let i = 0; i < 5; i++) aggregate.addGauge('g', 1);
    expect(aggregate.drain('')).toEqual(['g:6.000000|g']);
    aggregate.addGauge('g', 2);
    expect(aggregate.drain('')).toEqual(['g:2.000000|g']);
  });

  it('sends nothing for a metric that was silent in the interval', () => {
    const aggregate = new StatsdAggregate();
    aggregate.count('c', 1);
    expect(aggregate.drain('')).toHaveLength(1);
    expect(aggregate.isEmpty).toBe(true);
    expect(aggregate.drain('')).toEqual([]);
  });

  it('bounds the timings held per interval and counts the rest', () => {
    const aggregate = new StatsdAggregate(3);
    for (let i = 0; i < 5; i++) aggregate.time('t', i);
    expect(aggregate.drain('')).toHaveLength(3);
    expect(aggregate.droppedTimings).toBe(2);
    aggregate.time('t', 9);
    expect(aggregate.drain('')).toEqual(['t:9.000000|ms']);
  });
});

describe('packLines', () => {
  it('fills packets up to the byte limit, newline included', () => {
    expect(packLines(['aaaa', 'bbbb', 'cccc'], 10)).toEqual([['aaaa', 'bbbb'], ['cccc']]);
    expect(packLines(['toolongline'], 4)).toEqual([['toolongline']]);
    expect(packLines([], 10)).toEqual([]);
  });
});

describe('backoffDelayMs', () => {
  it('starts at 1 s, doubles, and stops at 1 min', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 50].map((n) => backoffDelayMs(n))).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000]);
  });
});
