import cluster from 'node:cluster';
// The main entry by name, so this entry shares its one copy of the system code (as `./app` does).
import { createOperationsSystem, OpsServerError, type OperationsSystem, type OperationsSystemOptions } from '@fabric-ops/ops-server';
import { DEFAULT_OPERATIONS_LOGGER_NAME } from '../logspec.ts';
import type { ExtendedSystem, SystemExtensions } from '../system.ts';
import { SYSTEM_EXTENSIONS } from '../system-extensions.ts';
import { ClusterCoordinator, type WorkerStatus } from './coordinator.ts';
import type { GaugeRule } from './exposition.ts';
import type { WorkerChannel } from './protocol.ts';
import type { StatsdInterval } from '@fabric-ops/ops-metrics';

export interface ClusterSettings {
  /** `/readyz` (and `/healthz`, as the `cluster` check) fail while fewer workers than this have joined. Default 1. */
  readonly minWorkers?: number;
  /** How long the primary waits for one worker's metrics, health or spec acknowledgement. Default 2 s. */
  readonly workerTimeoutMs?: number;
  /** Per gauge family: `sum`, `max`, `min` or `perWorker` (one series per worker, `worker` label). */
  readonly gaugeRules?: Readonly<Record<string, GaugeRule>>;
  /** The rule for gauges not listed. Default `sum`. */
  readonly defaultGaugeRule?: GaugeRule;
  /** Follow every worker node:cluster forks from now on (and those already forked). Default true. */
  readonly followClusterWorkers?: boolean;
}

export interface OperationsClusterOptions extends OperationsSystemOptions {
  readonly cluster?: ClusterSettings;
}

/** Something the primary can follow: a node:cluster Worker, or a ChildProcess from child_process.fork. */
export type ClusterMember = { readonly id: number | string; readonly process: { readonly pid?: number | undefined } } & WorkerChannel;

export interface OperationsCluster extends OperationsSystem {
  /** Follows one more worker; with `followClusterWorkers` (the default) node:cluster's are followed already. */
  attach(member: ClusterMember | (WorkerChannel & { readonly pid?: number | undefined })): void;
  /** The workers followed now. */
  workers(): WorkerStatus[];
}

/** Component name of a worker's entry in `/healthz`. */
export function workerComponent(worker: string): string {
  return `worker-${worker}`;
}

/** Component name of the check that enough workers have joined. */
export const CLUSTER_COMPONENT = 'cluster';

/**
 * The operations endpoint of a multi-process service, run in the primary: the same server as
 * createOperationsSystem, whose `/metrics` covers every worker, whose `PUT /logspec` reaches
 * every worker before it answers, and whose `/healthz` names each worker's failures.
 */
