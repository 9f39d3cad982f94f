import { Counter as PromCounter, Histogram as PromHistogram, Registry, Summary as PromSummary } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createPrometheusProvider } from './prometheus.ts';
import { createSeriesMerger, keyLayouts, mergeSeries, renderKeyedFamilies, withValues, type KeyedFamily } from './series-merge.ts';
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

  it('keep a family’s keys between merges (the same array), copy them when a key is added, and drop keys no input has any more', async () => {
    const counter = (labels: string[], values: number[]): KeyedFamily[] =>
      keyed({ families: [{ name: 'c_total', help: '', type: 'counter', samples: labels.map((label) => ['', ['k', label]] as const) }], values });
    const merger = createSeriesMerger();
    const first = await merger.merge([
      { worker: '1', families: counter(['a', 'b'], [1, 2]) },
      { worker: '2', families: counter(['b', 'c'], [10, 20]) },
    ]);
    const keys = first.families[0]!.keys;
    expect(keys).toEqual(['c_total{k="a"}', 'c_total{k="b"}', 'c_total{k="c"}']);
    expect(Array.from(first.families[0]!.values)).toEqual([1, 12, 20]);
    const second = await merger.merge([
      { worker: '1', families: counter(['a', 'b'], [3, 4]) },
      { worker: '2', families: counter(['b', 'c'], [30, 40]) },
    ]);
    expect(second.families[0]!.keys).toBe(keys);
    expect(Array.from(second.families[0]!.values)).toEqual([3, 34, 40]);
    // Worker 2 restarted with another series: the new key is added to a copy, the gone one leaves.
    const third = await merger.merge([
      { worker: '1', families: counter(['a', 'b'], [5, 6]) },
      { worker: '2', families: counter(['d'], [7]) },
    ]);
    expect(third.families[0]!.keys).toEqual(['c_total{k="a"}', 'c_total{k="b"}', 'c_total{k="d"}']);
    expect(Array.from(third.families[0]!.values)).toEqual([5, 6, 7]);
    expect(keys).toEqual(['c_total{k="a"}', 'c_total{k="b"}', 'c_total{k="c"}']);
    // Rendered twice: the second time from the keys' bytes kept since the first.
    expect(await text(third.families)).toBe(await text(third.families));
    expect(await text(third.families)).toBe('# TYPE c_total counter\nc_total{k="a"} 5\nc_total{k="b"} 6\nc_total{k="d"} 7\n');
    // A family that changes type starts afresh.
    const fourth = await merger.merge([{ worker: '1', families: keyed({ families: [{ name: 'c_total', help: '', type: 'gauge', samples: [['', []]] }], values: [9] }) }]);
    expect(await text(fourth.families)).toBe('# TYPE c_total gauge\nc_total 9\n');
  });

  it('render kept key bytes as the keys’ text, whatever the characters', async () => {
    const family: KeyedFamily = { name: 'g', help: 'é', type: 'gauge', keys: ['g{a="ü\\n"}', 'g{a="😀"}', 'g'], values: [1.5, -0, NaN], start: 0 };
    const once = await text([family]);
    expect(once).toBe('# HELP g é\n# TYPE g gauge\ng{a="ü\\n"} 1.5\ng{a="😀"} 0\ng NaN\n');
    expect(await text([family])).toBe(once);
    expect(await text([family])).toBe(once);
  });

  it('merge families that gain keys past their first capacity, and keep -0 and NaN', async () => {
    const merger = createSeriesMerger({ gaugeRules: { g: 'max' } });
    const gauge = (keys: string[], values: number[]): KeyedFamily[] => [{ name: 'g', help: '', type: 'gauge', keys, values, start: 0 }];
    const many = Array.from({ length: 40 }, (_, i) => `g{i="${i}"}`);
    const first = await merger.merge([
      {
        worker: '1',
        families: gauge(
          many.slice(0, 30),
          many.slice(0, 30).map((_, i) => i),
        ),
      },
      {
        worker: '2',
        families: gauge(
          many.slice(10),
          many.slice(10).map(() => 25),
        ),
      },
    ]);
    expect(first.families[0]!.keys).toEqual(many);
    expect(Array.from(first.families[0]!.values)).toEqual(many.map((_, i) => (i < 10 ? i : Math.max(i < 30 ? i : -Infinity, 25))));
    const second = await merger.merge([{ worker: '1', families: gauge(['g{i="0"}', 'g{i="1"}'], [-0, NaN]) }]);
    expect(second.families[0]!.keys).toEqual(['g{i="0"}', 'g{i="1"}']);
    expect(Object.is(second.families[0]!.values[0], -0)).toBe(true);
    expect(second.families[0]!.values[1]).toBeNaN();
  });

  it('render a family’s HELP and TYPE lines as they are now, after a change of either, and pages of any size whole', async () => {
    const family = (help: string, type: 'gauge' | 'counter'): KeyedFamily => ({ name: 'h_total', help, type, keys: ['h_total'], values: [1], start: 0 });
    expect(await text([family('one', 'gauge')])).toBe('# HELP h_total one\n# TYPE h_total gauge\nh_total 1\n');
    expect(await text([family('two\\', 'gauge')])).toBe('# HELP h_total two\\\\\n# TYPE h_total gauge\nh_total 1\n');
    expect(await text([family('', 'counter')])).toBe('# TYPE h_total counter\nh_total 1\n');
    // Past the scratch buffer kept between renders (1 MiB), then small again, then large again.
    const keys = Array.from({ length: 60_000 }, (_, i) => `big{i="${i}"}`);
    const big: KeyedFamily = { name: 'big', help: '', type: 'gauge', keys, values: keys.map((_, i) => i), start: 0 };
    const page = await text([big]);
    expect(page.length).toBeGreaterThan(1024 * 1024);
    expect(page.endsWith('big{i="59999"} 59999\n')).toBe(true);
    expect(await text([family('', 'counter')])).toBe('# TYPE h_total counter\nh_total 1\n');
    expect(await text([big])).toBe(page);
  });
});
