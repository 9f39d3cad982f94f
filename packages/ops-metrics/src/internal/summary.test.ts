import { DataPointType, type GaugeMetricData, type SumMetricData } from '@opentelemetry/sdk-metrics';
import { promtoolCheckMetrics } from '@fabric-ops/test-kit';
import { describe, expect, it } from 'vitest';
import { declare } from './declare.ts';
import { isMetricsError } from './errors.ts';
import { TEXT_FORMAT } from './negotiate.ts';
import { hrTime, familyMetrics } from './otlp/convert.ts';
import { createPrometheusProvider, renderBody } from './prometheus.ts';
import { PrometheusFamily } from './prometheus-family.ts';
import { createMetricsProvider } from './provider.ts';
import { textToDelimitedProtobuf } from './protobuf.ts';
import { keyLayouts, mergeSeries, renderKeyedFamilies, withValues } from './series-merge.ts';
import { binStoreSteps, MAX_BINS, QuantileWindow, RELATIVE_ACCURACY } from './summary-window.ts';

const OPENMETRICS = { kind: 'openmetrics', version: '1.0.0' } as const;

/** A clock the test moves by hand. */
function manualClock(start = 0) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('QuantileWindow', () => {
  it('estimates quantiles within the stated relative error', () => {
    const clock = manualClock();
    const window = new QuantileWindow({ maxAgeMs: 60_000, ageBuckets: 5, now: clock.now });
    // 1..10 000 in a scrambled order.
    for (let i = 0; i < 10_000; i++) window.observe(((i * 7919) % 10_000) + 1);
    const [p50, p90, p99] = window.quantiles([0.5, 0.9, 0.99]);
    for (const [estimate, exact] of [
      [p50!, 5_000],
      [p90!, 9_000],
      [p99!, 9_900],
    ] as const) {
      expect(Math.abs(estimate - exact) / exact).toBeLessThanOrEqual(RELATIVE_ACCURACY + 1e-3);
    }
  });

  it('orders negative values, zero and positive values, and gives the extremes for 0 and 1', () => {
    const window = new QuantileWindow({ maxAgeMs: 1_000, ageBuckets: 1, now: manualClock().now });
    for (const value of [-100, -1, 0, 0, 2, 50]) window.observe(value);
    const [min, median, max] = window.quantiles([0, 0.5, 1]);
    expect(Math.abs(min! + 100)).toBeLessThanOrEqual(100 * RELATIVE_ACCURACY);
    expect(median).toBe(0);
    expect(Math.abs(max! - 50)).toBeLessThanOrEqual(50 * RELATIVE_ACCURACY);
  });

  it('forgets observations older than the window, one slice at a time', () => {
    const clock = manualClock(1_000_000);
    const window = new QuantileWindow({ maxAgeMs: 10_000, ageBuckets: 5, now: clock.now });
    window.observe(1000);
    clock.advance(4_000);
    window.observe(1);
    expect(window.count).toBe(2);
    // 10 s after the first slice began, it has aged out; the later observation has not.
    clock.advance(6_000);
    expect(window.count).toBe(1);
    expect(window.quantiles([0.5])[0]).toBeCloseTo(1, 1);
    clock.advance(60_000);
    expect(window.count).toBe(0);
    expect(window.quantiles([0.5, 0.9])).toEqual([NaN, NaN]);
  });

  it('keeps at most MAX_BINS bins per sign per slice, however wide the values spread', () => {
    const window = new QuantileWindow({ maxAgeMs: 1_000, ageBuckets: 1, now: manualClock().now });
    for (let i = 0; i < 5_000; i++) window.observe(Math.pow(1.05, i - 2_500));
    const slice = (window as unknown as { slices: { positive: { size: number } }[] }).slices[0]!;
    expect(slice.positive.size).toBeLessThanOrEqual(MAX_BINS);
    expect(window.count).toBe(5_000);
    // The folded bins are the smallest values: the top quantiles stay accurate.
    const top = window.quantiles([1])[0]!;
    expect(Math.abs(top - Math.pow(1.05, 2_499)) / Math.pow(1.05, 2_499)).toBeLessThanOrEqual(RELATIVE_ACCURACY);
  });

  it('costs O(1) amortised per observation with attacker-chosen values, past the bin limit too (bin visits counted)', () => {
    const observations = 50_000;
    const patterns: Record<string, (i: number) => number> = {
      // every value a new highest bin: the range moves up by one each time
      ascending: (i) => Math.pow(1.0203, i - 1_000),
      // spread over the whole double range, both signs, in a scrambled order
      scattered: (i) => (i % 2 === 0 ? 1 : -1) * Math.pow(10, (((i * 7919) % 600) - 300) / 1.01),
      // far jumps up, each folding everything below
      leaping: (i) => Math.pow(10, (i % 300) - 9 + Math.floor(i / 300) * 1e-3),
    };
    for (const [name, value] of Object.entries(patterns)) {
      const window = new QuantileWindow({ maxAgeMs: 1_000, ageBuckets: 1, now: manualClock().now });
      const before = binStoreSteps();
      for (let i = 0; i < observations; i++) window.observe(value(i));
      const perObservation = (binStoreSteps() - before) / observations;
      expect([name, perObservation < 4]).toEqual([name, true]);
      const slice = (window as unknown as { slices: { positive: { size: number }; negative: { size: number } }[] }).slices[0]!;
      expect(slice.positive.size).toBeLessThanOrEqual(MAX_BINS);
      expect(slice.negative.size).toBeLessThanOrEqual(MAX_BINS);
      expect(window.count).toBe(observations);
      console.log(`summary ${name}: ${perObservation.toFixed(3)} bin visits per observation`);
    }
  });
});

