import { describe, expect, it } from 'vitest';
import { decodeStatsdInterval, encodeStatsdInterval, mergeStatsdIntervals } from './statsd-merge.ts';

describe('mergeStatsdIntervals', () => {
  const a = {
    worker: 'primary',
    interval: {
      counters: [['work', 2]],
      gauges: [
        ['pool.size', 3, 'pool_size'],
        ['lag', 0.5, 'nodejs_eventloop_delay_max_seconds'],
      ],
      timings: [['took', [0.1]]],
    },
  } as const;
  const b = {
    worker: '2',
    interval: {
      counters: [
        ['work', 5],
        ['other', 1],
      ],
      gauges: [
        ['pool.size', 4, 'pool_size'],
        ['lag', 0.2, 'nodejs_eventloop_delay_max_seconds'],
      ],
      timings: [['took', [0.3, 0.4]]],
    },
  } as const;

  it('sums counters, sums gauges by default, uses a runtime gauge rule, and concatenates timings', () => {
    expect(mergeStatsdIntervals([a, b])).toEqual({
      counters: [
        ['work', 7],
        ['other', 1],
      ],
      gauges: [
        ['pool.size', 7, 'pool_size'],
        ['lag', 0.5, 'nodejs_eventloop_delay_max_seconds'],
      ],
      timings: [['took', [0.1, 0.3, 0.4]]],
    });
  });

  it('applies the per-metric rules: max, min, and perWorker as one bucket per process', () => {
    expect(mergeStatsdIntervals([a, b], { gaugeRules: { pool_size: 'max' } }).gauges[0]).toEqual(['pool.size', 4, 'pool_size']);
    expect(mergeStatsdIntervals([a, b], { defaultGaugeRule: 'min' }).gauges[0]).toEqual(['pool.size', 3, 'pool_size']);
    expect(mergeStatsdIntervals([a, b], { gaugeRules: { pool_size: 'perWorker' } }).gauges.filter(([, , metric]) => metric === 'pool_size')).toEqual([
      ['pool.size.worker-primary', 3, 'pool_size'],
      ['pool.size.worker-2', 4, 'pool_size'],
    ]);
  });

  it('does not change its inputs', () => {
    const timings = [0.1];
    mergeStatsdIntervals([
      { worker: '1', interval: { counters: [], gauges: [], timings: [['t', timings]] } },
      { worker: '2', interval: { counters: [], gauges: [], timings: [['t', [1]]] } },
    ]);
    expect(timings).toEqual([0.1]);
  });
});

describe('encodeStatsdInterval / decodeStatsdInterval', () => {
  it('carries NaN and infinities across a JSON channel, and finite intervals unchanged', () => {
    const interval = {
      counters: [['c', 1]],
      gauges: [
        ['g', Number.NaN, 'g'],
        ['h', -Infinity, 'h'],
      ],
      timings: [['t', [0.5, Infinity]]],
    } as const;
    const crossed = decodeStatsdInterval(JSON.parse(JSON.stringify(encodeStatsdInterval(interval))));
    expect(crossed).toEqual(interval);
    const finite = { counters: [['c', 1]], gauges: [['g', 2, 'g']], timings: [] } as const;
    expect(encodeStatsdInterval(finite)).toBe(finite);
  });
});
