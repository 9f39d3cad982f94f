import type { Route } from '@fabric-ops/ops-http';
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { Declaration } from './declare.ts';
import { createMetricsHandler } from './metrics-handler.ts';
import { PrometheusFamily } from './prometheus-family.ts';
import { Declarations, DEFAULT_MAX_SERIES_PER_METRIC, type MetricsProvider } from './provider-base.ts';
import type { Counter, Gauge, Histogram, HistogramOptions, MetricOptions, MetricsLogger, ScrapeOptions } from './types.ts';

export interface PrometheusProviderOptions extends ScrapeOptions {
  readonly logger?: MetricsLogger;
  /** prom-client's Node runtime and process collectors. Default true. */
  readonly defaultMetrics?: boolean;
  /** Bring your own registry; by default every provider gets a new one (never the global). */
  readonly registry?: Registry;
}

export interface PrometheusProvider extends MetricsProvider {
  readonly kind: 'prometheus';
  /** The provider's own prom-client registry: register extra prom-client metrics here. */
  readonly registry: Registry;
}

const LINT_FAILING_DEFAULTS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

/** Metrics scraped from `/metrics`, kept in a prom-client Registry of the provider's own. */
export function createPrometheusProvider(options: PrometheusProviderOptions = {}): PrometheusProvider {
  const registry = options.registry ?? new Registry();
  const maxSeries = options.maxSeriesPerMetric ?? DEFAULT_MAX_SERIES_PER_METRIC;
  const onSeriesLimit = (name: string, max: number) =>
    options.logger?.warn(`metric ${name} reached ${max} series; values for new label combinations are dropped`);

  const declarations = new Declarations((declaration: Declaration) => {
    const family = new PrometheusFamily(declaration, maxSeries, onSeriesLimit);
    // The registry only needs name, type, get() and reset(); the handler reads the family directly.
    registry.registerMetric(family as unknown as Parameters<Registry['registerMetric']>[0]);
    return family.family.root();
  });

  if (options.defaultMetrics ?? true) {
    collectDefaultMetrics({ register: registry });
    // Gauges named `*_total` fail `promtool check metrics`; the per-type gauges beside them
    // (`nodejs_active_handles{type}`, ...) carry the same numbers.
    for (const name of LINT_FAILING_DEFAULTS) registry.removeSingleMetric(name);
  }

  // promhttp's self-instrumentation, which Fabric's /metrics carries.
  const requests = declarations.newCounter({
    namespace: 'promhttp',
    subsystem: 'metric_handler',
    name: 'requests_total',
    help: 'Total number of scrapes by HTTP status code.',
    labelNames: ['code'],
  });
  for (const code of ['200', '500', '503']) requests.with('code', code).add(0);
  const inFlight = declarations.newGauge({
    namespace: 'promhttp',
    subsystem: 'metric_handler',
    name: 'requests_in_flight',
    help: 'Current number of scrapes being served.',
  });
  inFlight.set(0);

  const handler = createMetricsHandler({
    registry,
    requests,
    inFlight,
    ...(options.maxInFlight === undefined ? {} : { maxInFlight: options.maxInFlight }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.openMetrics === undefined ? {} : { openMetrics: options.openMetrics }),
    onError: (error) => options.logger?.warn(`error collecting metrics: ${error instanceof Error ? error.message : String(error)}`),
  });
  const routes: readonly Route[] = [{ path: '/metrics', secure: true, handler }];

  return {
    kind: 'prometheus',
    registry,
    routes,
    newCounter: (o: MetricOptions): Counter => declarations.newCounter(o),
    newGauge: (o: MetricOptions): Gauge => declarations.newGauge(o),
    newHistogram: (o: HistogramOptions): Histogram => declarations.newHistogram(o),
    start: async () => {},
    stop: async () => {},
  };
}
