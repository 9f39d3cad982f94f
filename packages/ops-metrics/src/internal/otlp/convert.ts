import type { Attributes, HrTime, ValueType } from '@opentelemetry/api';
import type { DataPoint, Histogram, MetricData } from '@opentelemetry/sdk-metrics';
import { formatBound } from '../exposition.ts';
import type { PrometheusFamily, Series, SummarySeries } from '../prometheus-family.ts';
import type { AppMetric } from '../types.ts';

/**
 * The enum values of the loaded `@opentelemetry/sdk-metrics` (`DataPointType`,
 * `AggregationTemporality`), handed in so this module needs the package only for its types.
 */
export interface OtlpShapes {
  readonly histogram: number;
  readonly gauge: number;
  readonly sum: number;
  readonly cumulative: number;
}

/** The two ends of every data point: the provider's creation, and this collection. */
export interface OtlpTimes {
  readonly start: HrTime;
  readonly end: HrTime;
}

// `ValueType.DOUBLE` of @opentelemetry/api: every value ops-metrics keeps is a double.
const DOUBLE = 1 as ValueType;

export function hrTime(epochMs: number): HrTime {
  const seconds = Math.floor(epochMs / 1000);
  return [seconds, Math.round((epochMs - seconds * 1000) * 1e6)];
}

function attributesOf(names: readonly string[], values: readonly string[]): Attributes {
  const attributes: Attributes = {};
  for (let i = 0; i < names.length; i++) attributes[names[i]!] = values[i] ?? '';
  return attributes;
}

function isHistogramSeries(series: Series): series is Extract<Series, { counts: Float64Array }> {
  return 'counts' in series;
}

function isSummarySeries(series: Series): series is SummarySeries {
  return 'window' in series;
}

/**
 * A summary family as the three metrics a Prometheus receiver rebuilds it from: the quantiles as a
 * gauge with a `quantile` attribute (under the family's name), `_sum` and `_count` as cumulative
 * monotonic sums. OTLP's own Summary point is not used: `@opentelemetry/sdk-metrics` has no
 * summary data point type, so its exporter cannot send one.
 */
function summaryData(family: PrometheusFamily, shapes: OtlpShapes, times: OtlpTimes): MetricData[] {
  const names = family.declaration.labelNames;
  const quantiles = family.declaration.summary?.quantiles ?? [];
  const quantilePoints: DataPoint<number>[] = [];
  const sums: DataPoint<number>[] = [];
  const counts: DataPoint<number>[] = [];
  for (const series of family.series) {
    if (!isSummarySeries(series)) continue;
    const attributes = attributesOf(names, series.labelValues);
    const estimates = series.window.quantiles(quantiles);
    for (let i = 0; i < quantiles.length; i++) {
      quantilePoints.push({ startTime: times.start, endTime: times.end, attributes: { ...attributes, quantile: formatBound(quantiles[i]!, false) }, value: estimates[i]! });
    }
    sums.push({ startTime: times.start, endTime: times.end, attributes, value: series.sum });
    counts.push({ startTime: times.start, endTime: times.end, attributes, value: series.count });
  }
  const descriptor = (name: string) => ({ name, description: family.help, unit: '', valueType: DOUBLE });
  const data: MetricData[] = [];
  if (quantilePoints.length > 0) {
    data.push({ descriptor: descriptor(family.name), aggregationTemporality: shapes.cumulative, dataPointType: shapes.gauge, dataPoints: quantilePoints } as MetricData);
  }
  for (const [suffix, dataPoints] of [
    ['_sum', sums],
    ['_count', counts],
  ] as const) {
    data.push({ descriptor: descriptor(family.name + suffix), aggregationTemporality: shapes.cumulative, dataPointType: shapes.sum, isMonotonic: true, dataPoints } as MetricData);
  }
  return data;
}

/** Every OTLP metric one family of ops-metrics' own storage gives: one, or a summary's three. */
export function familyMetrics(family: PrometheusFamily, shapes: OtlpShapes, times: OtlpTimes): MetricData[] {
  if (family.series.size === 0) return [];
  if (family.declaration.kind === 'summary') return summaryData(family, shapes, times);
  const data = familyData(family, shapes, times);
  return data === undefined ? [] : [data];
}

