import type { Declaration } from './declare.ts';
import { MetricsError } from './errors.ts';
import { Family, type FamilyBackend, type SeriesSink } from './family.ts';
import { formatStatsdBucket, normalizeStatsdPrefix } from './naming.ts';
import { Declarations, DEFAULT_MAX_SERIES_PER_METRIC, type MetricsProvider } from './provider-base.ts';
import { createRuntimeGauges, type RuntimeGauges } from './runtime-gauges.ts';
import { StatsdAggregate, statsdLines } from './statsd-aggregate.ts';
import { StatsdTransport, type StatsdTransportStats } from './statsd-transport.ts';
import type { Counter, MetricsLogger, StatsdCaptureOptions, StatsdInterval, StatsdOptions, StatsdTarget } from './types.ts';

export interface StatsdProviderOptions extends StatsdOptions {
  readonly logger?: MetricsLogger;
}

export interface StatsdProvider extends MetricsProvider {
  readonly kind: 'statsd';
  /**
   * Sends what the current interval holds now (the timer does this every writeInterval). With an
   * `aggregate` option the push happens once it resolves; a flush while one is under way is skipped.
   * Does nothing in capture mode.
   */
  flush(): void;
  /**
   * Capture mode only (`capture: true`): takes what the interval gathered, without the prefix,
   * and starts a new one. Throws a MetricsError (INVALID_SETTINGS) on a provider that pushes.
   */
  drain(): StatsdInterval;
  /** Delivery counters: lines sent, queued, dropped; reconnects; whether a connection is up (all 0 in capture mode). */
  stats(): StatsdTransportStats;
}

/** One series of a StatsD metric: the bucket its values go to. */
interface StatsdSeries extends SeriesSink {
  readonly bucket: string;
}

/** Series of one metric: each knows its bucket name and writes into the shared aggregate. */
class StatsdFamilyBackend implements FamilyBackend {
  readonly cachesSeries = true;
  /**
   * Live series per bucket. A template that leaves labels out gives several series one bucket;
   * the bucket's unsent values go only when the last of them is removed.
   */
  private readonly seriesPerBucket = new Map<string, number>();

  constructor(
    private readonly declaration: Declaration,
    private readonly aggregate: StatsdAggregate,
  ) {}

  createSeries(values: readonly string[]): StatsdSeries {
    const bucket = formatStatsdBucket(this.declaration.statsdPieces, values);
    this.seriesPerBucket.set(bucket, (this.seriesPerBucket.get(bucket) ?? 0) + 1);
    const aggregate = this.aggregate;
    switch (this.declaration.kind) {
      case 'counter':
        return { bucket, add: (delta) => aggregate.count(bucket, delta), set() {}, observe() {} };
      case 'gauge': {
        const metric = this.declaration.name;
        return { bucket, add: (delta) => aggregate.addGauge(bucket, delta, metric), set: (value) => aggregate.setGauge(bucket, value, metric), observe() {} };
      }
      // A summary's observations go out as timings too, as go-kit's StatsD sends histograms'.
      case 'histogram':
      case 'summary':
        return { bucket, add() {}, set() {}, observe: (value) => aggregate.time(bucket, value) };
    }
  }

  removeSeries(sink: SeriesSink): void {
    const { bucket } = sink as StatsdSeries;
    const left = (this.seriesPerBucket.get(bucket) ?? 1) - 1;
    if (left > 0) {
      this.seriesPerBucket.set(bucket, left);
      return;
    }
    this.seriesPerBucket.delete(bucket);
    this.aggregate.forget(bucket);
  }
}

/** The declarations every StatsD provider starts from, writing into `aggregate`. */
function statsdDeclarations(aggregate: StatsdAggregate, maxSeriesPerMetric: number | undefined, logger: MetricsLogger | undefined): Declarations {
  const maxSeries = maxSeriesPerMetric ?? DEFAULT_MAX_SERIES_PER_METRIC;
  const onSeriesLimit = (name: string, max: number) => logger?.warn(`metric ${name} reached ${max} series; values for new label combinations are dropped`);
  return new Declarations((declaration) =>
    new Family({
      kind: declaration.kind,
      displayName: declaration.name,
      labelNames: declaration.labelNames,
      backend: new StatsdFamilyBackend(declaration, aggregate),
      maxSeries,
      onSeriesLimit,
    }).root(),
  );
}

