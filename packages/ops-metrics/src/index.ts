export { createMetricsProvider, DEFAULT_METRICS_SETTINGS } from './provider.ts';
export type { AnyMetricsProvider, CreateMetricsProviderOptions } from './provider.ts';
export type { MetricsProvider, ProviderKind } from './provider-base.ts';
export { createPrometheusProvider } from './prometheus.ts';
export type { PrometheusProvider, PrometheusProviderOptions } from './prometheus.ts';
export { createStatsdProvider, parseStatsdSettings } from './statsd.ts';
export type { StatsdProvider, StatsdProviderOptions, StatsdTarget } from './statsd.ts';
export type { StatsdTransportStats } from './statsd-transport.ts';
export { createDisabledProvider } from './disabled.ts';
export type { DisabledProvider } from './disabled.ts';
export { createMetricsHandler, renderRegistry, DEFAULT_MAX_IN_FLIGHT, DEFAULT_SCRAPE_TIMEOUT_MS } from './metrics-handler.ts';
export type { MetricsHandlerOptions } from './metrics-handler.ts';
export { negotiateFormat, acceptsGzip, contentTypeFor, TEXT_CONTENT_TYPE } from './negotiate.ts';
export type { ExpositionFormat } from './negotiate.ts';
export { DEFAULT_BUCKETS } from './declare.ts';
export {
  DEFAULT_STATSD_FORMAT,
  formatStatsdBucket,
  normalizeStatsdPrefix,
  prometheusName,
  sanitizeStatsdLabelValue,
  statsdFullName,
} from './naming.ts';
export { formatGoFloat } from './format-float.ts';
export { MetricsError, isMetricsError } from './errors.ts';
export type { MetricsErrorCode } from './errors.ts';
export type {
  Counter,
  Gauge,
  Histogram,
  HistogramOptions,
  MetricOptions,
  MetricsFactory,
  MetricsLogger,
  MetricsSettings,
  ScrapeOptions,
  StatsdSettings,
} from './types.ts';
