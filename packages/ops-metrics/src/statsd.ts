import { MetricsError } from './errors.ts';
import type { Declaration } from './declare.ts';
import { Family, type FamilyBackend, type SeriesSink } from './family.ts';
import { formatStatsdBucket, normalizeStatsdPrefix } from './naming.ts';
import { Declarations, DEFAULT_MAX_SERIES_PER_METRIC, type MetricsProvider } from './provider-base.ts';
import { createRuntimeGauges, type RuntimeGauges } from './runtime-gauges.ts';
import { StatsdAggregate } from './statsd-aggregate.ts';
import { StatsdTransport, type StatsdTransportStats } from './statsd-transport.ts';
import type { Counter, Gauge, Histogram, HistogramOptions, MetricOptions, MetricsLogger, StatsdSettings } from './types.ts';

export interface StatsdProviderOptions {
  readonly logger?: MetricsLogger;
  /** Lines held while the daemon is unreachable. Default 10 000. */
  readonly maxPendingLines?: number;
  /** Push `nodejs.` runtime gauges (collected every writeInterval/2). Default true. */
  readonly runtimeMetrics?: boolean;
  readonly maxSeriesPerMetric?: number;
  /** First TCP reconnect delay. Default 1 000 ms. */
  readonly initialBackoffMs?: number;
  readonly maxBackoffMs?: number;
}

export interface StatsdProvider extends MetricsProvider {
  readonly kind: 'statsd';
  /** Sends what the current interval holds now (the timer does this every writeInterval). */
  flush(): void;
  stats(): StatsdTransportStats;
}

export interface StatsdTarget {
  readonly network: 'udp' | 'tcp';
  readonly host: string;
  readonly port: number;
  readonly writeIntervalMs: number;
  readonly prefix: string;
}

/** Checks the push settings; every problem is a MetricsError naming the key. */
export function parseStatsdSettings(settings: StatsdSettings): StatsdTarget {
  const network = settings.network;
  if (network !== 'udp' && network !== 'tcp') {
    throw new MetricsError('INVALID_SETTINGS', `statsd network must be "udp" or "tcp", got ${JSON.stringify(network)}`);
  }
  const interval = settings.writeIntervalMs;
  if (typeof interval !== 'number' || !Number.isFinite(interval) || interval <= 0) {
    throw new MetricsError('INVALID_SETTINGS', `statsd writeInterval must be a duration greater than 0, got ${String(interval)} ms`);
  }
  if (interval > 2_147_483_647) {
    throw new MetricsError('INVALID_SETTINGS', `statsd writeInterval must be at most 24 days, got ${interval} ms`);
  }
  const address = settings.address ?? '';
  const colon = address.lastIndexOf(':');
  if (colon < 0) throw new MetricsError('INVALID_SETTINGS', `statsd address ${JSON.stringify(address)}: missing port in address`);
  let host = address.slice(0, colon);
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  else if (host.includes(':')) throw new MetricsError('INVALID_SETTINGS', `statsd address ${JSON.stringify(address)}: too many colons in address`);
  const portText = address.slice(colon + 1);
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port < 1 || port > 65_535) {
    throw new MetricsError('INVALID_SETTINGS', `statsd address ${JSON.stringify(address)}: invalid port ${JSON.stringify(portText)}`);
  }
  return { network, host: host === '' ? '127.0.0.1' : host, port, writeIntervalMs: interval, prefix: normalizeStatsdPrefix(settings.prefix ?? '') };
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
export function createStatsdProvider(settings: StatsdSettings, options: StatsdProviderOptions = {}): StatsdProvider {
  const target = parseStatsdSettings(settings);
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
    ...(options.initialBackoffMs === undefined ? {} : { initialBackoffMs: options.initialBackoffMs }),
    ...(options.maxBackoffMs === undefined ? {} : { maxBackoffMs: options.maxBackoffMs }),
  });
  const droppedLines = declarations.newCounter({
    namespace: 'metrics',
    subsystem: 'statsd',
    name: 'lines_dropped',
    help: 'StatsD lines dropped: queue full while the daemon was unreachable, or too many histogram observations in one interval.',
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
      if (!running) {
        // stop() ran while hot-shots was loading.
        await transport.stop();
        return;
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
