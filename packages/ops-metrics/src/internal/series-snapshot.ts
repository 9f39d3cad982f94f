// A process's series as data rather than exposition text: what a cluster worker hands its
// primary, and what the primary merges and renders once. The layout (families, sample names,
// label pairs) is apart from the values, so a receiver can keep a layout that did not change and
// take only the numbers.
import { formatBound } from './exposition.ts';
import type { PrometheusFamily } from './prometheus-family.ts';
import type { AppMetric } from './types.ts';

/** The exposition format's metric types. */
export type SeriesType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

/**
 * One sample's place in its family: its name after the family's (`''`, or `_bucket`, `_sum`,
 * `_count`) and its label pairs, flat (`[name, value, name, value, …]`; `le` and `quantile`
 * included, as text).
 */
export type SeriesSample = readonly [suffix: string, labels: readonly string[]];

export interface SeriesFamily {
  readonly name: string;
  readonly help: string;
  readonly type: SeriesType;
  readonly samples: readonly SeriesSample[];
}

/** A process's series: the families' samples in order, and one value per sample in the same order. */
export interface SeriesSnapshot {
  readonly families: readonly SeriesFamily[];
  readonly values: readonly number[];
}

const SERIES_TYPES: ReadonlySet<string> = new Set<SeriesType>(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

/** Whether `type` is one of the exposition format's metric types. */
export function isSeriesType(type: unknown): type is SeriesType {
  return typeof type === 'string' && SERIES_TYPES.has(type);
}

/** `le` texts per histogram family, made once: every series of the family uses the same. */
const boundTexts = new WeakMap<PrometheusFamily, readonly string[]>();

function boundsOf(family: PrometheusFamily): readonly string[] {
  let texts = boundTexts.get(family);
  if (texts === undefined) {
    texts = [...family.declaration.buckets.map((bound) => formatBound(bound, false)), '+Inf'];
    boundTexts.set(family, texts);
  }
  return texts;
}

function pairs(names: readonly string[], values: readonly string[]): string[] {
  const flat = new Array<string>(names.length * 2);
  for (let i = 0; i < names.length; i++) {
    flat[2 * i] = names[i]!;
    flat[2 * i + 1] = values[i] ?? '';
  }
  return flat;
}

/**
 * A family's samples as last snapshotted, with the state of its series set then: a series is
 * only ever added (the size grows) or removed (the family's epoch moves), so while both match,
 * the same samples (the same array) describe it, and a receiver comparing layouts finds them
 * equal at once.
 */
interface CachedSamples {
  readonly size: number;
  readonly epoch: number;
  readonly samples: readonly SeriesSample[];
}

const cachedSamples = new WeakMap<PrometheusFamily, CachedSamples>();

function samplesOf(family: PrometheusFamily): readonly SeriesSample[] {
  const cached = cachedSamples.get(family);
  if (cached !== undefined && cached.size === family.series.size && cached.epoch === family.family.epoch) return cached.samples;
  const samples: SeriesSample[] = [];
  const names = family.declaration.labelNames;
  const bounds = family.declaration.kind === 'histogram' ? boundsOf(family) : undefined;
  const quantiles = family.declaration.summary?.quantiles.map((quantile) => formatBound(quantile, false));
  for (const series of family.series) {
    const labels = pairs(names, series.labelValues);
    if (quantiles !== undefined) {
      for (const quantile of quantiles) samples.push(['', [...labels, 'quantile', quantile]]);
      samples.push(['_sum', labels], ['_count', labels]);
    } else if (bounds === undefined) samples.push(['', labels]);
    else {
      for (const bound of bounds) samples.push(['_bucket', [...labels, 'le', bound]]);
      samples.push(['_sum', labels], ['_count', labels]);
    }
  }
  cachedSamples.set(family, { size: family.series.size, epoch: family.family.epoch, samples });
  return samples;
}

function appendOwn(family: PrometheusFamily, families: SeriesFamily[], values: number[]): void {
  if (family.series.size === 0) return;
  const samples = samplesOf(family);
  for (const series of family.series) {
    if ('value' in series) {
      values.push(series.value);
      continue;
    }
    if ('window' in series) {
      values.push(...series.window.quantiles(family.declaration.summary?.quantiles ?? []), series.sum, series.count);
      continue;
    }
    let cumulative = 0;
    for (let i = 0; i < series.counts.length; i++) values.push((cumulative += series.counts[i]!));
    values.push(series.count, series.sum, series.count);
  }
  families.push({ name: family.name, help: family.help, type: family.type as SeriesType, samples });
}

function appendApp(metric: AppMetric, families: SeriesFamily[], values: number[]): void {
  if (metric.values.length === 0) return;
  const type = String(metric.type);
  const samples: SeriesSample[] = [];
  for (const sample of metric.values) {
    const sampleName = sample.metricName ?? metric.name;
    // A sample named outside its family has no place in the format; the receiver would drop it.
    if (!sampleName.startsWith(metric.name)) continue;
    const labels: string[] = [];
    for (const [key, raw] of Object.entries(sample.labels ?? {})) {
      if (raw === undefined) continue;
      labels.push(key, (key === 'le' || key === 'quantile') && typeof raw === 'number' ? formatBound(raw, false) : String(raw));
    }
    samples.push([sampleName.slice(metric.name.length), labels]);
    values.push(sample.value);
  }
  families.push({ name: metric.name, help: metric.help, type: isSeriesType(type) ? type : 'untyped', samples });
}

/**
 * The snapshot of ops-metrics' own families and an application registry's metrics (both sorted
 * by name), merged in name order as the exposition renders them.
 */
export function snapshotSeries(own: readonly PrometheusFamily[], app: readonly AppMetric[]): SeriesSnapshot {
  const families: SeriesFamily[] = [];
  const values: number[] = [];
  let j = 0;
  for (const family of own) {
    while (j < app.length && app[j]!.name < family.name) appendApp(app[j++]!, families, values);
    appendOwn(family, families, values);
  }
  while (j < app.length) appendApp(app[j++]!, families, values);
  return { families, values };
}