export function createOperationsCluster(options: OperationsClusterOptions): OperationsCluster {
  const settings = options.cluster ?? {};
  const minWorkers = settings.minWorkers ?? 1;
  const workerTimeoutMs = settings.workerTimeoutMs ?? 2_000;
  if (!Number.isInteger(minWorkers) || minWorkers < 0) throw new OpsServerError('INVALID_OPTIONS', `cluster.minWorkers: expected a whole number ≥ 0, got ${String(minWorkers)}`);
  if (!Number.isFinite(workerTimeoutMs) || workerTimeoutMs <= 0) throw new OpsServerError('INVALID_OPTIONS', `cluster.workerTimeoutMs: expected a positive number of milliseconds, got ${String(workerTimeoutMs)}`);

  // A push waits for the workers at most this long, so pushes keep the writeInterval rhythm.
  const statsdWaitMs = options.metrics?.provider === 'statsd' && options.metrics.statsd !== undefined ? Math.max(1, Math.min(workerTimeoutMs, options.metrics.statsd.writeIntervalMs / 2)) : workerTimeoutMs;
  let system: ExtendedSystem | undefined;
  const reconcileHealth = () => {
    if (system === undefined) return;
    const wanted = new Set([...coordinator.status().map((worker) => worker.worker), ...coordinator.departedWorkers().keys()]);
    const current = system.healthComponents().filter((component) => component.startsWith('worker-'));
    for (const component of current) if (!wanted.has(component.slice('worker-'.length))) system.deregisterChecker(component);
    for (const worker of wanted) {
      const component = workerComponent(worker);
      if (!current.includes(component)) system.registerChecker(component, () => coordinator.checkWorker(worker));
    }
  };
  const metricsKind = options.metrics?.provider ?? 'disabled';
  const coordinator = new ClusterCoordinator({
    workerTimeoutMs,
    metricsKind,
    activeSpec: () => system?.logging.spec() ?? '',
    ...(settings.gaugeRules === undefined ? {} : { gaugeRules: settings.gaugeRules }),
    ...(settings.defaultGaugeRule === undefined ? {} : { defaultGaugeRule: settings.defaultGaugeRule }),
    onEvent: (event) => {
      if (event.type === 'timeout') return;
      reconcileHealth();
    },
  });

  let specChanges: Promise<void> = Promise.resolve();
  const extensions: SystemExtensions = {
    aggregateMetrics: async (own) => `${await coordinator.collectMetrics(own)}${clusterFamilies()}`,
    aggregateStatsd: async (own) => withClusterBuckets(await coordinator.collectStatsd(own, statsdWaitMs)),
    // One change at a time, so every worker ends on the spec whose 204 was sent last: the
    // handler activates a spec as soon as its broadcast resolves, before the next one starts.
    beforeSpecChange: (spec) => {
      const broadcast = specChanges.then(() => coordinator.broadcastSpec(spec)).then((late) => {
        if (late.length > 0) created.logging.getLogger(DEFAULT_OPERATIONS_LOGGER_NAME).warn({ workers: late, spec }, 'workers did not acknowledge the logging spec in time; it is queued on their channel');
      });
      specChanges = broadcast;
      return broadcast;
    },
  };
  const created = createOperationsSystem({ ...options, [SYSTEM_EXTENSIONS]: extensions } as OperationsSystemOptions) as ExtendedSystem;
  // Written after the workers have answered (not declared on the provider, whose own page is
  // rendered before they are asked), so a scrape counts its own timeouts.
  const clusterFamilies = (): string =>
    [
      '# HELP fabric_ops_cluster_workers Workers that have joined the operations endpoint and not exited.',
      '# TYPE fabric_ops_cluster_workers gauge',
      `fabric_ops_cluster_workers ${coordinator.liveCount()}`,
      '# HELP fabric_ops_cluster_worker_timeouts_total Requests to workers (scrape, health, spec change) not answered in time; the scrape used their last counts.',
      '# TYPE fabric_ops_cluster_worker_timeouts_total counter',
      `fabric_ops_cluster_worker_timeouts_total ${coordinator.timeouts}`,
      '',
    ].join('\n');
  // StatsD: the cluster's own two metrics under Fabric's naming (namespace.subsystem.name); the
  // timeouts counter is pushed as the delta since the last push, as every StatsD counter is.
  let timeoutsPushed = 0;
  const withClusterBuckets = (interval: StatsdInterval): StatsdInterval => {
    const timeouts = coordinator.timeouts - timeoutsPushed;
    timeoutsPushed = coordinator.timeouts;
    return {
      counters: timeouts > 0 ? [...interval.counters, ['fabric_ops.cluster.worker_timeouts_total', timeouts]] : interval.counters,
      gauges: [...interval.gauges, ['fabric_ops.cluster.workers', coordinator.liveCount(), 'fabric_ops_cluster_workers']],
      timings: interval.timings,
    };
  };
  system = created;
  created.registerChecker(CLUSTER_COMPONENT, () => {
    const live = coordinator.liveCount();
    if (live < minWorkers) throw new Error(`${live} of at least ${minWorkers} workers joined`);
  });

  const attach: OperationsCluster['attach'] = (member) => {
    const name = 'id' in member ? String(member.id) : String(member.pid ?? 'unknown');
    coordinator.attach(name, member);
  };
  if ((settings.followClusterWorkers ?? true) && cluster.isPrimary) {
    for (const worker of Object.values(cluster.workers ?? {})) if (worker !== undefined) attach(worker as unknown as ClusterMember);
    cluster.on('fork', (worker) => attach(worker as unknown as ClusterMember));
  }

  return Object.assign(created, { attach, workers: () => coordinator.status() });
}
