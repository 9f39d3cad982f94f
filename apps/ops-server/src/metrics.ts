import type { HealthRegistry } from '@fabric-ops/ops-health';
import type { LoggingRegistry } from '@fabric-ops/ops-logspec';
import { createMetricsProvider, type AnyMetricsProvider, type Counter, type Gauge, type Histogram, type MetricsOptions, type StatsdInterval } from '@fabric-ops/ops-metrics';
import type { SystemPart } from './part.ts';

/** The metrics concern as a system part: the provider, and the families other concerns feed. */
export interface MetricsPart extends SystemPart {
  readonly provider: AnyMetricsProvider;
}

/** The Prometheus provider's `aggregate` hook. */
export type PrometheusAggregate = NonNullable<Extract<MetricsOptions, { provider: 'prometheus' }>['aggregate']>;

export interface MetricsPartOptions {
  /** Which provider and its typed settings (the apps take them from ops-config); disabled without it. */
  readonly settings: MetricsOptions | undefined;
  /** What `fabric_version{version}` reports. */
  readonly version: string;
  readonly logger: { warn(message: string): void };
  readonly logging: LoggingRegistry;
  readonly health: HealthRegistry;
  /** Multi-process primary: combines this process's series with its workers' (Prometheus only). */
  readonly aggregate?: PrometheusAggregate | undefined;
  /** Multi-process primary: combines this process's StatsD interval with its workers' before each push. */
  readonly aggregateStatsd?: ((own: StatsdInterval) => Promise<StatsdInterval>) | undefined;
}

/** One labelled child per label value, so hot paths (every log entry) skip `with()`. */
interface PerLabel<T> {
  (value: string): T;
  /** Removes the value's series and forgets its child (the label's value is gone for good). */
  remove(value: string): void;
}

function perLabel<T extends { with(...pairs: string[]): T; remove(): boolean }>(metric: T, label: string): PerLabel<T> {
  const children = new Map<string, T>();
  const child = (value: string): T => {
    let found = children.get(value);
    if (found === undefined) {
      found = metric.with(label, value);
      // Bounded by the label's real range (log levels, registered checkers); guard anyway.
      if (children.size < 1_000) children.set(value, found);
    }
    return found;
  };
  return Object.assign(child, {
    remove: (value: string) => {
      (children.get(value) ?? metric.with(label, value)).remove();
      children.delete(value);
    },
  });
}

/**
 * Declares Fabric's `logging_entries_checked` / `logging_entries_written` on `provider` and
 * makes `logging` feed them (the system's own loggers, and each cluster worker's).
 */
export function observeLogging(provider: Pick<AnyMetricsProvider, 'newCounter'>, logging: Pick<LoggingRegistry, 'setObserver'>): void {
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
  logging.setObserver({
    checked: (level) => checked(level).add(1),
    written: (level) => written(level).add(1),
  });
}

/**
 * Creates the provider Fabric's `metrics.provider` names (a bad StatsD setting throws a
 * MetricsError here, before anything starts), declares `fabric_version` and the
 * logging and health families, and connects ops-logspec's and ops-health's observers.
 */
export function createMetricsPart(options: MetricsPartOptions): MetricsPart {
  const typed: MetricsOptions = options.settings ?? { provider: 'disabled' };
  const logger = { warn: (message: string) => options.logger.warn(message) };
  const provider = createMetricsProvider(
    typed.provider === 'disabled'
      ? typed
      : typed.provider === 'prometheus' && options.aggregate !== undefined
        ? { ...typed, logger, aggregate: options.aggregate }
        : typed.provider === 'statsd' && typed.statsd !== undefined && options.aggregateStatsd !== undefined
          ? { ...typed, logger, aggregate: options.aggregateStatsd }
          : { ...typed, logger },
  );
  const fabricVersion: Gauge = provider.newGauge({
    name: 'fabric_version',
    help: 'The active version of Fabric.',
    labelNames: ['version'],
    statsdFormat: '%{#fqname}.%{version}',
  });
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
    observeLogging(provider, options.logging);
    options.health.setObserver({
      onResult: (component, healthy, seconds) => {
        status(component).set(healthy ? 1 : 0);
        duration(component).observe(seconds);
      },
      // A deregistered checker (a departed cluster worker's `worker-<id>`) reports nothing more:
      // its series would read its last value forever and pile up with every component that came and went.
      onRemoved: (component) => {
        status.remove(component);
        duration.remove(component);
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
