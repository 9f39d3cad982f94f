import { Counter as PromCounter, Histogram as PromHistogram, Registry, Summary as PromSummary } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createPrometheusProvider } from './prometheus.ts';
import { keyLayouts, mergeSeries, renderKeyedFamilies, withValues, type KeyedFamily } from './series-merge.ts';
import type { SeriesSnapshot } from './series-snapshot.ts';

const keyed = (snapshot: SeriesSnapshot): KeyedFamily[] => withValues(keyLayouts(snapshot.families), snapshot.values);
const text = async (families: readonly KeyedFamily[]): Promise<string> => (await renderKeyedFamilies(families)).toString();

/** A provider with a labelled counter, a gauge, a histogram, and a prom-client registry holding a histogram and a summary. */
async function instrumented(work: number) {
  const registry = new Registry();
  new PromHistogram({ name: 'app_took_seconds', help: 'from prom-client', buckets: [0.5], registers: [registry] }).observe(work / 10);
  new PromSummary({ name: 'app_size_bytes', help: 'a summary', percentiles: [0.5], registers: [registry] }).observe(work);
  new PromCounter({ name: 'app_hits_total', help: 'with "quotes" and a \\ backslash', labelNames: ['path'], registers: [registry] }).inc({ path: 'a"b\nc' }, work);
  const provider = createPrometheusProvider({ runtimeMetrics: false, registry });
  provider
    .newCounter({ name: 'work_total', help: 'Work.', labelNames: ['kind'] })
    .with('kind', 'x')
    .add(work);
  provider.newGauge({ name: 'queue', help: 'Queue.' }).set(work);
  provider.newHistogram({ name: 'took_seconds', help: 'Took.', buckets: [1, 2] }).observe(work);
  return provider;
}

describe('series snapshots and their merge', () => {
  it('render to the same text as the provider’s own exposition', async () => {
    const provider = await instrumented(1.5);
    expect(await text(keyed(await provider.seriesSnapshot()))).toBe(await provider.exposition());
  });

  it('add counters, histograms and summary totals, combine gauges by rule, and keep quantiles per worker', async () => {
    const [one, two] = [await (await instrumented(1)).seriesSnapshot(), await (await instrumented(3)).seriesSnapshot()];
    const merged = await mergeSeries(
      [
        { worker: '1', families: keyed(one) },
        { worker: '2', families: keyed(two) },
      ],
      { gaugeRules: { queue: 'max' } },
    );
    const page = await text(merged.families);
    expect(page).toContain('\nwork_total{kind="x"} 4\n');
    expect(page).toContain('\nqueue 3\n');
    expect(page).toContain('\ntook_seconds_bucket{le="1"} 1\ntook_seconds_bucket{le="2"} 1\ntook_seconds_bucket{le="+Inf"} 2\ntook_seconds_sum 4\ntook_seconds_count 2\n');
    expect(page).toContain('\napp_took_seconds_bucket{le="0.5"} 2\n');
    expect(page).toContain('\napp_size_bytes{quantile="0.5",worker="1"} 1\napp_size_bytes_sum 4\napp_size_bytes_count 2\napp_size_bytes{quantile="0.5",worker="2"} 3\n');
    expect(page).toContain('\napp_hits_total{path="a\\"b\\nc"} 4\n');
    expect(merged.conflicting).toBe(0);
  });

  it('hands out the same layout while a family’s series are unchanged, and a new one once a series is removed or added', async () => {
    const provider = createPrometheusProvider({ runtimeMetrics: false });
    const counter = provider.newCounter({ name: 'c_total', help: 'C.', labelNames: ['k'] });
    counter.with('k', 'a').add(1);
    const family = async () => (await provider.seriesSnapshot()).families.find((f) => f.name === 'c_total')!;
    const first = await family();
    counter.with('k', 'a').add(1);
    expect((await family()).samples).toBe(first.samples);
    counter.with('k', 'a').remove();
    counter.with('k', 'b').add(2);
    const swapped = await provider.seriesSnapshot();
    expect(swapped.families.find((f) => f.name === 'c_total')!.samples).toEqual([['', ['k', 'b']]]);
    expect(await text(keyed(swapped))).toContain('\nc_total{k="b"} 2\n');
  });

  it('leaves out a family declared with another type than the first, and counts its samples', async () => {
    const counter: SeriesSnapshot = { families: [{ name: 'x', help: '', type: 'counter', samples: [['', []]] }], values: [1] };
    const gauge: SeriesSnapshot = {
      families: [
        {
          name: 'x',
          help: '',
          type: 'gauge',
          samples: [
            ['', ['a', 'b']],
            ['', []],
          ],
        },
      ],
      values: [5, 6],
    };
    const merged = await mergeSeries([
      { worker: '1', families: keyed(counter) },
      { worker: '2', families: keyed(gauge) },
    ]);
    expect(await text(merged.families)).toBe('# TYPE x counter\nx 1\n');
    expect(merged.conflicting).toBe(2);
  });
});