async function summaryProvider() {
  const provider = createPrometheusProvider({ runtimeMetrics: false });
  const summary = provider.newSummary({ namespace: 'ops', name: 'request_size_bytes', help: 'Request sizes.', labelNames: ['path'], quantiles: [0.9, 0.5] });
  for (let i = 1; i <= 100; i++) summary.with('path', '/a').observe(i);
  provider.newSummary({ name: 'empty_window_seconds', help: 'Nothing yet.', maxAgeSeconds: 0.001, ageBuckets: 1 }).observe(3);
  return { provider, summary };
}

describe('Summary with the Prometheus provider', () => {
  it('renders quantiles, _sum and _count in the text format', async () => {
    const { provider } = await summaryProvider();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const text = (await renderBody(provider, TEXT_FORMAT)).toString();
    expect(text).toMatch(
      /# HELP ops_request_size_bytes Request sizes\.\n# TYPE ops_request_size_bytes summary\nops_request_size_bytes\{path="\/a",quantile="0\.5"\} (4[89]|5[01])(\.\d+)?\nops_request_size_bytes\{path="\/a",quantile="0\.9"\} (8[89]|9[01])(\.\d+)?\nops_request_size_bytes_sum\{path="\/a"\} 5050\nops_request_size_bytes_count\{path="\/a"\} 100\n/,
    );
    // The window (1 ms) has passed: no quantile, but the totals stay.
    expect(text).toContain(
      'empty_window_seconds{quantile="0.5"} NaN\nempty_window_seconds{quantile="0.9"} NaN\nempty_window_seconds{quantile="0.99"} NaN\nempty_window_seconds_sum 3\nempty_window_seconds_count 1\n',
    );
  });

  it('renders OpenMetrics with canonical quantile labels', async () => {
    const { provider } = await summaryProvider();
    const text = (await renderBody(provider, OPENMETRICS)).toString();
    expect(text).toContain('# TYPE ops_request_size_bytes summary\n');
    expect(text).toContain('ops_request_size_bytes_count{path="/a"} 100\n');
    expect(text).toMatch(/ops_request_size_bytes\{path="\/a",quantile="0\.5"\} /);
  });

  it('encodes a SUMMARY family in delimited protobuf: count, sum and each quantile', async () => {
    const { provider } = await summaryProvider();
    const body = await textToDelimitedProtobuf((await renderBody(provider, TEXT_FORMAT)).toString());
    // The family's bytes: name, then type 2 (SUMMARY), then a Metric whose field 4 is the Summary.
    const nameAt = body.indexOf('ops_request_size_bytes');
    expect(nameAt).toBeGreaterThan(0);
    const typeTag = body.indexOf(Buffer.from([0x18, 0x02]), nameAt);
    expect(typeTag).toBeGreaterThan(nameAt);
    // sample_count (field 1, varint 100) then sample_sum (field 2, double 5050).
    const sum = Buffer.alloc(9);
    sum[0] = 0x11;
    sum.writeDoubleLE(5050, 1);
    const countAndSum = Buffer.concat([Buffer.from([0x08, 100]), sum]);
    expect(body.indexOf(countAndSum, typeTag)).toBeGreaterThan(typeTag);
    // A Quantile message: quantile 0.5 (field 1, double).
    const quantile = Buffer.alloc(9);
    quantile[0] = 0x09;
    quantile.writeDoubleLE(0.5, 1);
    expect(body.indexOf(quantile, typeTag)).toBeGreaterThan(typeTag);
  });

  it('removes a series, and a later observation starts it afresh', async () => {
    const { provider, summary } = await summaryProvider();
    expect(summary.with('path', '/a').remove()).toBe(true);
    expect(await provider.exposition()).not.toContain('ops_request_size_bytes');
    summary.with('path', '/a').observe(7);
    expect(await provider.exposition()).toContain('ops_request_size_bytes_count{path="/a"} 1\n');
  });

  it('gives the cluster its samples: per-worker quantiles, summed totals', async () => {
    const one = await summaryProvider();
    const two = await summaryProvider();
    const snapshot = await one.provider.seriesSnapshot();
    const family = snapshot.families.find((f) => f.name === 'ops_request_size_bytes')!;
    expect(family.type).toBe('summary');
    expect(family.samples.map(([suffix, labels]) => [suffix, ...labels])).toEqual([
      ['', 'path', '/a', 'quantile', '0.5'],
      ['', 'path', '/a', 'quantile', '0.9'],
      ['_sum', 'path', '/a'],
      ['_count', 'path', '/a'],
    ]);
    const keyed = async (p: typeof one.provider) => {
      const s = await p.seriesSnapshot();
      return withValues(keyLayouts(s.families), s.values);
    };
    const merged = await mergeSeries([
      { worker: '1', families: await keyed(one.provider) },
      { worker: '2', families: await keyed(two.provider) },
    ]);
    const text = (await renderKeyedFamilies(merged.families)).toString();
    expect(text).toContain('ops_request_size_bytes_sum{path="/a"} 10100\n');
    expect(text).toContain('ops_request_size_bytes_count{path="/a"} 200\n');
    expect(text).toMatch(/ops_request_size_bytes\{path="\/a",quantile="0\.5",worker="1"\} /);
  });

  it('becomes OTLP gauge quantiles and monotonic _sum/_count sums', () => {
    const family = new PrometheusFamily(declare('summary', { name: 'took_seconds', help: 'h', labelNames: ['op'], quantiles: [0.5] }), 10, () => {});
    family.family.root().with('op', 'x').observe(2);
    const shapes = { histogram: DataPointType.HISTOGRAM, gauge: DataPointType.GAUGE, sum: DataPointType.SUM, cumulative: 1 };
    const data = familyMetrics(family, shapes, { start: hrTime(0), end: hrTime(1) });
    expect(data.map((d) => [d.descriptor.name, d.dataPointType])).toEqual([
      ['took_seconds', DataPointType.GAUGE],
      ['took_seconds_sum', DataPointType.SUM],
      ['took_seconds_count', DataPointType.SUM],
    ]);
    const quantile = (data[0] as GaugeMetricData).dataPoints[0]!;
    expect(quantile.attributes).toEqual({ op: 'x', quantile: '0.5' });
    expect(Math.abs(quantile.value - 2)).toBeLessThanOrEqual(2 * RELATIVE_ACCURACY);
    expect((data[1] as SumMetricData).isMonotonic).toBe(true);
    expect((data[2] as SumMetricData).dataPoints[0]!.value).toBe(1);
  });

  it('refuses bad quantiles and windows with a message naming the option', () => {
    const provider = createPrometheusProvider({ runtimeMetrics: false });
    const failure = (options: Record<string, unknown>) => {
      try {
        provider.newSummary({ name: 'bad', help: 'h', ...options });
      } catch (error) {
        return isMetricsError(error) ? `${error.code}: ${error.message}` : String(error);
      }
      return 'no error';
    };
    expect(failure({ quantiles: [0.5, 1.5] })).toBe('INVALID_METRIC_OPTIONS: bad: quantiles must be numbers from 0 to 1, got [0.5, 1.5]');
    expect(failure({ maxAgeSeconds: 0 })).toMatch(/^INVALID_METRIC_OPTIONS: bad: maxAgeSeconds must be/);
    expect(failure({ ageBuckets: 0.5 })).toBe('INVALID_METRIC_OPTIONS: bad: ageBuckets must be an integer from 1 to 60, got 0.5');
    expect(failure({ labelNames: ['quantile'] })).toMatch(/reserved/);
    provider.newSummary({ name: 'twice', help: 'h', quantiles: [0.5] });
    expect(() => provider.newSummary({ name: 'twice', help: 'h', quantiles: [0.9] })).toThrow(/already declared/);
  });
});

