import type { Declaration } from './declare.ts';
import { Family, type FamilyBackend, type SeriesSink } from './family.ts';
import { formatStatsdBucket, normalizeStatsdPrefix } from './naming.ts';
import { Declarations, DEFAULT_MAX_SERIES_PER_METRIC, type MetricsProvider } from './provider-base.ts';
import { createRuntimeGauges, type RuntimeGauges } from './runtime-gauges.ts';
import { StatsdAggregate } from './statsd-aggregate.ts';
import { StatsdTransport, type StatsdTransportStats } from './statsd-transport.ts';
import type { Counter, Gauge, Histogram, HistogramOptions, MetricOptions, MetricsLogger, StatsdOptions, StatsdTarget } from './types.ts';

export interface StatsdProviderOptions extends StatsdOptions {
  readonly logger?: MetricsLogger;
}

export interface StatsdProvider extends MetricsProvider {
  readonly kind: 'statsd';
  /** Sends what the current interval holds now (the timer does this every writeInterval). */
  flush(): void;
  /** Delivery counters: lines sent, queued, dropped; reconnects; whether a connection is up. */
  stats(): StatsdTransportStats;
}

/** Series of one metric: each knows its bucket name and writes into the shared aggregate. */
class StatsdFamilyBackend implements FamilyBackend {
  readonly cachesSeries = true;

  constructor(
    private readonly declaration: Declaration,
    private readonly aggregate: StatsdAggregate,
  ) {}

  createSeries(values: readonly string[]): SeriesSink {
    const bucket = formatStatsdBucket(this.declaration.statsdPieces, values);
    const aggregate = this.aggregate;
    switch (this.declaration.kind) {
      case 'counter':
        return { add: (delta) => aggregate.count(bucket, delta), set() {}, observe() {} };
      case 'gauge':
        return { add: (delta) => aggregate.addGauge(bucket, delta), set: (value) => aggregate.setGauge(bucket, value), observe() {} };
      case 'histogram':
        return { add() {}, set() {}, observe: (value) => aggregate.time(bucket, value) };
    }
  }
}

/**
 * Fabric's push model: values aggregate in the process and go to the daemon every
 * writeInterval, in Fabric's line format (`%f` values, `|c`, `|g`, `|ms`).
 */
export function createStatsdProvider(statsd: StatsdTarget, options: StatsdProviderOptions = {}): StatsdProvider {
  const target = { ...statsd, prefix: normalizeStatsdPrefix(statsd.prefix) };
  const aggregate = new StatsdAggregate();
  const maxSeries = options.maxSeriesPerMetric ?? DEFAULT_MAX_SERIES_PER_METRIC;
  const onSeriesLimit = (name: string, max: number) =>
    options.logger?.warn(`metric ${name} reached ${max} series; values for new label combinations are dropped`);
  const declarations = new Declarations((declaration) =>
    new Family({
      kind: declaration.kind,
      displayName: declaration.name,
      labelNames: declaration.labelNames,
      backend: new StatsdFamilyBackend(declaration, aggregate),
      maxSeries,
      onSeriesLimit,
    }).root(),
  );
  const transport = new StatsdTransport({
    network: target.network,
    host: target.host,
    port: target.port,
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    ...(options.maxPendingLines === undefined ? {} : { maxPendingLines: options.maxPendingLines }),
    ...(options.maxSocketBufferBytes === undefined ? {} : { maxSocketBufferBytes: options.maxSocketBufferBytes }),
    ...(options.initialBackoffMs === undefined ? {} : { initialBackoffMs: options.initialBackoffMs }),
    ...(options.maxBackoffMs === undefined ? {} : { maxBackoffMs: options.maxBackoffMs }),
  });
  const droppedLines = declarations.newCounter({
    namespace: 'metrics',
    subsystem: 'statsd',
    name: 'lines_dropped',
    help: 'StatsD lines dropped: queue full while the daemon was unreachable or not reading, or too many histogram observations in one interval.',
  });

  let flushTimer: NodeJS.Timeout | undefined;
  let collectTimer: NodeJS.Timeout | undefined;
  let runtime: RuntimeGauges | undefined;
  let running = false;

  let droppedTimingsReported = 0;
  const flush = () => {
    const droppedTimings = aggregate.droppedTimings - droppedTimingsReported;
    droppedTimingsReported = aggregate.droppedTimings;
    const dropped = transport.takeDroppedCount() + droppedTimings;
    if (dropped > 0) droppedLines.add(dropped);
    transport.send(aggregate.drain(target.prefix));
  };

  return {
    kind: 'statsd',
    routes: [],
    newCounter: (o: MetricOptions): Counter => declarations.newCounter(o),
    newGauge: (o: MetricOptions): Gauge => declarations.newGauge(o),
    newHistogram: (o: HistogramOptions): Histogram => declarations.newHistogram(o),
    flush,
    stats: () => transport.stats(),
    start: async () => {
      if (running) return;
      running = true;
      try {
        await transport.start();
      } catch (error) {
        running = false;
        throw error;
      }
      if (options.runtimeMetrics ?? true) {
        runtime ??= createRuntimeGauges(declarations);
        const collector = runtime;
        collector.collect();
        collectTimer = setInterval(() => collector.collect(), Math.max(1, Math.floor(target.writeIntervalMs / 2)));
        collectTimer.unref();
      }
      flushTimer = setInterval(flush, target.writeIntervalMs);
      flushTimer.unref();
    },
    stop: async () => {
      if (!running) return;
      running = false;
      clearInterval(flushTimer);
      clearInterval(collectTimer);
      runtime?.stop();
      runtime = undefined;
      // Unlike Fabric, what the last interval gathered is sent rather than lost.
      flush();
      await transport.stop();
    },
  };
}
