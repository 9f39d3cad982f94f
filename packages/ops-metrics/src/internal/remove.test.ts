import { thrownCode, udpLinesOnLoopback } from '@fabric-ops/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { isMetricsError, type MetricsErrorCode } from './errors.ts';
import { TEXT_FORMAT } from './negotiate.ts';
import { createMetricsProvider } from './provider.ts';
import { createPrometheusProvider, renderBody } from './prometheus.ts';
import { createStatsdCaptureProvider, createStatsdProvider } from './statsd.ts';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const codeOf = (action: () => unknown): MetricsErrorCode | undefined => thrownCode(action, isMetricsError);

async function exposition(provider: ReturnType<typeof createPrometheusProvider>): Promise<string> {
  return (await renderBody(provider, TEXT_FORMAT)).toString();
}

describe('remove(): Prometheus', () => {
  it('takes one series out of the exposition and leaves the others', async () => {
    const provider = createPrometheusProvider({ runtimeMetrics: false });
    const status = provider.newGauge({ namespace: 'health', name: 'check_status', help: 'h', labelNames: ['component'] });
    status.with('component', 'worker-1').set(0);
    status.with('component', 'worker-2').set(1);
    expect(status.with('component', 'worker-1').remove()).toBe(true);
    const text = await exposition(provider);
    expect(text).not.toContain('worker-1');
    expect(text).toContain('health_check_status{component="worker-2"} 1\n');
  });

  it('leaves a family with no series left out entirely, HELP and TYPE included', async () => {
    const provider = createPrometheusProvider({ runtimeMetrics: false });
    const took = provider.newHistogram({ name: 'took_seconds', help: 'h', labelNames: ['c'], buckets: [0.1, 1] });
    took.with('c', 'a').observe(0.5);
    expect(await exposition(provider)).toContain('took_seconds_bucket{c="a",le="1"} 1\n');
    expect(took.with('c', 'a').remove()).toBe(true);
    expect(await exposition(provider)).not.toContain('took_seconds');
  });

  it('starts a series again from zero when it is written after its removal, through a kept child too', async () => {
    const provider = createPrometheusProvider({ runtimeMetrics: false });
    const counter = provider.newCounter({ name: 'done_total', help: 'h', labelNames: ['c'] });
    const kept = counter.with('c', 'a');
    kept.add(5);
    expect(kept.remove()).toBe(true);
    kept.add(2);
    expect(await exposition(provider)).toContain('done_total{c="a"} 2\n');
    // A child made before the removal (and written before it) writes to the new series, not the removed one.
    const other = counter.with('c', 'b');
    other.add(1);
    expect(counter.with('c', 'b').remove()).toBe(true);
    other.add(3);
    const text = await exposition(provider);
    expect(text).toContain('done_total{c="b"} 3\n');
    expect(text).toContain('done_total{c="a"} 2\n');
  });

  it('does nothing for a series that does not exist, or was already removed', async () => {
    const provider = createPrometheusProvider({ runtimeMetrics: false });
    const gauge = provider.newGauge({ name: 'g', help: 'h', labelNames: ['c'] });
    gauge.with('c', 'a').set(1);
    const before = await exposition(provider);
    expect(gauge.with('c', 'nobody').remove()).toBe(false);
    expect(await exposition(provider)).toBe(before);
    expect(gauge.with('c', 'a').remove()).toBe(true);
    expect(gauge.with('c', 'a').remove()).toBe(false);
  });

  it('needs every label, as recording does, and refuses undeclared ones', () => {
    const provider = createPrometheusProvider({ runtimeMetrics: false });
    const gauge = provider.newGauge({ name: 'g2', help: 'h', labelNames: ['a', 'b'] });
    expect(codeOf(() => gauge.with('a', '1').remove())).toBe('MISSING_LABEL_VALUE');
    expect(codeOf(() => gauge.with('z', '1').remove())).toBe('INVALID_LABEL_NAME');
  });

  it('makes room under maxSeriesPerMetric: a removed series no longer counts, and a refused child gets in', async () => {
    const warnings: string[] = [];
    const provider = createPrometheusProvider({ runtimeMetrics: false, maxSeriesPerMetric: 2, logger: { warn: (m) => warnings.push(m) } });
    const gauge = provider.newGauge({ name: 'capped', help: 'h', labelNames: ['i'] });
    gauge.with('i', '1').set(1);
    gauge.with('i', '2').set(2);
    const third = gauge.with('i', '3');
    third.set(3);
    expect(await exposition(provider)).not.toContain('capped{i="3"}');
    expect(gauge.with('i', '1').remove()).toBe(true);
    third.set(3);
    const text = await exposition(provider);
    expect(text).toContain('capped{i="3"} 3\n');
    expect(text).not.toContain('capped{i="1"}');
    expect(warnings.filter((w) => w.startsWith('metric capped '))).toHaveLength(1);
  });

  it('keeps a family bounded however many series come and go', async () => {
    const provider = createPrometheusProvider({ runtimeMetrics: false, maxSeriesPerMetric: 100 });
    const gauge = provider.newGauge({ name: 'churn', help: 'h', labelNames: ['id'] });
    for (let id = 0; id < 10_000; id++) {
      gauge.with('id', String(id)).set(id);
      if (id >= 3) expect(gauge.with('id', String(id - 3)).remove()).toBe(true);
    }
    const lines = (await exposition(provider)).split('\n').filter((line) => line.startsWith('churn{'));
    expect(lines).toEqual(['churn{id="9997"} 9997', 'churn{id="9998"} 9998', 'churn{id="9999"} 9999']);
  });
});

