import { isCumulative, mergeExpositions, parseExposition, type Exposition, type GaugeRule, type ParsedFamily } from './exposition.ts';
import { isProtocolMessage, PROTOCOL_TAG, type PrimaryMessage, type WorkerChannel, type WorkerHealth, type WorkerMessage, type WorkerRequest } from './protocol.ts';

export interface CoordinatorOptions {
  /** How long the primary waits for one worker's answer (metrics, health, a spec change). */
  readonly workerTimeoutMs: number;
  readonly gaugeRules?: Readonly<Record<string, GaugeRule>>;
  readonly defaultGaugeRule?: GaugeRule;
  /** The spec a joining worker starts with. */
  readonly activeSpec: () => string;
  /** Told about workers that joined, exited or did not answer in time. */
  readonly onEvent?: (event: CoordinatorEvent) => void;
}

export type CoordinatorEvent =
  | { readonly type: 'joined'; readonly worker: string }
  | { readonly type: 'exited'; readonly worker: string; readonly reason: string }
  | { readonly type: 'timeout'; readonly worker: string; readonly op: string };

interface Pending {
  readonly resolve: (message: Extract<WorkerMessage, { type: 'reply' }> | undefined) => void;
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
  timeouts = 0;

  constructor(private readonly options: CoordinatorOptions) {}

  /** Starts following a worker (a node:cluster Worker, a forked ChildProcess, or anything with its channel). */
  attach(name: string, channel: WorkerChannel): void {
    if (this.workers.get(name)?.alive) return;
    const tracked: Tracked = { name, channel, ready: false, alive: true, pending: new Map(), last: undefined };
    this.workers.set(name, tracked);
    const init = () => this.send(tracked, { tag: PROTOCOL_TAG, type: 'init', spec: this.options.activeSpec() });
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
      } else if (typed.type === 'reply') {
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

  private request(tracked: Tracked, message: WorkerRequest): Promise<Extract<WorkerMessage, { type: 'reply' }> | undefined> {
    const id = this.nextRequestId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        tracked.pending.delete(id);
        this.timeouts++;
        this.options.onEvent?.({ type: 'timeout', worker: tracked.name, op: message.op });
        resolve(undefined);
      }, this.options.workerTimeoutMs);
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
