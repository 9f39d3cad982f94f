import { createDisabledProvider, type DisabledProvider } from './disabled.ts';
import { createPrometheusProvider, type PrometheusProvider } from './prometheus.ts';
import { createStatsdProvider, type StatsdProvider } from './statsd.ts';
import type { MetricsLogger, MetricsSettings } from './types.ts';

/** Fabric's sample defaults: metrics off; StatsD over UDP to 127.0.0.1:8125 every 10 s. */
export const DEFAULT_METRICS_SETTINGS: MetricsSettings = {
  provider: 'disabled',
  statsd: { network: 'udp', address: '127.0.0.1:8125', writeIntervalMs: 10_000, prefix: '' },
};

export type AnyMetricsProvider = PrometheusProvider | StatsdProvider | DisabledProvider;

export interface CreateMetricsProviderOptions {
  readonly logger?: MetricsLogger;
}

/**
 * The provider `settings.provider` names, matched exactly and case-sensitively as
 * Fabric does: `prometheus`, `statsd` or `disabled`. Anything else, `''` included,
 * logs `Unknown provider type: <p>; metrics disabled` and disables metrics.
 * Throws a MetricsError (INVALID_SETTINGS) for unusable StatsD settings.
 */
export function createMetricsProvider(
  settings: MetricsSettings = DEFAULT_METRICS_SETTINGS,
  options: CreateMetricsProviderOptions = {},
): AnyMetricsProvider {
  const logger = options.logger;
  switch (settings.provider) {
    case 'prometheus':
      return createPrometheusProvider({ ...settings.prometheus, ...(logger === undefined ? {} : { logger }) });
    case 'statsd':
      return createStatsdProvider(settings.statsd, logger === undefined ? {} : { logger });
    case 'disabled':
      return createDisabledProvider();
    default:
      logger?.warn(`Unknown provider type: ${String(settings.provider)}; metrics disabled`);
      return createDisabledProvider();
  }
}
