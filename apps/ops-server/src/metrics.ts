import type { HealthRegistry } from '@fabric-ops/ops-health';
import type { Logging } from '@fabric-ops/ops-logspec';
import {
  createMetricsProvider,
  MetricsError,
  type AnyMetricsProvider,
  type Counter,
  type Gauge,
  type Histogram,
  type MetricsOptions,
} from '@fabric-ops/ops-metrics';
import { parseListenAddress } from './listen-address.ts';
import type { SystemPart } from './part.ts';

/** ops-config's `metrics` section as it reads it today (Fabric's keys, values as written). */
export interface MetricsSettings {
  /** `prometheus`, `statsd` or `disabled`; ops-config has already warned about anything else. */
  readonly provider: string;
  readonly statsd: {
    readonly network: string;
    /** `host:port` of the daemon. */
    readonly address: string;
    readonly writeIntervalMs: number;
    readonly prefix: string;
  };
}

/**
 * ops-config's `MetricsSettings` as ops-metrics' typed options. The one place that
 * translates between the two until ops-config hands over the typed values itself:
 * an unknown provider disables metrics silently (ops-config's warning was the one
 * the user saw), and only the section the provider uses is converted, so a bad
 * statsd address matters only with `provider: statsd`. ops-metrics checks the values
 * (port range, interval) and throws its MetricsError.
 */
export function metricsOptionsFromSettings(settings: MetricsSettings | undefined): MetricsOptions {
  switch (settings?.provider) {
    case 'prometheus':
      return { provider: 'prometheus' };
    case 'statsd': {
      const { network, address, writeIntervalMs, prefix } = settings.statsd;
      if (network !== 'udp' && network !== 'tcp') throw new MetricsError('INVALID_SETTINGS', `statsd network must be "udp" or "tcp", got ${JSON.stringify(network)}`);
      let target: { host: string; port: number };
      try {
        target = parseListenAddress(address);
      } catch (error) {
        throw new MetricsError('INVALID_SETTINGS', `statsd ${error instanceof Error ? error.message.replace(/^listen tcp: /, '') : String(error)}`, { cause: error });
      }
      // Go dials ":8125" on the local host.
      return { provider: 'statsd', statsd: { network, host: target.host === '' ? '127.0.0.1' : target.host, port: target.port, writeIntervalMs, prefix } };
    }
    default:
      return { provider: 'disabled' };
  }
}

/** The metrics concern as a system part: the provider, and the families other concerns feed. */
export interface MetricsPart extends SystemPart {
  readonly provider: AnyMetricsProvider;
}

export interface MetricsPartOptions {
  /** ops-config's `metrics` section; metrics are disabled without it. */
  readonly settings: MetricsSettings | undefined;
  /** What `fabric_version{version}` reports. */
  readonly version: string;
  readonly logger: { warn(message: string): void };
  readonly logging: Logging;
  readonly health: HealthRegistry;
}

/** One labelled child per label value, so hot paths (every log entry) skip `with()`. */
function perLabel<T extends { with(...pairs: string[]): T }>(metric: T, label: string): (value: string) => T {
  const children = new Map<string, T>();
  return (value) => {
    let child = children.get(value);
    if (child === undefined) {
      child = metric.with(label, value);
      // Bounded by the label's real range (log levels, registered checkers); guard anyway.
      if (children.size < 1_000) children.set(value, child);
    }
    return child;
  };
}

/**
 * Creates the provider Fabric's `metrics.provider` names (a bad StatsD setting throws a
 * MetricsError here, before anything starts), declares `fabric_version` and the
 * logging and health families, and connects ops-logspec's and ops-health's observers.
 */
export function createMetricsPart(options: MetricsPartOptions): MetricsPart {
  const typed = metricsOptionsFromSettings(options.settings);
  const provider = createMetricsProvider(typed.provider === 'disabled' ? typed : { ...typed, logger: { warn: (message) => options.logger.warn(message) } });
  const fabricVersion: Gauge = provider.newGauge({
    name: 'fabric_version',
    help: 'The active version of Fabric.',
    labelNames: ['version'],
    statsdFormat: '%{#fqname}.%{version}',
  });
  const checked = perLabel<Counter>(
    provider.newCounter({
      namespace: 'logging',
      name: 'entries_checked',
      help: 'Number of log entries checked against the active logging level',
      labelNames: ['level'],
      statsdFormat: '%{#fqname}.%{level}',
    }),
    'level',
  );
  const written = perLabel<Counter>(
    provider.newCounter({
      namespace: 'logging',
      name: 'entries_written',
      help: 'Number of log entries that are written',
      labelNames: ['level'],
      statsdFormat: '%{#fqname}.%{level}',
    }),
    'level',
  );
  const status = perLabel<Gauge>(
    provider.newGauge({
      namespace: 'health',
      name: 'check_status',
      help: 'Outcome of the latest run of a health checker: 1 passed, 0 failed.',
      labelNames: ['component'],
      statsdFormat: '%{#fqname}.%{component}',
    }),
    'component',
  );
  const duration = perLabel<Histogram>(
    provider.newHistogram({
      namespace: 'health',
      name: 'check_duration_seconds',
      help: 'How long each health checker run took, in seconds.',
      labelNames: ['component'],
      statsdFormat: '%{#fqname}.%{component}',
    }),
    'component',
  );

  const connect = () => {
    if (provider.kind === 'disabled') return;
    options.logging.setObserver({
      checked: (level) => checked(level).add(1),
      written: (level) => written(level).add(1),
    });
    options.health.setObserver({
      onResult: (component, healthy, seconds) => {
        status(component).set(healthy ? 1 : 0);
        duration(component).observe(seconds);
      },
    });
  };
  connect();

  return {
    provider,
    routes: provider.routes,
    start: async () => {
      // Fabric's order: the push client first, then the version gauge.
      await provider.start();
      fabricVersion.with('version', options.version).set(1);
    },
    stop: async () => {
      await provider.stop();
      if (provider.kind === 'disabled') return;
      // The logging registry and the checkers may outlive this system.
      options.logging.setObserver(undefined);
      options.health.setObserver(undefined);
    },
  };
}
