export { createMetricsProvider } from './internal/provider.ts';
export type { AnyMetricsProvider } from './internal/provider.ts';
export type { DisabledProvider } from './internal/disabled.ts';
export type { PrometheusProvider } from './internal/prometheus.ts';
export type { StatsdProvider } from './internal/statsd.ts';
export { MetricsError, isMetricsError } from './internal/errors.ts';
export { formatSampleValue } from './internal/exposition.ts';
export { createRequestMetrics } from './internal/request-metrics.ts';
export type { ExpressMiddleware, FastifyReplyLike, FastifyRequestLike, RequestMetrics, RequestMetricsOptions } from './internal/request-metrics.ts';
export type { MetricsErrorCode } from './internal/errors.ts';
export type {
  Counter,
  Gauge,
  Histogram,
  HistogramOptions,
  MetricOptions,
  MetricsOptions,
  OtlpTarget,
  StatsdCaptureOptions,
  StatsdInterval,
  ScrapeCancelToken,
  StatsdTarget,
  Summary,
  SummaryOptions,
} from './internal/types.ts';
export { createSeriesMerger, keyLayouts, mergeSeries, renderKeyedFamilies, sampleKey, withValues, isCumulativeSample } from './internal/series-merge.ts';
export type { GaugeRule, KeyedFamily, KeyedLayout, MergedFamily, SeriesMergeInput, SeriesMergeOptions, SeriesMergeResult, SeriesMerger } from './internal/series-merge.ts';
export { isSeriesType } from './internal/series-snapshot.ts';
export type { SeriesFamily, SeriesSample, SeriesSnapshot, SeriesType } from './internal/series-snapshot.ts';
