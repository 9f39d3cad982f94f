import { isCumulative, mergeExpositions, parseExposition, type Exposition, type GaugeRule, type ParsedFamily } from './exposition.ts';
import type { StatsdInterval } from '@fabric-ops/ops-metrics';
import { isProtocolMessage, PROTOCOL_TAG, type ClusterMetricsKind, type PrimaryMessage, type WorkerChannel, type WorkerHealth, type WorkerMessage, type WorkerRequest } from './protocol.ts';
import { decodeStatsdInterval, mergeStatsdIntervals, type StatsdMergeInput, type WireStatsdInterval } from './statsd-merge.ts';

export interface CoordinatorOptions {
  /** How long the primary waits for one worker's answer (metrics, health, a spec change). */
  readonly workerTimeoutMs: number;
  readonly gaugeRules?: Readonly<Record<string, GaugeRule>>;
  readonly defaultGaugeRule?: GaugeRule;
  /** The spec a joining worker starts with. */
  readonly activeSpec: () => string;
  /** The primary's metrics provider, told to every worker (statsd: workers keep their intervals for the primary's push). Default prometheus. */
  readonly metricsKind?: ClusterMetricsKind;
  /** Told about workers that joined, exited or did not answer in time. */
  readonly onEvent?: (event: CoordinatorEvent) => void;
}

export type CoordinatorEvent =
  | { readonly type: 'joined'; readonly worker: string }
  | { readonly type: 'exited'; readonly worker: string; readonly reason: string }
  | { readonly type: 'timeout'; readonly worker: string; readonly op: string };

type Reply = Extract<WorkerMessage, { type: 'reply' }>;

interface Pending {
  readonly resolve: (message: Reply | undefined) => void;
  readonly timer: NodeJS.Timeout;
}

interface Tracked {
  readonly name: string;
  readonly channel: WorkerChannel;
  ready: boolean;
  alive: boolean;
  readonly pending: Map<number, Pending>;
  /** Its exposition as last reported, kept so its counts survive its death or a hang. */
  last: Exposition | undefined;
  /**
   * Requests that timed out but whose answer still matters when it comes: a StatsD interval the
   * worker has already handed over (and forgotten) must reach a push, late, not be lost.
   */
  readonly late: Map<number, (reply: Reply) => void>;
}

/** Adds the cumulative series (counters, histograms, summary sums and counts) of `exposition` into `into`. */
function addCumulative(into: Map<string, { family: ParsedFamily; value: number }>, exposition: Exposition | undefined): void {
  if (exposition === undefined) return;
  for (const family of exposition.values()) {
    for (const series of family.series) {
      if (!isCumulative(family, series.key)) continue;
      const kept = into.get(series.key);
      into.set(series.key, { family, value: (kept?.value ?? 0) + series.value });
    }
  }
}

export interface WorkerStatus {
  readonly worker: string;
  readonly alive: boolean;
  readonly ready: boolean;
}

/**
 * The primary's view of its workers: who is alive, their answers with a deadline, and what
 * dead workers had counted (so sums over the cluster never go down when one is replaced).
 */
export class ClusterCoordinator {
  private readonly workers = new Map<string, Tracked>();
  /** Counters and histogram samples of workers that have exited, summed. */
  private readonly retired = new Map<string, { family: ParsedFamily; value: number }>();
  /** Workers that exited and have not been replaced yet, for /healthz: name → why. */
  private readonly departed = new Map<string, string>();
  private nextRequestId = 1;
  /** StatsD intervals that arrived outside a flush (late answers, closing workers): pushed with the next one. */
  private carried: StatsdMergeInput[] = [];
  timeouts = 0;

  constructor(private readonly options: CoordinatorOptions) {}

