import { describe, expect, it } from 'vitest';
import { createMetricsProvider } from '@fabric-ops/ops-metrics';
import { formatSampleValue } from '@fabric-ops/ops-metrics';
import { mergeExpositions, parseExposition, withWorkerLabel } from './exposition.ts';

const worker = (counter: number, gauge: number, extra = '') => `# HELP work_total Work done.
# TYPE work_total counter
work_total{kind="a b}"} ${counter}
# HELP mem_bytes Memory.
# TYPE mem_bytes gauge
mem_bytes ${gauge}
# HELP lat_seconds Latency.
# TYPE lat_seconds histogram
lat_seconds_bucket{le="0.1"} 1
lat_seconds_bucket{le="+Inf"} 2
lat_seconds_sum 0.5
lat_seconds_count 2
${extra}`;

describe('parseExposition', () => {
  it('groups histogram samples under their family and keeps label sets with spaces and braces intact', () => {
    const families = parseExposition(worker(3, 10));
    expect([...families.keys()]).toEqual(['work_total', 'mem_bytes', 'lat_seconds']);
    expect(families.get('work_total')!.series).toEqual([{ key: 'work_total{kind="a b}"}', value: 3 }]);
    expect(families.get('lat_seconds')!.series.map((s) => s.key)).toEqual(['lat_seconds_bucket{le="0.1"}', 'lat_seconds_bucket{le="+Inf"}', 'lat_seconds_sum', 'lat_seconds_count']);
    expect(families.get('lat_seconds')!.type).toBe('histogram');
  });

  it('skips unreadable lines instead of failing the scrape', () => {
    const families = parseExposition('# TYPE a counter\na 1\nb{x="unterminated 2\nc notanumber\n');
    expect(families.get('a')!.series).toEqual([{ key: 'a', value: 1 }]);
    expect(families.has('c')).toBe(false);
  });
});

