// What histogram and summary series write, as whole bodies in both text formats, with and without
// labels: their sum and count lines, and the prefixes made once per series and kept across scrapes.
import { describe, expect, it } from 'vitest';
import { declare } from './declare.ts';
import { TEXT_FORMAT } from './negotiate.ts';
import { createPrometheusProvider, renderBody } from './prometheus.ts';
import { PrometheusFamily } from './prometheus-family.ts';

const OPENMETRICS = { kind: 'openmetrics', version: '1.0.0' } as const;

function observedProvider() {
  const provider = createPrometheusProvider({ runtimeMetrics: false });
  const histogram = provider.newHistogram({ name: 'took_seconds', help: 'h', labelNames: ['op'], buckets: [1, 10] });
  for (const value of [0.5, 2, 20]) histogram.with('op', 'read').observe(value);
  provider.newHistogram({ name: 'plain_seconds', help: 'h', buckets: [1] }).observe(4);
  const summary = provider.newSummary({ name: 'size_bytes', help: 'h', labelNames: ['op'], quantiles: [0.5] });
  for (const value of [8, 8]) summary.with('op', 'write').observe(value);
  provider.newSummary({ name: 'plain_bytes', help: 'h', quantiles: [0.5] }).observe(3);
  return provider;
}

/** The body without promhttp's own series, a summary's quantile estimates shown as `<q>`. */
async function body(provider: ReturnType<typeof observedProvider>, format: typeof TEXT_FORMAT | typeof OPENMETRICS): Promise<string> {
  const text = (await renderBody(provider, format)).toString();
  return text.replace(/^# (HELP|TYPE) promhttp_\S+ .*\n|^promhttp_\S+ .*\n/gm, '').replace(/(quantile="[^"]+"\}) \S+/g, '$1 <q>');
}

describe('histogram and summary series on /metrics', () => {
  it('write buckets or quantiles, then _sum and _count, with and without labels, in the text format', async () => {
    const provider = observedProvider();
    // Families in name order.
    const expected = [
      '# HELP plain_bytes h',
      '# TYPE plain_bytes summary',
      'plain_bytes{quantile="0.5"} <q>',
      'plain_bytes_sum 3',
      'plain_bytes_count 1',
      '# HELP plain_seconds h',
      '# TYPE plain_seconds histogram',
      'plain_seconds_bucket{le="1"} 0',
      'plain_seconds_bucket{le="+Inf"} 1',
      'plain_seconds_sum 4',
      'plain_seconds_count 1',
      '# HELP size_bytes h',
      '# TYPE size_bytes summary',
      'size_bytes{op="write",quantile="0.5"} <q>',
      'size_bytes_sum{op="write"} 16',
      'size_bytes_count{op="write"} 2',
      '# HELP took_seconds h',
      '# TYPE took_seconds histogram',
      'took_seconds_bucket{op="read",le="1"} 1',
      'took_seconds_bucket{op="read",le="10"} 2',
      'took_seconds_bucket{op="read",le="+Inf"} 3',
      'took_seconds_sum{op="read"} 22.5',
      'took_seconds_count{op="read"} 3',
      '',
    ].join('\n');
    expect(await body(provider, TEXT_FORMAT)).toBe(expected);
    // A second scrape, from the prefixes kept on each series, is the same.
    expect(await body(provider, TEXT_FORMAT)).toBe(expected);
  });

  it('write the same sample lines in OpenMetrics, bounds and quantiles as OpenMetrics prints them', async () => {
    const provider = observedProvider();
    await body(provider, TEXT_FORMAT); // the prefixes are made by a text scrape first
    const om = await body(provider, OPENMETRICS);
    expect(om).toContain(
      'took_seconds_bucket{op="read",le="1.0"} 1\ntook_seconds_bucket{op="read",le="10.0"} 2\ntook_seconds_bucket{op="read",le="+Inf"} 3\ntook_seconds_sum{op="read"} 22.5\ntook_seconds_count{op="read"} 3\n# EOF\n',
    );
    expect(om).toContain('plain_seconds_bucket{le="1.0"} 0\nplain_seconds_bucket{le="+Inf"} 1\nplain_seconds_sum 4\nplain_seconds_count 1\n');
    expect(om).toContain('size_bytes{op="write",quantile="0.5"} <q>\nsize_bytes_sum{op="write"} 16\nsize_bytes_count{op="write"} 2\n');
    expect(om).toContain('plain_bytes{quantile="0.5"} <q>\nplain_bytes_sum 3\nplain_bytes_count 1\n');
  });

  it('estimate a summary quantile near the observations', async () => {
    const text = (await renderBody(observedProvider(), TEXT_FORMAT)).toString();
    expect(Number(/^size_bytes\{op="write",quantile="0\.5"\} (\S+)$/m.exec(text)?.[1])).toBeCloseTo(8, 0);
  });
});

describe('histogram and summary series as sinks', () => {
  it.each([
    ['histogram', declare('histogram', { name: 'h_seconds', help: 'h', buckets: [1] })],
    ['summary', declare('summary', { name: 's_seconds', help: 'h' })],
  ])('a %s series counts observations and ignores add and set', (_kind, declaration) => {
    const family = new PrometheusFamily(declaration, 10, () => {});
    const series = family.createSeries([]) as unknown as { sum: number; count: number; add(n: number): void; set(n: number): void; observe(n: number): void };
    series.observe(2);
    series.add(5);
    series.set(7);
    series.observe(3);
    expect([series.sum, series.count]).toEqual([5, 2]);
  });
});