function droppedLinesCounter(declarations: Declarations): Counter {
  return declarations.newCounter({
    namespace: 'metrics',
    subsystem: 'statsd',
    name: 'lines_dropped',
    help: 'StatsD lines dropped: queue full while the daemon was unreachable or not reading, or too many histogram observations in one interval.',
  });
}

const NO_DELIVERY: StatsdTransportStats = { connected: false, pendingLines: 0, sentLines: 0, droppedLines: 0, reconnects: 0, socketBufferedBytes: 0 };

/**
 * A StatsD provider that gathers and never sends: a cluster worker's, whose intervals its
 * primary takes (without the prefix) and pushes with its own in one aggregated push.
 */
export function createStatsdCaptureProvider(options: StatsdCaptureOptions & { readonly logger?: MetricsLogger }): StatsdProvider {
  const aggregate = new StatsdAggregate();
  const declarations = statsdDeclarations(aggregate, options.maxSeriesPerMetric, options.logger);
  const droppedLines = droppedLinesCounter(declarations);
  let runtime: RuntimeGauges | undefined;
  let droppedTimingsReported = 0;
  return {
    kind: 'statsd',
    routes: [],
    ...declarations.factories(),
    flush() {},
    drain: () => {
      // Read when taken, so the gauges describe the interval the primary is about to push.
      runtime?.collect();
      const droppedTimings = aggregate.droppedTimings - droppedTimingsReported;
      droppedTimingsReported = aggregate.droppedTimings;
      if (droppedTimings > 0) droppedLines.add(droppedTimings);
      return aggregate.take();
    },
    stats: () => ({ ...NO_DELIVERY }),
    start: async () => {
      if (options.runtimeMetrics ?? true) runtime ??= createRuntimeGauges(declarations);
    },
    stop: async () => {
      runtime?.stop();
      runtime = undefined;
    },
  };
}

/**
 * Fabric's push model: values aggregate in the process and go to the daemon every
 * writeInterval, in Fabric's line format (`%f` values, `|c`, `|g`, `|ms`).
 */
export function createStatsdProvider(statsd: StatsdTarget, options: StatsdProviderOptions = {}): StatsdProvider {
  const target = { ...statsd, prefix: normalizeStatsdPrefix(statsd.prefix) };
  const aggregate = new StatsdAggregate();
  const declarations = statsdDeclarations(aggregate, options.maxSeriesPerMetric, options.logger);
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
  const droppedLines = droppedLinesCounter(declarations);

  let flushTimer: NodeJS.Timeout | undefined;
  let collectTimer: NodeJS.Timeout | undefined;
  let runtime: RuntimeGauges | undefined;
  let running = false;

  let droppedTimingsReported = 0;
  const takeInterval = (): StatsdInterval => {
    const droppedTimings = aggregate.droppedTimings - droppedTimingsReported;
    droppedTimingsReported = aggregate.droppedTimings;
    const dropped = transport.takeDroppedCount() + droppedTimings;
    if (dropped > 0) droppedLines.add(dropped);
    return aggregate.take();
  };
  const combine = options.aggregate;
  /** The aggregated flush under way; a timer tick meanwhile is skipped (its values wait in the aggregate). */
  let combining: Promise<void> | undefined;
  const flush = () => {
    if (combine === undefined) {
      transport.send(statsdLines(takeInterval(), target.prefix));
      return;
    }
    if (combining !== undefined) return;
    const own = takeInterval();
    combining = Promise.resolve()
      .then(() => combine(own))
      .catch((error: unknown) => {
        options.logger?.warn(`statsd: combining the interval failed, sending this process's own values: ${error instanceof Error ? error.message : String(error)}`);
        return own;
      })
      .then((interval) => transport.send(statsdLines(interval, target.prefix)))
      .finally(() => {
        combining = undefined;
      });
  };

  return {
    kind: 'statsd',
    routes: [],
    ...declarations.factories(),
    flush,
    drain: () => {
      throw new MetricsError('INVALID_SETTINGS', 'drain() is for a provider created with capture: true; this one pushes to its daemon');
    },
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
      await combining;
      flush();
      await combining;
      await transport.stop();
    },
  };
}