/**
 * One family of ops-metrics' own storage as OTLP data: a counter is a cumulative monotonic sum, a
 * gauge a gauge, a histogram an explicit-bucket histogram with the declared bounds (per-bucket
 * counts, the overflow bucket last, as OTLP wants them). The name is the one `/metrics` serves.
 * Undefined for a family with no series (`/metrics` leaves those out too).
 */
export function familyData(family: PrometheusFamily, shapes: OtlpShapes, times: OtlpTimes): MetricData | undefined {
  if (family.series.size === 0) return undefined;
  const descriptor = { name: family.name, description: family.help, unit: '', valueType: DOUBLE };
  const names = family.declaration.labelNames;
  if (family.declaration.kind === 'histogram') {
    const boundaries = [...family.declaration.buckets];
    const dataPoints: DataPoint<Histogram>[] = [];
    for (const series of family.series) {
      if (!isHistogramSeries(series)) continue;
      const counts = Array.from(series.counts);
      let inBounds = 0;
      for (const count of counts) inBounds += count;
      counts.push(series.count - inBounds);
      dataPoints.push({
        startTime: times.start,
        endTime: times.end,
        attributes: attributesOf(names, series.labelValues),
        value: { buckets: { boundaries, counts }, sum: series.sum, count: series.count },
      });
    }
    return { descriptor, aggregationTemporality: shapes.cumulative, dataPointType: shapes.histogram, dataPoints } as MetricData;
  }
  const dataPoints: DataPoint<number>[] = [];
  for (const series of family.series) {
    if (isHistogramSeries(series) || isSummarySeries(series)) continue;
    dataPoints.push({ startTime: times.start, endTime: times.end, attributes: attributesOf(names, series.labelValues), value: series.value });
  }
  if (family.declaration.kind === 'counter') {
    return { descriptor, aggregationTemporality: shapes.cumulative, dataPointType: shapes.sum, isMonotonic: true, dataPoints } as MetricData;
  }
  return { descriptor, aggregationTemporality: shapes.cumulative, dataPointType: shapes.gauge, dataPoints } as MetricData;
}

/**
 * A metric of the application's prom-client registry, one OTLP metric per sample name so that a
 * Prometheus receiver holds exactly the series `/metrics` serves: counters and the `_bucket`,
 * `_sum` and `_count` samples of histograms and summaries as cumulative monotonic sums, gauges and
 * summary quantiles as gauges. (prom-client's JSON gives cumulative bucket counts and OTLP from
 * JavaScript has no summary type, so these are not rebuilt into OTLP histograms.)
 */
export function appMetricData(metric: AppMetric, shapes: OtlpShapes, times: OtlpTimes): MetricData[] {
  const type = String(metric.type);
  const bySample = new Map<string, DataPoint<number>[]>();
  for (const sample of metric.values) {
    const name = sample.metricName ?? metric.name;
    const attributes: Attributes = {};
    for (const [key, raw] of Object.entries(sample.labels ?? {})) {
      if (raw !== undefined) attributes[key] = raw === Infinity ? '+Inf' : String(raw);
    }
    let points = bySample.get(name);
    if (points === undefined) bySample.set(name, (points = []));
    points.push({ startTime: times.start, endTime: times.end, attributes, value: sample.value });
  }
  const data: MetricData[] = [];
  for (const [name, dataPoints] of bySample) {
    const descriptor = { name, description: metric.help, unit: '', valueType: DOUBLE };
    const monotonic = type === 'counter' || ((type === 'histogram' || type === 'summary') && name !== metric.name);
    data.push(
      monotonic
        ? ({ descriptor, aggregationTemporality: shapes.cumulative, dataPointType: shapes.sum, isMonotonic: true, dataPoints } as MetricData)
        : ({ descriptor, aggregationTemporality: shapes.cumulative, dataPointType: shapes.gauge, dataPoints } as MetricData),
    );
  }
  return data;
}
