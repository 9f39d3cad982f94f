export { createMetricsProvider } from './internal/provider.ts';
export type { AnyMetricsProvider } from './internal/provider.ts';
export type { PrometheusProvider } from './internal/prometheus.ts';
export type { StatsdProvider } from './internal/statsd.ts';
export { MetricsError, isMetricsError } from './internal/errors.ts';
export type { Counter, Gauge, Histogram, MetricsOptions, StatsdInterval, StatsdTarget, Summary } from './internal/types.ts';