describe('Summary with the other providers', () => {
  it('StatsD sends each observation as a timing, as histograms are sent', () => {
    const capture = createMetricsProvider({ provider: 'statsd', capture: true, runtimeMetrics: false });
    const summary = capture.newSummary({ name: 'size', help: 'h', labelNames: ['ch'], statsdFormat: '%{#fqname}.%{ch}' });
    summary.with('ch', 'a').observe(3);
    summary.with('ch', 'a').observe(4);
    expect(capture.drain().timings).toEqual([['size.a', [3, 4]]]);
  });

  it('the disabled provider checks labels and records nothing', () => {
    const disabled = createMetricsProvider();
    const summary = disabled.newSummary({ name: 'size', help: 'h', labelNames: ['ch'] });
    expect(() => summary.with('nope', 'x').observe(1)).toThrow(/invalid label name/);
    summary.with('ch', 'a').observe(1);
  });
});

describe('Summary and promtool', () => {
  it('passes promtool check metrics', async () => {
    const { provider } = await summaryProvider();
    const text = await provider.exposition();
    const result = await promtoolCheckMetrics(text);
    expect(result.output).toBe('');
    expect(result.code).toBe(0);
  });
});

describe('startTimer on histograms and summaries', () => {
  it('observes the seconds since it was started, on the labels of the child it was started on', async () => {
    const provider = createPrometheusProvider({ runtimeMetrics: false });
    const histogram = provider.newHistogram({ name: 'step_seconds', help: 'h', labelNames: ['step'], buckets: [0.001, 10] });
    const summary = provider.newSummary({ name: 'call_seconds', help: 'h', quantiles: [0.5] });
    const stopHistogram = histogram.with('step', 'commit').startTimer();
    const stopSummary = summary.startTimer();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const histogramSeconds = stopHistogram();
    const summarySeconds = stopSummary();
    expect(histogramSeconds).toBeGreaterThanOrEqual(0.015);
    expect(summarySeconds).toBeGreaterThanOrEqual(histogramSeconds);
    const text = await provider.exposition();
    expect(text).toContain(`step_seconds_sum{step="commit"} ${histogramSeconds}`);
    expect(text).toContain('step_seconds_bucket{step="commit",le="0.001"} 0');
    expect(text).toContain(`call_seconds_sum ${summarySeconds}`);
    expect(text).toContain('call_seconds_count 1');
  });
});
