import cluster from 'node:cluster';
// The main entry by name, so this entry shares its one copy of the system code (as `./app` does).
import { createOperationsSystem, OpsServerError, type OperationsSystem, type OperationsSystemOptions } from '@fabric-ops/ops-server';
import { DEFAULT_OPERATIONS_LOGGER_NAME } from '../logspec.ts';
import type { ExtendedSystem, SystemExtensions } from '../system.ts';
import { SYSTEM_EXTENSIONS } from '../system-extensions.ts';
import { ClusterCoordinator, DEFAULT_MAX_QUEUED_BYTES, DEFAULT_RETIRED_LIMITS, DEFAULT_SERIES_LIMITS, type CoordinatorOptions, type WorkerStatus } from './coordinator.ts';
import type { WorkerChannel } from './protocol.ts';
import type { GaugeRule, KeyedFamily } from '@fabric-ops/ops-metrics/cluster';
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
  /** How long a dead worker stays named in /healthz when no replacement joins. Default 60 s. */
  readonly departedTtlMs?: number;
  /** Samples the primary holds of one worker's series; the rest are left out and counted. Default 200 000. */
  readonly maxWorkerSamples?: number;
  /** Bytes of one worker's metrics reply (JSON); a larger reply is dropped unread and counted. Default 8 MiB. */
  readonly maxWorkerReplyBytes?: number;
  /** Series it keeps of exited workers' counts; new ones past it are dropped and counted. Default 50 000. */
  readonly maxRetiredSeries?: number;
  /** Characters of those series' names and labels. Default 4 Mi. */
  readonly maxRetiredChars?: number;
  /** Bytes of messages waiting to be written to one worker; sends past it are refused and counted. Default 8 MiB. */
  readonly maxQueuedBytesPerWorker?: number;
}

/** The bounds on what the primary holds for its workers, from the settings (checked) or their defaults. */
function workerBounds(settings: ClusterSettings): Pick<CoordinatorOptions, 'seriesLimits' | 'retiredLimits' | 'maxQueuedBytes'> {
  return {
    seriesLimits: {
      samples: positiveWhole('maxWorkerSamples', settings.maxWorkerSamples, DEFAULT_SERIES_LIMITS.samples),
      replyBytes: positiveWhole('maxWorkerReplyBytes', settings.maxWorkerReplyBytes, DEFAULT_SERIES_LIMITS.replyBytes),
    },
    retiredLimits: {
      series: positiveWhole('maxRetiredSeries', settings.maxRetiredSeries, DEFAULT_RETIRED_LIMITS.series),
      chars: positiveWhole('maxRetiredChars', settings.maxRetiredChars, DEFAULT_RETIRED_LIMITS.chars),
    },
    maxQueuedBytes: positiveWhole('maxQueuedBytesPerWorker', settings.maxQueuedBytesPerWorker, DEFAULT_MAX_QUEUED_BYTES),
  };
}

function positiveWhole(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) throw new OpsServerError('INVALID_OPTIONS', `cluster.${name}: expected a whole number ≥ 1, got ${String(value)}`);
  return value;
}

/** PUT /logspec changes held waiting behind the one in progress; one more is refused with 503. */
const SPEC_CHANGE_QUEUE_LIMIT = 8;
/** At most one warning per this many ms about dropped worker messages (the rest are counted in it). */
const DROP_WARNING_INTERVAL_MS = 10_000;

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

/** The keys of the cluster's own families, by family (fixed: one array each for the life of the process). */
const CLUSTER_KEYS = new Map<string, readonly string[]>();

