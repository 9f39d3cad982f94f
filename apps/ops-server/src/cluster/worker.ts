import { createHealthRegistry, type Checker, type HealthOptions, type HealthRegistry, type RegisterOptions } from '@fabric-ops/ops-health';
import { createLoggingFromEnv, type Logging, type LoggingRegistry } from '@fabric-ops/ops-logspec';
import { createMetricsProvider, type MetricsOptions, type PrometheusProvider, type StatsdInterval, type StatsdProvider } from '@fabric-ops/ops-metrics';
import type { SeriesFamily, SeriesSnapshot } from '@fabric-ops/ops-metrics/cluster';
import { OpsServerError } from '@fabric-ops/ops-server';
import { observeLogging } from '../metrics.ts';
import { isProtocolMessage, PROTOCOL_TAG, type ClusterMetricsKind, type PrimaryMessage, type WorkerMessage } from './protocol.ts';
import { ValuesSender } from './worker-series.ts';
import { EMPTY_STATSD_INTERVAL, encodeStatsdInterval } from './statsd-merge.ts';

export interface ClusterWorkerOptions {
  /** The worker's logger registry (either engine): the primary's active spec is applied to it, now and on every change. */
  readonly logging: Pick<LoggingRegistry, 'activateSpec' | 'spec'>;
  /**
   * The worker's series as data: an ops-metrics Prometheus provider's `seriesSnapshot` (which
   * includes a prom-client registry given to it as `registry`).
   */
  readonly metrics?: () => SeriesSnapshot | Promise<SeriesSnapshot>;
  /**
   * When the primary pushes StatsD (`ClusterWorker.metricsProvider === 'statsd'`): hands over the
   * worker's interval and forgets it, e.g. `() => provider.drain()` of an ops-metrics provider
   * created with `{ provider: 'statsd', capture: true }`.
   */
  readonly statsd?: () => StatsdInterval;
  /** The worker's own health checks, reported under the primary's `/healthz`. */
  readonly health?: HealthRegistry;
  /** How long to wait for the primary's first message. Default 10 s. */
  readonly initTimeoutMs?: number;
  /** The IPC channel to the primary. Default: `process` (a node:cluster worker or a forked child). */
  readonly channel?: NodeJS.Process;
}

export interface ClusterWorker {
  /** The primary's metrics provider: with `statsd`, keep metrics in a capture-mode StatsD provider and pass its `drain` as `statsd`. */
  readonly metricsProvider: ClusterMetricsKind;
  /**
   * Stops answering the primary (the worker is about to exit). When the primary pushes StatsD, it
   * first hands over the last interval; the promise settles once that message has left (or could not).
   */
  close(): Promise<void>;
}

/**
 * Joins the operations endpoint the primary serves: resolves once the primary's active logging
 * spec is applied, so a worker that starts serving after this never runs a stale spec.
 */