describe('mergeExpositions', () => {
  it('sums counters and histograms, and gauges by default', () => {
    const text = mergeExpositions([
      { worker: '1', exposition: parseExposition(worker(3, 10)) },
      { worker: '2', exposition: parseExposition(worker(4, 20)) },
    ]);
    expect(text).toContain('work_total{kind="a b}"} 7\n');
    expect(text).toContain('mem_bytes 30\n');
    expect(text).toContain('lat_seconds_bucket{le="+Inf"} 4\n');
    expect(text).toContain('lat_seconds_sum 1\n');
    expect(text.match(/# TYPE work_total counter/g)).toHaveLength(1);
  });

  it('applies per-family gauge rules: max, min, and one series per worker', () => {
    const inputs = [
      { worker: '1', exposition: parseExposition(worker(1, 10)) },
      { worker: '2', exposition: parseExposition(worker(1, 20)) },
    ];
    expect(mergeExpositions(inputs, { gaugeRules: { mem_bytes: 'max' } })).toContain('mem_bytes 20\n');
    expect(mergeExpositions(inputs, { gaugeRules: { mem_bytes: 'min' } })).toContain('mem_bytes 10\n');
    const perWorker = mergeExpositions(inputs, { gaugeRules: { mem_bytes: 'perWorker' } });
    expect(perWorker).toContain('mem_bytes{worker="1"} 10\n');
    expect(perWorker).toContain('mem_bytes{worker="2"} 20\n');
  });

  it('merges by key whatever order or subset of series each process renders', () => {
    const counter = (...series: [string, number][]) => `# TYPE c_total counter\n${series.map(([k, v]) => `c_total{k="${k}"} ${v}`).join('\n')}\n`;
    const gauge = (...series: [string, number][]) => `# TYPE g gauge\n${series.map(([k, v]) => `g{k="${k}"} ${v}`).join('\n')}\n`;
    const text = mergeExpositions(
      [
        { worker: '1', exposition: parseExposition(counter(['a', 1], ['b', 2]) + gauge(['x', 5])) },
        { worker: '2', exposition: parseExposition(counter(['b', 10], ['a', 20], ['c', 30]) + gauge(['y', 1], ['x', 7])) },
        { worker: '3', exposition: parseExposition(counter(['c', 100], ['a', 200]) + gauge(['x', 1])) },
      ],
      { gaugeRules: { g: 'max' } },
    );
    expect(text).toBe('# TYPE c_total counter\nc_total{k="a"} 221\nc_total{k="b"} 12\nc_total{k="c"} 130\n# TYPE g gauge\ng{k="x"} 7\ng{k="y"} 1\n');
  });

  it('adds what exited workers had counted, so the sum never goes down', () => {
    const before = parseExposition(worker(100, 5));
    const family = before.get('work_total')!;
    const retired = new Map([['work_total{kind="a b}"}', { family, value: 100 }]]);
    const text = mergeExpositions([{ worker: '3', exposition: parseExposition(worker(2, 5)) }], { retired });
    expect(text).toContain('work_total{kind="a b}"} 102\n');
  });

  it('keeps summary quantiles per worker and sums their _sum and _count', () => {
    const summary = (sum: number) => `# TYPE rpc_seconds summary\nrpc_seconds{quantile="0.5"} 0.2\nrpc_seconds_sum ${sum}\nrpc_seconds_count 4\n`;
    const text = mergeExpositions([
      { worker: '1', exposition: parseExposition(summary(1)) },
      { worker: '2', exposition: parseExposition(summary(2)) },
    ]);
    expect(text).toContain('rpc_seconds{quantile="0.5",worker="1"} 0.2\n');
    expect(text).toContain('rpc_seconds{quantile="0.5",worker="2"} 0.2\n');
    expect(text).toContain('rpc_seconds_sum 3\n');
    expect(text).toContain('rpc_seconds_count 8\n');
  });
});

describe('formatSampleValue', () => {
  it.each([
    [0, '0'],
    [7, '7'],
    [0.5, '0.5'],
    [123456, '123456'],
    [1_000_000, '1000000'],
    [1_234_567, '1234567'],
    [0.00001, '0.00001'],
    [1e21, '1e+21'],
    [1.5e-7, '1.5e-7'],
    [Infinity, '+Inf'],
    [-Infinity, '-Inf'],
    [Number.NaN, 'NaN'],
  ])('%s → %s (as ops-metrics prints it)', (value, text) => {
    expect(formatSampleValue(value)).toBe(text);
  });

  it('reprints a single process exposition from ops-metrics byte for byte (one value format with and without the cluster)', async () => {
    const provider = createMetricsProvider({ provider: 'prometheus', runtimeMetrics: false });
    provider.newCounter({ name: 'big_total', help: 'A counter past a million.' }).add(1_000_000);
    provider.newCounter({ name: 'odd_total', help: 'Another.', labelNames: ['k'] }).with('k', 'v').add(1_234_567.5);
    provider.newGauge({ name: 'huge', help: 'A gauge past 1e21.' }).set(1e21);
    provider.newGauge({ name: 'tiny', help: 'A small gauge.' }).set(1.5e-7);
    const histogram = provider.newHistogram({ name: 'took_seconds', help: 'Durations.', buckets: [0.000001, 1_000_000] });
    histogram.observe(2_000_000);
    histogram.observe(0.0000005);
    const single = await provider.exposition();
    await provider.stop();
    expect(single).toContain('big_total 1000000\n');
    expect(mergeExpositions([{ worker: 'primary', exposition: parseExposition(single) }])).toBe(single);
  });
});

describe('withWorkerLabel', () => {
  it('adds the label to bare and labelled keys, escaping quotes', () => {
    expect(withWorkerLabel('a', '1')).toBe('a{worker="1"}');
    expect(withWorkerLabel('a{b="c"}', '1')).toBe('a{b="c",worker="1"}');
    expect(withWorkerLabel('a', 'x"y')).toBe('a{worker="x\\"y"}');
  });
});