  /** Starts following a worker (a node:cluster Worker, a forked ChildProcess, or anything with its channel). */
  attach(name: string, channel: WorkerChannel): void {
    if (this.workers.get(name)?.alive) return;
    const tracked: Tracked = { name, channel, ready: false, alive: true, pending: new Map(), last: undefined, late: new Map() };
    this.workers.set(name, tracked);
    const init = () => this.send(tracked, { tag: PROTOCOL_TAG, type: 'init', spec: this.options.activeSpec(), metrics: this.options.metricsKind ?? 'prometheus' });
    channel.on('message', (message) => {
      if (!isProtocolMessage(message)) return;
      const typed = message as WorkerMessage;
      if (typed.type === 'hello') init();
      else if (typed.type === 'ready') {
        // A spec changed while the greeting was on its way: greet again with the current one.
        if (typed.spec !== this.options.activeSpec()) {
          init();
          return;
        }
        if (tracked.ready) return;
        tracked.ready = true;
        // A replacement takes the place of the oldest departed worker in /healthz once it serves.
        const oldestDeparted = this.departed.keys().next();
        if (!oldestDeparted.done) this.departed.delete(oldestDeparted.value);
        this.options.onEvent?.({ type: 'joined', worker: name });
      } else if (typed.type === 'statsd-final') {
        this.carry(name, typed.statsd);
      } else if (typed.type === 'reply') {
        const late = tracked.late.get(typed.id);
        if (late !== undefined) {
          tracked.late.delete(typed.id);
          late(typed);
          return;
        }
        const pending = tracked.pending.get(typed.id);
        if (pending === undefined) return;
        tracked.pending.delete(typed.id);
        clearTimeout(pending.timer);
        pending.resolve(typed);
      }
    });
    channel.on('error', () => {});
    channel.on('exit', (code, signal) => this.exited(tracked, signal === null ? `exited with code ${code ?? 0}` : `killed by ${signal}`));
    // A worker that joined before the primary attached it said hello to nobody: greet it now.
    init();
  }

  private exited(tracked: Tracked, reason: string): void {
    if (!tracked.alive) return;
    tracked.alive = false;
    tracked.ready = false;
    for (const pending of tracked.pending.values()) {
      clearTimeout(pending.timer);
      pending.resolve(undefined);
    }
    tracked.pending.clear();
    tracked.late.clear();
    addCumulative(this.retired, tracked.last);
    this.workers.delete(tracked.name);
    this.departed.set(tracked.name, reason);
    this.options.onEvent?.({ type: 'exited', worker: tracked.name, reason });
  }

  private send(tracked: Tracked, message: PrimaryMessage): boolean {
    try {
      // A worker that just died has a closed channel: the failure must not become an unhandled
      // 'error' event that takes the primary down; its 'exit' is on its way.
      tracked.channel.send(message, () => {});
      return true;
    } catch {
      return false;
    }
  }