/** The cluster's own families: workers, timeouts, and what was dropped, folded or refused. */
function clusterFamilies(coordinator: ClusterCoordinator): KeyedFamily[] {
  // The same keys array every scrape, so the renderer copies its bytes rather than encoding it again.
  const family = (name: string, type: 'counter' | 'gauge', help: string, keys: string[], values: number[]): KeyedFamily => {
    let kept = CLUSTER_KEYS.get(name);
    if (kept === undefined) CLUSTER_KEYS.set(name, (kept = keys));
    return { name, type, help, keys: kept, values, start: 0 };
  };
  const dropped = coordinator.samplesDropped;
  const retired = coordinator.retired;
  return [
    family('fabric_ops_cluster_workers', 'gauge', 'Workers that have joined the operations endpoint and not exited.', ['fabric_ops_cluster_workers'], [coordinator.liveCount()]),
    family(
      'fabric_ops_cluster_worker_timeouts_total',
      'counter',
      'Requests to workers (scrape, health, spec change) not answered in time; the scrape used their last counts.',
      ['fabric_ops_cluster_worker_timeouts_total'],
      [coordinator.timeouts],
    ),
    family(
      'fabric_ops_cluster_messages_dropped_total',
      'counter',
      'Messages from workers dropped because they do not fit the cluster protocol (shape, types, sizes, a negative counter delta, a hello past the greeting bounds).',
      ['fabric_ops_cluster_messages_dropped_total'],
      [coordinator.dropped],
    ),
    family(
      'fabric_ops_cluster_samples_dropped_total',
      'counter',
      "Samples of workers' metrics replies left out, per reply: past the primary's limits, not in the exposition grammar (or a reserved name, or another type than the family's), or a counter value that is not finite and at least 0.",
      ['fabric_ops_cluster_samples_dropped_total{reason="limit"}', 'fabric_ops_cluster_samples_dropped_total{reason="invalid"}', 'fabric_ops_cluster_samples_dropped_total{reason="value"}'],
      [dropped.limit, dropped.invalid, dropped.value],
    ),
    family(
      'fabric_ops_cluster_counter_resets_total',
      'counter',
      "Counter and histogram samples that went down in a worker's reply, taken as that worker's reset.",
      ['fabric_ops_cluster_counter_resets_total'],
      [coordinator.resets],
    ),
    family('fabric_ops_cluster_retired_series', 'gauge', "Series kept of exited workers' counts.", ['fabric_ops_cluster_retired_series'], [retired.series]),
    family('fabric_ops_cluster_retired_folded_total', 'counter', "Exited workers' series added into the kept counts.", ['fabric_ops_cluster_retired_folded_total'], [retired.folded]),
    family(
      'fabric_ops_cluster_retired_dropped_total',
      'counter',
      "Exited workers' series dropped because the kept counts were at their bound.",
      ['fabric_ops_cluster_retired_dropped_total'],
      [retired.dropped],
    ),
    family(
      'fabric_ops_cluster_sends_refused_total',
      'counter',
      "Messages to workers not sent because that worker's queue was at its bound.",
      ['fabric_ops_cluster_sends_refused_total'],
      [coordinator.sendsRefused],
    ),
  ];
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
  if (!Number.isFinite(workerTimeoutMs) || workerTimeoutMs <= 0)
    throw new OpsServerError('INVALID_OPTIONS', `cluster.workerTimeoutMs: expected a positive number of milliseconds, got ${String(workerTimeoutMs)}`);
  const departedTtlMs = settings.departedTtlMs ?? 60_000;
  if (!Number.isFinite(departedTtlMs) || departedTtlMs <= 0)
    throw new OpsServerError('INVALID_OPTIONS', `cluster.departedTtlMs: expected a positive number of milliseconds, got ${String(departedTtlMs)}`);

  // A push waits for the workers at most this long, so pushes keep the writeInterval rhythm.
  const statsdWaitMs =
    options.metrics?.provider === 'statsd' && options.metrics.statsd !== undefined ? Math.max(1, Math.min(workerTimeoutMs, options.metrics.statsd.writeIntervalMs / 2)) : workerTimeoutMs;
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
  // Dropped messages are counted always and warned about at most once per interval, so a
  // worker flooding bad messages cannot flood the log too.
  let lastDropWarning = -Infinity;
  let dropsUnwarned = 0;
  const warnDropped = (worker: string, reason: string) => {
    const now = Date.now();
    if (now - lastDropWarning < DROP_WARNING_INTERVAL_MS) {
      dropsUnwarned++;
      return;
    }
    lastDropWarning = now;
    created.logging.getLogger(DEFAULT_OPERATIONS_LOGGER_NAME).warn({ worker, reason, droppedSinceLastWarning: dropsUnwarned }, 'dropped a worker message that does not fit the cluster protocol');
    dropsUnwarned = 0;
  };
  const coordinator = new ClusterCoordinator({
    workerTimeoutMs,
    metricsKind,
    activeSpec: () => system?.logging.spec() ?? '',
    departedTtlMs,
    ...workerBounds(settings),
    ...(settings.gaugeRules === undefined ? {} : { gaugeRules: settings.gaugeRules }),
    ...(settings.defaultGaugeRule === undefined ? {} : { defaultGaugeRule: settings.defaultGaugeRule }),
    onEvent: (event) => {
      if (event.type === 'timeout') return;
      if (event.type === 'dropped') {
        warnDropped(event.worker, event.reason);
        return;
      }
      if (event.type === 'failed') created.logging.getLogger(DEFAULT_OPERATIONS_LOGGER_NAME).warn({ worker: event.worker, reason: event.reason }, 'a worker will not join the operations endpoint');
      reconcileHealth();
    },
  });

  let specChanges: Promise<void> = Promise.resolve();
  let specChangesHeld = 0;
  const extensions: SystemExtensions = {
    // The cluster's own families are made after the workers have answered (not declared on the
    // provider, whose own series are taken before they are asked), so a scrape counts its own
    // timeouts and drops.
    aggregateMetrics: async (own, cancel) => [...(await coordinator.collectMetrics(own, cancel)), ...clusterFamilies(coordinator)],
    aggregateStatsd: async (own) => withClusterBuckets(await coordinator.collectStatsd(own, statsdWaitMs)),
    // One change at a time, so every worker ends on the spec whose 204 was sent last: the
    // handler activates a spec as soon as its broadcast resolves, before the next one starts.
    // The queue is bounded: a change waits at most for the one before it (each bounded by the
    // worker timeout, once per unresponsive worker), and past SPEC_CHANGE_QUEUE_LIMIT held
    // changes a PUT is refused with 503 rather than held.
    beforeSpecChange: (spec) => {
      if (specChangesHeld > SPEC_CHANGE_QUEUE_LIMIT) {
        return Promise.reject(
          new OpsServerError('SPEC_CHANGES_BUSY', `${SPEC_CHANGE_QUEUE_LIMIT} logging spec changes are already waiting behind the one reaching the workers; nothing was changed, try again shortly`),
        );
      }
      specChangesHeld++;
      const broadcast = specChanges
        .then(() => coordinator.broadcastSpec(spec))
        .then((late) => {
          if (late.length > 0)
            created.logging
              .getLogger(DEFAULT_OPERATIONS_LOGGER_NAME)
              .warn({ workers: late, spec }, 'workers did not acknowledge the logging spec in time; each gets the active spec when it answers again');
        })
        .finally(() => specChangesHeld--);
      specChanges = broadcast;
      return broadcast;
    },
  };
  // `cluster` is this entry's own section; the system refuses keys it does not know.
  const { cluster: _cluster, ...systemOptions } = options;
  const created = createOperationsSystem({ ...systemOptions, [SYSTEM_EXTENSIONS]: extensions } as OperationsSystemOptions) as ExtendedSystem;
  // StatsD: the cluster's own metrics under Fabric's naming (namespace.subsystem.name); the
  // counters are pushed as the delta since the last push, as every StatsD counter is.
  let timeoutsPushed = 0;
  let droppedPushed = 0;
  const withClusterBuckets = (interval: StatsdInterval): StatsdInterval => {
    const timeouts = coordinator.timeouts - timeoutsPushed;
    timeoutsPushed = coordinator.timeouts;
    const dropped = coordinator.dropped - droppedPushed;
    droppedPushed = coordinator.dropped;
    const counters: (readonly [string, number])[] = [...interval.counters];
    if (timeouts > 0) counters.push(['fabric_ops.cluster.worker_timeouts_total', timeouts]);
    if (dropped > 0) counters.push(['fabric_ops.cluster.messages_dropped_total', dropped]);
    return {
      counters,
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