export function joinOperationsCluster(options: ClusterWorkerOptions): Promise<ClusterWorker> {
  const channel = options.channel ?? process;
  if (typeof channel.send !== 'function') {
    return Promise.reject(new OpsServerError('INVALID_OPTIONS', 'joinOperationsCluster: this process has no IPC channel to a primary (start it with node:cluster or child_process.fork)'));
  }
  const send = (message: WorkerMessage) => {
    // The primary may be gone (a stop in progress): a failed send must not crash the worker.
    if (channel.connected !== false) channel.send!(message, undefined, {}, () => {});
  };

  // The layout last reported, and its id: the primary gets the layout only when it holds another.
  let layout: readonly SeriesFamily[] = [];
  let layoutId = 0;
  const values = new ValuesSender();
  /**
   * A WireSeries as JSON; with the layout unchanged, made without serialising anything but the
   * values' bytes, and only the changed values' when the primary holds the last ones sent.
   */
  const wireSeries = async (known: number | undefined, held: number | undefined): Promise<string> => {
    const snapshot = (await options.metrics?.()) ?? EMPTY_SNAPSHOT;
    if (layoutId === 0 || !sameLayout(layout, snapshot.families)) {
      layout = snapshot.families;
      layoutId++;
    }
    // Base64 needs no escaping in JSON. Values of another layout are no base for a delta.
    const fields = values.fields(snapshot.values, known === layoutId ? held : undefined);
    return known === layoutId ? `{"layoutId":${layoutId},${fields}}` : `{"layoutId":${layoutId},"layout":${JSON.stringify(layout)},${fields}}`;
  };

  const answer = async (message: Extract<PrimaryMessage, { type: 'request' }>): Promise<WorkerMessage> => {
    try {
      if (message.op === 'metrics') return { tag: PROTOCOL_TAG, type: 'reply', id: message.id, ok: true, metrics: await wireSeries(message.layout, message.values) };
      if (message.op === 'statsd') return answerStatsd(message.id);
      if (message.op === 'health') {
        if (options.health === undefined) return { tag: PROTOCOL_TAG, type: 'reply', id: message.id, ok: true, health: { healthy: true, failed: [] } };
        const report = await options.health.run();
        return {
          tag: PROTOCOL_TAG,
          type: 'reply',
          id: message.id,
          ok: true,
          health: { healthy: report.healthy, failed: report.failed.map((result) => ({ component: result.component, reason: result.reason ?? '' })) },
        };
      }
      options.logging.activateSpec(message.spec);
      return { tag: PROTOCOL_TAG, type: 'reply', id: message.id, ok: true, spec: options.logging.spec() };
    } catch (error) {
      return { tag: PROTOCOL_TAG, type: 'reply', id: message.id, ok: false, error: error instanceof Error ? error.message : String(error) };
    }
  };

  const answerStatsd = (id: number): WorkerMessage => {
    try {
      return { tag: PROTOCOL_TAG, type: 'reply', id, ok: true, statsd: encodeStatsdInterval(options.statsd?.() ?? EMPTY_STATSD_INTERVAL) };
    } catch (error) {
      return { tag: PROTOCOL_TAG, type: 'reply', id, ok: false, error: error instanceof Error ? error.message : String(error) };
    }
  };

  return new Promise<ClusterWorker>((resolve, reject) => {
    let initialised = false;
    const onMessage = (message: unknown) => {
      if (!isProtocolMessage(message)) return;
      const typed = message as PrimaryMessage;
      if (typed.type === 'init') {
        try {
          options.logging.activateSpec(typed.spec);
        } catch {
          // The primary validated it; a worker on another version may still refuse it and keeps its own.
        }
        send({ tag: PROTOCOL_TAG, type: 'ready', spec: options.logging.spec() });
        if (!initialised) {
          initialised = true;
          clearTimeout(timer);
          const metricsProvider = typed.metrics ?? 'prometheus';
          resolve({
            metricsProvider,
            close: () => {
              channel.off('message', onMessage);
              if (metricsProvider !== 'statsd' || options.statsd === undefined || channel.connected === false) return Promise.resolve();
              const statsd = encodeStatsdInterval(options.statsd());
              // Sent and waited for: a worker that exits right after must not take its last counts with it.
              return new Promise<void>((done) => channel.send!({ tag: PROTOCOL_TAG, type: 'statsd-final', statsd } satisfies WorkerMessage, undefined, {}, () => done()));
            },
          });
        }
        return;
      }
      if (typed.type === 'request') {
        // A StatsD hand-over is answered in the same turn, so the interval taken is the one sent.
        if (typed.op === 'statsd') send(answerStatsd(typed.id));
        else void answer(typed).then(send);
      }
    };
    const timer = setTimeout(() => {
      channel.off('message', onMessage);
      reject(new OpsServerError('INVALID_OPTIONS', `joinOperationsCluster: no word from the primary within ${options.initTimeoutMs ?? 10_000} ms (is it running createOperationsCluster?)`));
    }, options.initTimeoutMs ?? 10_000);
    timer.unref();
    channel.on('message', onMessage);
    send({ tag: PROTOCOL_TAG, type: 'hello' });
  });
}

const EMPTY_SNAPSHOT: SeriesSnapshot = { families: [], values: [] };