describe('remove(): StatsD', () => {
  it('drops what a removed series gathered this interval, for every kind', () => {
    const capture = createStatsdCaptureProvider({ capture: true, runtimeMetrics: false });
    const format = '%{#fqname}.%{c}';
    const counter = capture.newCounter({ name: 'n', help: 'h', labelNames: ['c'], statsdFormat: format });
    const gauge = capture.newGauge({ name: 'g', help: 'h', labelNames: ['c'], statsdFormat: format });
    const histogram = capture.newHistogram({ name: 't', help: 'h', labelNames: ['c'], statsdFormat: format });
    for (const c of ['a', 'b']) {
      counter.with('c', c).add(1);
      gauge.with('c', c).set(2);
      histogram.with('c', c).observe(3);
    }
    expect(counter.with('c', 'a').remove()).toBe(true);
    expect(gauge.with('c', 'a').remove()).toBe(true);
    expect(histogram.with('c', 'a').remove()).toBe(true);
    expect(capture.drain()).toEqual({ counters: [['n.b', 1]], gauges: [['g.b', 2, 'g']], timings: [['t.b', [3]]] });
  });

  it('sends a series again once it is written after its removal', () => {
    const capture = createStatsdCaptureProvider({ capture: true, runtimeMetrics: false });
    const gauge = capture.newGauge({ name: 'g', help: 'h', labelNames: ['c'], statsdFormat: '%{#fqname}.%{c}' });
    const kept = gauge.with('c', 'a');
    kept.set(1);
    expect(kept.remove()).toBe(true);
    kept.add(4);
    expect(capture.drain().gauges).toEqual([['g.a', 4, 'g']]);
  });

  it('keeps a bucket other series still write to (a template that leaves a label out)', () => {
    const capture = createStatsdCaptureProvider({ capture: true, runtimeMetrics: false });
    const counter = capture.newCounter({ name: 'shared', help: 'h', labelNames: ['c'] });
    counter.with('c', 'a').add(1);
    counter.with('c', 'b').add(2);
    expect(counter.with('c', 'a').remove()).toBe(true);
    expect(capture.drain().counters).toEqual([['shared', 3]]);
    counter.with('c', 'b').add(5);
    expect(counter.with('c', 'b').remove()).toBe(true);
    expect(capture.drain().counters).toEqual([]);
  });

  it('does nothing for an unknown series', () => {
    const capture = createStatsdCaptureProvider({ capture: true, runtimeMetrics: false });
    const gauge = capture.newGauge({ name: 'g', help: 'h', labelNames: ['c'], statsdFormat: '%{#fqname}.%{c}' });
    gauge.with('c', 'a').set(1);
    expect(gauge.with('c', 'b').remove()).toBe(false);
    expect(capture.drain().gauges).toEqual([['g.a', 1, 'g']]);
  });

  it('leaves a removed series out of what is pushed to a real UDP daemon', async () => {
    const { port, lines } = await udpLinesOnLoopback((cleanup) => void cleanups.push(cleanup));
    // A long interval: the test flushes by hand.
    const provider = createStatsdProvider({ network: 'udp', host: '127.0.0.1', port, writeIntervalMs: 3_600_000, prefix: 'p' }, { runtimeMetrics: false });
    await provider.start();
    cleanups.push(() => provider.stop());
    const status = provider.newGauge({ namespace: 'health', name: 'check_status', help: 'h', labelNames: ['component'], statsdFormat: '%{#fqname}.%{component}' });
    status.with('component', 'worker-1').set(0);
    status.with('component', 'worker-2').set(1);
    expect(status.with('component', 'worker-1').remove()).toBe(true);
    provider.flush();
    const deadline = Date.now() + 15_000;
    while (!lines.includes('p.health.check_status.worker-2:1.000000|g')) {
      if (Date.now() > deadline) throw new Error(`worker-2's line never arrived; got ${JSON.stringify(lines)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(lines.filter((line) => line.includes('worker-1'))).toEqual([]);
  });
});

describe('remove(): disabled', () => {
  it('removes nothing and checks labels as the other providers do', () => {
    const provider = createMetricsProvider({ provider: 'disabled' });
    const gauge = provider.newGauge({ name: 'g', help: 'h', labelNames: ['c'] });
    gauge.with('c', 'a').set(1);
    expect(gauge.with('c', 'a').remove()).toBe(false);
    expect(codeOf(() => gauge.remove())).toBe('MISSING_LABEL_VALUE');
  });
});