  private request(tracked: Tracked, message: WorkerRequest, { timeoutMs = this.options.workerTimeoutMs, onLate }: { timeoutMs?: number; onLate?: (reply: Reply) => void } = {}): Promise<Reply | undefined> {
    const id = this.nextRequestId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        tracked.pending.delete(id);
        if (onLate !== undefined) tracked.late.set(id, onLate);
        this.timeouts++;
        this.options.onEvent?.({ type: 'timeout', worker: tracked.name, op: message.op });
        resolve(undefined);
      }, timeoutMs);
      timer.unref();
      tracked.pending.set(id, { resolve, timer });
      if (!this.send(tracked, { tag: PROTOCOL_TAG, type: 'request', id, ...message })) {
        clearTimeout(timer);
        tracked.pending.delete(id);
        resolve(undefined);
      }
    });
  }

  private readyWorkers(): Tracked[] {
    return [...this.workers.values()].filter((worker) => worker.alive && worker.ready);
  }

  status(): WorkerStatus[] {
    return [...this.workers.values()].map((worker) => ({ worker: worker.name, alive: worker.alive, ready: worker.ready }));
  }

  liveCount(): number {
    return this.readyWorkers().length;
  }

  departedWorkers(): ReadonlyMap<string, string> {
    return this.departed;
  }

  /**
   * The cluster's exposition: the primary's own text plus every ready worker's, merged. A worker
   * that does not answer within the timeout contributes the cumulative series it last reported
   * (never less, so `rate()` sees no reset) and is counted in `timeouts`.
   */
  async collectMetrics(own: string): Promise<string> {
    const workers = this.readyWorkers();
    const replies = await Promise.all(workers.map((worker) => this.request(worker, { op: 'metrics' })));
    const inputs: { worker: string; exposition: Exposition }[] = [{ worker: 'primary', exposition: parseExposition(own) }];
    const stale = new Map<string, { family: ParsedFamily; value: number }>(this.retired);
    workers.forEach((worker, i) => {
      const reply = replies[i];
      if (reply?.ok === true && typeof reply.metrics === 'string') {
        const exposition = parseExposition(reply.metrics);
        worker.last = exposition;
        inputs.push({ worker: worker.name, exposition });
        return;
      }
      addCumulative(stale, worker.last);
    });
    const merged = mergeExpositions(inputs, {
      retired: stale,
      ...(this.options.gaugeRules === undefined ? {} : { gaugeRules: this.options.gaugeRules }),
      ...(this.options.defaultGaugeRule === undefined ? {} : { defaultGaugeRule: this.options.defaultGaugeRule }),
    });
    return merged;
  }

  private carry(worker: string, interval: WireStatsdInterval | undefined): void {
    if (interval !== undefined) this.carried.push({ worker, interval: decodeStatsdInterval(interval) });
  }

  /**
   * The interval the primary pushes: its own plus every ready worker's, merged by bucket, plus
   * what arrived since the last flush from workers that answered late or were closing. A worker
   * that does not answer within `timeoutMs` is left out and counted in `timeouts`; its answer,
   * when it comes, goes into the next push. One that still owes an answer is not asked again
   * (left out and counted), so a hung worker never holds more than one request.
   */
  async collectStatsd(own: StatsdInterval, timeoutMs: number = this.options.workerTimeoutMs): Promise<StatsdInterval> {
    const asked: Tracked[] = [];
    for (const worker of this.readyWorkers()) {
      if (worker.late.size === 0) {
        asked.push(worker);
        continue;
      }
      this.timeouts++;
      this.options.onEvent?.({ type: 'timeout', worker: worker.name, op: 'statsd' });
    }
    const replies = await Promise.all(
      asked.map((worker) => this.request(worker, { op: 'statsd' }, { timeoutMs, onLate: (reply) => this.carry(worker.name, reply.ok ? reply.statsd : undefined) })),
    );
    const answered: StatsdMergeInput[] = [];
    asked.forEach((worker, i) => {
      const reply = replies[i];
      if (reply?.ok === true && reply.statsd !== undefined) answered.push({ worker: worker.name, interval: decodeStatsdInterval(reply.statsd) });
    });
    // A late interval's counts and timings are owed to the push; its gauges are stale beside a
    // fresh answer from the same worker (and would be added twice under the `sum` rule).
    const fresh = new Set(answered.map((input) => input.worker));
    const carried = this.carried.map((input) => (fresh.has(input.worker) ? { worker: input.worker, interval: { ...input.interval, gauges: [] } } : input));
    this.carried = [];
    const inputs: StatsdMergeInput[] = [{ worker: 'primary', interval: own }, ...carried, ...answered];
    return mergeStatsdIntervals(inputs, {
      ...(this.options.gaugeRules === undefined ? {} : { gaugeRules: this.options.gaugeRules }),
      ...(this.options.defaultGaugeRule === undefined ? {} : { defaultGaugeRule: this.options.defaultGaugeRule }),
    });
  }

  /** Each ready worker's health, or why it has none: `undefined` entries did not answer in time. */
  async collectHealth(): Promise<Map<string, WorkerHealth | undefined>> {
    const workers = this.readyWorkers();
    const replies = await Promise.all(workers.map((worker) => this.request(worker, { op: 'health' })));
    const result = new Map<string, WorkerHealth | undefined>();
    workers.forEach((worker, i) => {
      const reply = replies[i];
      result.set(worker.name, reply?.ok === true ? reply.health : undefined);
    });
    return result;
  }

  /** One worker's health as a checker sees it: resolves when healthy, throws naming what failed. */
  async checkWorker(name: string): Promise<void> {
    const worker = this.workers.get(name);
    if (worker === undefined || !worker.alive) throw new Error(`worker ${name} ${this.departed.get(name) ?? 'is gone'}`);
    if (!worker.ready) throw new Error(`worker ${name} has not joined yet`);
    const reply = await this.request(worker, { op: 'health' });
    if (reply === undefined) throw new Error(`worker ${name} did not answer within ${this.options.workerTimeoutMs} ms`);
    if (!reply.ok) throw new Error(`worker ${name}: ${reply.error}`);
    const failed = reply.health?.failed ?? [];
    if (failed.length > 0) throw new Error(`worker ${name}: ${failed.map((check) => `${check.component}: ${check.reason}`).join('; ')}`);
  }

  /**
   * Applies a validated spec on every ready worker and waits for each to acknowledge (or the
   * timeout). Workers that did not answer have the change queued on their channel and apply
   * it once their event loop runs again; their names are returned.
   */
  async broadcastSpec(spec: string): Promise<string[]> {
    const workers = this.readyWorkers();
    const replies = await Promise.all(workers.map((worker) => this.request(worker, { op: 'logspec', spec })));
    return workers.filter((_, i) => replies[i]?.ok !== true).map((worker) => worker.name);
  }
}