/** Whether two layouts name the same samples in the same order (their strings are mostly the same objects). */
function sameLayout(a: readonly SeriesFamily[], b: readonly SeriesFamily[]): boolean {
  if (a.length !== b.length) return false;
  for (let f = 0; f < a.length; f++) {
    const x = a[f]!;
    const y = b[f]!;
    if (x.name !== y.name || x.type !== y.type || x.help !== y.help || x.samples.length !== y.samples.length) return false;
    // ops-metrics hands out the same samples array while a family's series are unchanged.
    if (x.samples === y.samples) continue;
    for (let i = 0; i < x.samples.length; i++) {
      const [suffix, labels] = x.samples[i]!;
      const [otherSuffix, otherLabels] = y.samples[i]!;
      if (suffix !== otherSuffix || labels.length !== otherLabels.length) return false;
      for (let j = 0; j < labels.length; j++) if (labels[j] !== otherLabels[j]) return false;
    }
  }
  return true;
}

export interface OperationsWorkerOptions<L extends LoggingRegistry = Logging> {
  /**
   * The worker's loggers. Default: pino's registry built from FABRIC_LOGGING_SPEC / FABRIC_LOGGING_FORMAT;
   * pass `createLeanLogging(...)` for pino's lines without pino's memory.
   */
  readonly logging?: L;
  /** An application's own prom-client registry, aggregated with the worker's ops-metrics series (Prometheus primaries only; StatsD has no place for it, as in Fabric). */
  readonly registry?: PrometheusRegistry;
  /** Health check timeouts and cache for the worker's own checks. */
  readonly health?: HealthOptions;
  /** How long to wait for the primary's first message. Default 10 s. */
  readonly initTimeoutMs?: number;
}

type PrometheusRegistry = Extract<MetricsOptions, { provider: 'prometheus' }>['registry'];

export interface OperationsWorker<L extends LoggingRegistry = Logging> {
  /** The worker's loggers; they follow the spec `PUT /logspec` sets on the primary. */
  readonly logging: L;
  /**
   * Counters, gauges, histograms and summaries, combined across workers by the primary: served on its
   * `/metrics`, or, when it pushes StatsD, in its one push per writeInterval.
   */
  readonly metrics: MetricsFactory;
  /** Adds a check reported on the primary's `/healthz` as part of `worker-<id>`. */
  registerChecker(component: string, checker: Checker, options?: RegisterOptions): void;
  /** Stops answering the primary and the runtime sampling (call before the worker exits); a StatsD worker hands over its last interval. */
  close(): Promise<void>;
}

type MetricsFactory = Pick<PrometheusProvider, 'newCounter' | 'newGauge' | 'newHistogram' | 'newSummary'>;

/**
 * The worker half of a multi-process service in a few lines: its loggers, metrics and checks,
 * joined to the operations endpoint the primary serves with createOperationsCluster.
 */
export async function startOperationsWorker<L extends LoggingRegistry = Logging>(options: OperationsWorkerOptions<L> = {}): Promise<OperationsWorker<L>> {
  const logging: L = options.logging ?? (createLoggingFromEnv() as unknown as L);
  const health = createHealthRegistry(options.health ?? {});
  // Created once the primary has said which provider it runs; no request comes before that.
  let provider: PrometheusProvider | StatsdProvider | undefined;
  const joined = await joinOperationsCluster({
    logging,
    metrics: () => (provider?.kind === 'prometheus' ? provider.seriesSnapshot() : EMPTY_SNAPSHOT),
    statsd: () => (provider?.kind === 'statsd' ? provider.drain() : EMPTY_STATSD_INTERVAL),
    health,
    ...(options.initTimeoutMs === undefined ? {} : { initTimeoutMs: options.initTimeoutMs }),
  });
  const created =
    joined.metricsProvider === 'statsd'
      ? createMetricsProvider({ provider: 'statsd', capture: true })
      : createMetricsProvider({ provider: 'prometheus', ...(options.registry === undefined ? {} : { registry: options.registry }) });
  provider = created;
  await created.start();
  // The same families the primary declares, so the worker's log entries add up with its own.
  observeLogging(created, logging);
  return {
    logging,
    metrics: created,
    registerChecker: (component, checker, registerOptions) => health.register(component, checker, registerOptions),
    close: async () => {
      logging.setObserver(undefined);
      await joined.close();
      await created.stop();
    },
  };
}
