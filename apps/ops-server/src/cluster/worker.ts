import { createHealthRegistry, type Checker, type HealthOptions, type HealthRegistry, type RegisterOptions } from '@fabric-ops/ops-health';
import { createLoggingFromEnv, type Logging } from '@fabric-ops/ops-logspec';
import { createMetricsProvider, type MetricsOptions, type PrometheusProvider } from '@fabric-ops/ops-metrics';
import { OpsServerError } from '../errors.ts';
import { observeLogging } from '../metrics.ts';
import { isProtocolMessage, PROTOCOL_TAG, type PrimaryMessage, type WorkerMessage } from './protocol.ts';

export interface ClusterWorkerOptions {
  /** The worker's logger registry: the primary's active spec is applied to it, now and on every change. */
  readonly logging: Logging;
  /** The worker's metrics in the Prometheus text format (ops-metrics, prom-client's `registry.metrics()`, or both joined). */
  readonly metrics?: () => string | Promise<string>;
  /** The worker's own health checks, reported under the primary's `/healthz`. */
  readonly health?: HealthRegistry;
  /** How long to wait for the primary's first message. Default 10 s. */
  readonly initTimeoutMs?: number;
  /** The IPC channel to the primary. Default: `process` (a node:cluster worker or a forked child). */
  readonly channel?: NodeJS.Process;
}

export interface ClusterWorker {
  /** Stops answering the primary (the worker is about to exit). */
  close(): void;
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

  const answer = async (message: Extract<PrimaryMessage, { type: 'request' }>): Promise<WorkerMessage> => {
    try {
      if (message.op === 'metrics') return { tag: PROTOCOL_TAG, type: 'reply', id: message.id, ok: true, metrics: (await options.metrics?.()) ?? '' };
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
          resolve({ close: () => channel.off('message', onMessage) });
        }
        return;
      }
      if (typed.type === 'request') void answer(typed).then(send);
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

export interface OperationsWorkerOptions {
  /** The worker's loggers. Default: one registry built from FABRIC_LOGGING_SPEC / FABRIC_LOGGING_FORMAT. */
  readonly logging?: Logging;
  /** An application's own prom-client registry, aggregated with the worker's ops-metrics series. */
  readonly registry?: PrometheusRegistry;
  /** Health check timeouts and cache for the worker's own checks. */
  readonly health?: HealthOptions;
  /** How long to wait for the primary's first message. Default 10 s. */
  readonly initTimeoutMs?: number;
}

type PrometheusRegistry = Extract<MetricsOptions, { provider: 'prometheus' }>['registry'];

export interface OperationsWorker {
  /** The worker's loggers; they follow the spec `PUT /logspec` sets on the primary. */
  readonly logging: Logging;
  /** Counters, gauges and histograms served (summed across workers) on the primary's `/metrics`. */
  readonly metrics: MetricsFactory;
  /** Adds a check reported on the primary's `/healthz` as part of `worker-<id>`. */
  registerChecker(component: string, checker: Checker, options?: RegisterOptions): void;
  /** Stops answering the primary and the runtime sampling (call before the worker exits). */
  close(): Promise<void>;
}

type MetricsFactory = Pick<PrometheusProvider, 'newCounter' | 'newGauge' | 'newHistogram'>;

/**
 * The worker half of a multi-process service in a few lines: its loggers, metrics and checks,
 * joined to the operations endpoint the primary serves with createOperationsCluster.
 */
export async function startOperationsWorker(options: OperationsWorkerOptions = {}): Promise<OperationsWorker> {
  const logging = options.logging ?? createLoggingFromEnv();
  const provider = createMetricsProvider({ provider: 'prometheus', ...(options.registry === undefined ? {} : { registry: options.registry }) }) as PrometheusProvider;
  const health = createHealthRegistry(options.health ?? {});
  // The same families the primary declares, so the worker's log entries add up with its own.
  observeLogging(provider, logging);
  const joined = await joinOperationsCluster({
    logging,
    metrics: () => provider.exposition(),
    health,
    ...(options.initTimeoutMs === undefined ? {} : { initTimeoutMs: options.initTimeoutMs }),
  });
  return {
    logging,
    metrics: provider,
    registerChecker: (component, checker, registerOptions) => health.register(component, checker, registerOptions),
    close: async () => {
      joined.close();
      logging.setObserver(undefined);
      await provider.stop();
    },
  };
}
