import { normaliseSpec } from '@fabric-ops/ops-logspec/spec';
import type { StatsdInterval } from '@fabric-ops/ops-metrics';
import { createSeriesMerger, keyLayouts, withValues, type SeriesMerger, type GaugeRule, type KeyedFamily, type ScrapeCancelToken, type SeriesSnapshot } from '@fabric-ops/ops-metrics/cluster';
import { DEFAULT_GAUGE_RULES } from './gauge-rules.ts';
import { RetiredSeries, type RetiredLimits } from './retired.ts';
import { takeSeriesReply, type ApplyCounts, type WorkerSeries, type DropReason, type SeriesLimits } from './worker-series.ts';
import { isProtocolMessage, PROTOCOL_TAG, type ClusterMetricsKind, type PrimaryMessage, type WorkerChannel, type WorkerHealth, type WorkerMessage, type WorkerRequest } from './protocol.ts';
import { decodeStatsdInterval, mergeStatsdIntervals, type StatsdMergeInput, type WireStatsdInterval } from './statsd-merge.ts';
import { checkWorkerMessage } from './validate.ts';

/** At most this many departed workers are named in /healthz; the oldest entry gives way. */
export const DEPARTED_LIMIT = 16;
/** Greetings a joining worker gets whose answer names another spec; past them it is failed. */
export const GREETING_LIMIT = 4;
/**
 * Greetings (`init`) one worker gets in all: a greeting costs the whole active spec, so a worker
 * that keeps saying hello cannot make the primary copy it without end.
 */
export const GREETINGS_PER_WORKER = 16;
/** Specs up to this length are compared normalised (parsing is cheap there); longer ones as text. */
const NORMALISE_LIMIT = 64 * 1024;

export interface CoordinatorOptions {
  /** How long the primary waits for one worker's answer (metrics, health, a spec change). */
  readonly workerTimeoutMs: number;
  readonly gaugeRules?: Readonly<Record<string, GaugeRule>>;
  readonly defaultGaugeRule?: GaugeRule;
  /** The spec a joining worker starts with. */
  readonly activeSpec: () => string;
  /** The primary's metrics provider, told to every worker (statsd: workers keep their intervals for the primary's push). Default prometheus. */
  readonly metricsKind?: ClusterMetricsKind;
  /** How long a departed worker stays named in /healthz when no replacement joins. Default 60 s. */
  readonly departedTtlMs?: number;
  /** What the primary holds of one worker's series (default DEFAULT_SERIES_LIMITS). */
  readonly seriesLimits?: SeriesLimits;
  /** What it holds of exited workers' counts (default DEFAULT_RETIRED_LIMITS). */
  readonly retiredLimits?: RetiredLimits;
  /** Bytes of messages to one worker that may wait for its channel; a send past it is refused. Default 8 MiB. */
  readonly maxQueuedBytes?: number;
  /** Told about workers that joined, exited, failed, did not answer in time, or sent what the protocol does not allow. */
  readonly onEvent?: (event: CoordinatorEvent) => void;
}

export type CoordinatorEvent =
  | { readonly type: 'joined'; readonly worker: string }
  | { readonly type: 'exited'; readonly worker: string; readonly reason: string }
  | { readonly type: 'timeout'; readonly worker: string; readonly op: string }
  /** A worker's message did not fit the protocol and was dropped (counted in `dropped`). */
  | { readonly type: 'dropped'; readonly worker: string; readonly reason: string }
  /** A worker that will not join (it refused the spec); reported in /healthz until it exits. */
  | { readonly type: 'failed'; readonly worker: string; readonly reason: string }
  /** Departed entries ended by their time bound. */
  | { readonly type: 'expired' };

type Reply = Extract<WorkerMessage, { type: 'reply' }>;

export const DEFAULT_SERIES_LIMITS: SeriesLimits = { samples: 200_000, replyBytes: 8 * 1024 * 1024 };
export const DEFAULT_RETIRED_LIMITS: RetiredLimits = { series: 50_000, chars: 4 * 1024 * 1024 };
export const DEFAULT_MAX_QUEUED_BYTES: number = 8 * 1024 * 1024;

interface Pending {
  readonly resolve: (message: Reply | undefined) => void;
  readonly timer: NodeJS.Timeout;
}

interface Tracked {
  readonly name: string;
  readonly channel: WorkerChannel;
  ready: boolean;
  alive: boolean;
  /** Ever joined: a worker that dies before joining replaces nobody and leaves no counts. */
  joinedOnce: boolean;
  readonly pending: Map<number, Pending>;
  /**
   * Its series as last reported (the answer to its newest request, `lastId`), kept so its
   * counts survive its death or a hang. Moved into `retired` in the same turn as its exit.
   */
  series: WorkerSeries | undefined;
  lastId: number;
  /** The values of its last reply taken, as sent, and that reply's `seq` (worker-series.ts' HeldValues). */
  wire: Float64Array | undefined;
  wireSeq: number | undefined;
  /** A layout being checked (one at a time per worker). */
  checking: boolean;
  /** A greeting sent and not yet answered with `ready`: hellos meanwhile are dropped. */
  greeting: boolean;
  greetings: number;
  /** Bytes of messages sent to it whose write has not completed. */
  queuedBytes: number;
  /**
   * Requests that timed out but whose answer still matters when it comes: a StatsD interval the
   * worker has already handed over (and forgotten) must reach a push, late, not be lost.
   */
  readonly late: Map<number, (reply: Reply) => void>;
  /** Missed a deadline and has not said anything since: spec changes do not wait for it. */
  unresponsive: boolean;
  /** The spec of the last greeting sent, and how many greetings were answered with another spec. */
  greetedWith: string;
  mismatches: number;
  /** Why it will never join (it refused the spec), once decided. */
  failed: string | undefined;
}

interface Departed {
  readonly reason: string;
  readonly until: number;
  readonly joinedOnce: boolean;
}

/** A scrape's request to one worker: the layout and the values the primary holds of it. */
function metricsRequest(worker: Tracked): WorkerRequest {
  if (worker.series === undefined) return { op: 'metrics' };
  const layout = worker.series.layout.id;
  return worker.wireSeq === undefined ? { op: 'metrics', layout } : { op: 'metrics', layout, values: worker.wireSeq };
}

/** What a message costs queued: its spec (if any) plus the envelope, near enough to bound memory. */
function queuedSize(message: PrimaryMessage): number {
  return 256 + ('spec' in message && typeof message.spec === 'string' ? message.spec.length : 0);
}

/** The form two spellings of one spec share; a spec that does not parse stays as written. */
function comparable(spec: string): string {
  if (spec.length > NORMALISE_LIMIT) return spec;
  try {
    return normaliseSpec(spec);
  } catch {
    return spec;
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
 *
 * Counting rule for /metrics: a scrape adds up, per cumulative series, the primary's own value,
 * each live joined worker's newest report (`last`) and `retired`. A worker's report only ever
 * replaces an older one, and its exit moves that report into `retired` in the same turn, so at
 * every moment each worker is counted exactly once and the sum never goes down.
 */
export class ClusterCoordinator {
  private readonly workers = new Map<string, Tracked>();
  /** Counters and histogram samples of workers that have exited, summed. */
  readonly retired: RetiredSeries;
  /** Workers that exited and have not been replaced yet, for /healthz: name → why, oldest first. */
  private readonly departed = new Map<string, Departed>();
  private departedTimer: NodeJS.Timeout | undefined;
  private nextRequestId = 1;
  /** StatsD intervals that arrived outside a flush (late answers, closing workers): pushed with the next one. */
  private carried: StatsdMergeInput[] = [];
  /** The spec a change in progress is applying (workers joining meanwhile get it too). */
  private broadcasting: string | undefined;
  timeouts = 0;
  /** Worker messages dropped because they did not fit the protocol. */
  dropped = 0;
  /** Samples of worker replies left out of a merge, by reason, per reply. */
  readonly samplesDropped: Record<DropReason, number> = { limit: 0, invalid: 0, value: 0 };
  /** Counter and histogram samples that went down: taken as that worker's reset. */
  resets = 0;
  /** Messages to workers not sent because the worker's queue was full. */
  sendsRefused = 0;
  private readonly seriesLimits: SeriesLimits;
  private readonly maxQueuedBytes: number;
  /** Keeps the merged keys between scrapes: with no layout changed, a merge adds numbers at the same positions. */
  private readonly merger: SeriesMerger;

  constructor(private readonly options: CoordinatorOptions) {
    this.merger = createSeriesMerger({
      gaugeRules: { ...DEFAULT_GAUGE_RULES, ...options.gaugeRules },
      ...(options.defaultGaugeRule === undefined ? {} : { defaultGaugeRule: options.defaultGaugeRule }),
    });
    this.seriesLimits = options.seriesLimits ?? DEFAULT_SERIES_LIMITS;
    this.retired = new RetiredSeries(options.retiredLimits ?? DEFAULT_RETIRED_LIMITS);
    this.maxQueuedBytes = options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES;
  }

  /** Starts following a worker (a node:cluster Worker, a forked ChildProcess, or anything with its channel). */
  attach(name: string, channel: WorkerChannel): void {
    if (this.workers.get(name)?.alive) return;
    const tracked: Tracked = {
      name,
      channel,
      ready: false,
      alive: true,
      joinedOnce: false,
      pending: new Map(),
      series: undefined,
      lastId: 0,
      wire: undefined,
      wireSeq: undefined,
      checking: false,
      greeting: false,
      greetings: 0,
      queuedBytes: 0,
      late: new Map(),
      unresponsive: false,
      greetedWith: '',
      mismatches: 0,
      failed: undefined,
    };
    this.workers.set(name, tracked);
    channel.on('message', (message) => {
      // Anything a worker sends must leave the primary standing: the listener never throws.
      try {
        this.receive(tracked, message);
      } catch (error) {
        this.drop(tracked, `handling the message failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    });
    channel.on('error', () => {});
    channel.on('exit', (code, signal) => this.exited(tracked, signal === null ? `exited with code ${code ?? 0}` : `killed by ${signal}`));
    // A worker that joined before the primary attached it said hello to nobody: greet it now.
    // Not an outstanding greeting: a worker not listening yet loses it, and its hello is answered.
    this.greet(tracked, false);
  }

  /**
   * Sends the active spec. At most one greeting answering a hello is outstanding (until `ready`),
   * and a worker gets GREETINGS_PER_WORKER in all: hellos past them are dropped and counted.
   */
  private greet(tracked: Tracked, outstanding = true): void {
    if (tracked.failed !== undefined || !tracked.alive) return;
    if (tracked.greetings >= GREETINGS_PER_WORKER) {
      this.drop(tracked, `hello: already greeted ${GREETINGS_PER_WORKER} times`);
      return;
    }
    tracked.greetedWith = this.options.activeSpec();
    if (!this.send(tracked, { tag: PROTOCOL_TAG, type: 'init', spec: tracked.greetedWith, metrics: this.options.metricsKind ?? 'prometheus' })) return;
    tracked.greetings++;
    if (outstanding) tracked.greeting = true;
  }

  private drop(tracked: Tracked, reason: string): void {
    this.dropped++;
    this.options.onEvent?.({ type: 'dropped', worker: tracked.name, reason });
  }

  private receive(tracked: Tracked, message: unknown): void {
    if (!isProtocolMessage(message)) return;
    const checked = checkWorkerMessage(message);
    if (!checked.ok) {
      this.drop(tracked, checked.reason);
      // A malformed answer is no answer: the request ends now rather than at its deadline.
      if (checked.id !== undefined) {
        tracked.late.delete(checked.id);
        this.settle(tracked, checked.id, undefined);
      }
      return;
    }
    if (!tracked.alive) return;
    const typed = checked.message;
    if (tracked.unresponsive) {
      // It speaks again: from now on changes wait for it, and it gets the spec it missed.
      tracked.unresponsive = false;
      if (tracked.ready) void this.request(tracked, { op: 'logspec', spec: this.broadcasting ?? this.options.activeSpec() });
    }
    if (typed.type === 'hello') {
      if (tracked.greeting) this.drop(tracked, 'hello: a greeting is already on its way');
      else this.greet(tracked);
    } else if (typed.type === 'ready') {
      tracked.greeting = false;
      this.readied(tracked, typed.spec);
    } else if (typed.type === 'statsd-final') this.carry(tracked.name, typed.statsd);
    else if (typed.type === 'reply') {
      const late = tracked.late.get(typed.id);
      if (late !== undefined) {
        tracked.late.delete(typed.id);
        late(typed);
        return;
      }
      this.settle(tracked, typed.id, typed);
    }
  }

  private settle(tracked: Tracked, id: number, reply: Reply | undefined): void {
    const pending = tracked.pending.get(id);
    if (pending === undefined) return;
    tracked.pending.delete(id);
    clearTimeout(pending.timer);
    pending.resolve(reply);
  }

  /**
   * A worker says which spec it runs. The same spec (in any spelling) joins it. Another spec is
   * either an answer to an older greeting (the spec changed since: greet again, which converges)
   * or a refusal (it was greeted with the current spec): then it is failed, once, and nothing
   * more is sent, so a disagreement costs a few messages, never a storm.
   */
  private readied(tracked: Tracked, spec: string): void {
    if (tracked.ready || tracked.failed !== undefined) return;
    const active = this.options.activeSpec();
    if (spec !== active && comparable(spec) !== comparable(active)) {
      tracked.mismatches++;
      const stale = comparable(tracked.greetedWith) !== comparable(active);
      if (stale && tracked.mismatches < GREETING_LIMIT) {
        this.greet(tracked);
        return;
      }
      const shown = spec.length > 256 ? `${spec.slice(0, 256)}…` : spec;
      tracked.failed = `refused the logging spec: it runs ${JSON.stringify(shown)} after ${tracked.mismatches} greeting(s) with the active spec`;
      this.options.onEvent?.({ type: 'failed', worker: tracked.name, reason: tracked.failed });
      return;
    }
    tracked.ready = true;
    tracked.joinedOnce = true;
    // A replacement takes the place of the oldest departed worker in /healthz once it serves.
    // Workers that died before ever joining were attempts at this replacement: they end with it.
    for (const [name, entry] of this.departed) if (!entry.joinedOnce) this.departed.delete(name);
    const oldest = this.departed.keys().next();
    if (!oldest.done) this.departed.delete(oldest.value);
    // A change in progress skipped it (it was not joined when the change began).
    if (this.broadcasting !== undefined && comparable(this.broadcasting) !== comparable(spec)) void this.request(tracked, { op: 'logspec', spec: this.broadcasting });
    this.options.onEvent?.({ type: 'joined', worker: tracked.name });
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
    if (tracked.series !== undefined) this.retired.retire(tracked.series);
    tracked.series = undefined;
    this.workers.delete(tracked.name);
    while (this.departed.size >= DEPARTED_LIMIT) this.departed.delete(this.departed.keys().next().value!);
    this.departed.set(tracked.name, { reason: tracked.failed === undefined ? reason : `${reason} (it ${tracked.failed})`, until: Date.now() + this.departedTtlMs(), joinedOnce: tracked.joinedOnce });
    this.scheduleExpiry();
    this.options.onEvent?.({ type: 'exited', worker: tracked.name, reason });
  }

  private departedTtlMs(): number {
    return this.options.departedTtlMs ?? 60_000;
  }

  /** Ends departed entries past their bound; one unref'd timer for the oldest. */
  private scheduleExpiry(): void {
    if (this.departedTimer !== undefined) return;
    const oldest = this.departed.values().next();
    if (oldest.done) return;
    this.departedTimer = setTimeout(
      () => {
        this.departedTimer = undefined;
        const now = Date.now();
        let expired = false;
        for (const [name, entry] of this.departed) {
          if (entry.until > now) break;
          this.departed.delete(name);
          expired = true;
        }
        this.scheduleExpiry();
        if (expired) this.options.onEvent?.({ type: 'expired' });
      },
      Math.max(0, oldest.value.until - Date.now()) + 1,
    );
    this.departedTimer.unref();
  }

  /**
   * Sends unless the worker's queue is full: a worker that stops reading its channel would
   * otherwise have the primary hold every message meant for it. The bytes count until the write
   * completes (Node calls back then).
   */
  private send(tracked: Tracked, message: PrimaryMessage): boolean {
    const size = queuedSize(message);
    if (tracked.queuedBytes + size > this.maxQueuedBytes) {
      this.sendsRefused++;
      return false;
    }
    tracked.queuedBytes += size;
    let settled = false;
    const written = () => {
      if (settled) return;
      settled = true;
      tracked.queuedBytes -= size;
    };
    try {
      // A worker that just died has a closed channel: the failure must not become an unhandled
      // 'error' event that takes the primary down; its 'exit' is on its way.
      tracked.channel.send(message, written);
      return true;
    } catch {
      written();
      return false;
    }
  }

  private request(
    tracked: Tracked,
    message: WorkerRequest,
    { timeoutMs = this.options.workerTimeoutMs, onLate }: { timeoutMs?: number; onLate?: (reply: Reply) => void } = {},
  ): Promise<Reply | undefined> {
    const id = this.nextRequestId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        tracked.pending.delete(id);
        if (onLate !== undefined) tracked.late.set(id, onLate);
        tracked.unresponsive = true;
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

  /** Departed workers still named in /healthz: name → why. At most DEPARTED_LIMIT. */
  departedWorkers(): ReadonlyMap<string, string> {
    return new Map(Array.from(this.departed, ([name, entry]) => [name, entry.reason]));
  }

  /**
   * The cluster's series: the primary's own plus every live joined worker's newest report, plus
   * what exited workers had counted. A worker that does not answer within the timeout
   * contributes the series it last reported (never less, so `rate()` sees no reset) and is
   * counted in `timeouts`.
   */
  async collectMetrics(own: SeriesSnapshot, cancel?: ScrapeCancelToken): Promise<KeyedFamily[]> {
    const workers = this.readyWorkers();
    await Promise.all(
      workers.map(async (worker) => {
        const reply = await this.request(worker, metricsRequest(worker));
        // Kept as soon as it arrives (before any exit that follows it is handled), and only
        // if newer than what is held: concurrent scrapes may see their answers out of order.
        if (reply?.ok !== true || reply.metrics === undefined || !worker.alive || reply.id < worker.lastId) return;
        await this.take(worker, reply.id, reply.metrics);
      }),
    );
    const inputs = [{ worker: 'primary', families: withValues(keyLayouts(own.families), own.values) }];
    for (const worker of this.workers.values()) {
      if (worker.alive && worker.series !== undefined) inputs.push({ worker: worker.name, families: withValues(worker.series.layout.families, worker.series.values) });
    }
    inputs.push({ worker: 'retired', families: this.retired.keyed() });
    const merged = await this.merger.merge(inputs, cancel);
    this.samplesDropped.invalid += merged.conflicting;
    return merged.families;
  }

  /** Takes one worker's series reply (worker-series.ts), counting what it left out and dropping what it refused. */
  private async take(worker: Tracked, id: number, json: string): Promise<void> {
    const counts: ApplyCounts = { dropped: this.samplesDropped, resets: 0 };
    const refused = await takeSeriesReply(worker, id, json, this.seriesLimits, counts);
    this.resets += counts.resets;
    if (refused !== undefined) this.drop(worker, `reply: ${refused}`);
  }

  /** Decodes one worker's (checked) interval; one that cannot be read costs only that worker's interval. */
  private decoded(worker: string, interval: WireStatsdInterval | undefined): StatsdMergeInput | undefined {
    if (interval === undefined) return undefined;
    try {
      return { worker, interval: decodeStatsdInterval(interval) };
    } catch (error) {
      this.dropped++;
      this.options.onEvent?.({ type: 'dropped', worker, reason: `statsd: ${error instanceof Error ? error.message : String(error)}` });
      return undefined;
    }
  }

  private carry(worker: string, interval: WireStatsdInterval | undefined): void {
    const input = this.decoded(worker, interval);
    if (input !== undefined) this.carried.push(input);
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
    const replies = await Promise.all(asked.map((worker) => this.request(worker, { op: 'statsd' }, { timeoutMs, onLate: (reply) => this.carry(worker.name, reply.ok ? reply.statsd : undefined) })));
    const answered: StatsdMergeInput[] = [];
    asked.forEach((worker, i) => {
      const reply = replies[i];
      const input = reply?.ok === true ? this.decoded(worker.name, reply.statsd) : undefined;
      if (input !== undefined) answered.push(input);
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
    if (worker === undefined || !worker.alive) throw new Error(`worker ${name} ${this.departed.get(name)?.reason ?? 'is gone'}`);
    if (worker.failed !== undefined) throw new Error(`worker ${name} ${worker.failed}`);
    if (!worker.ready) throw new Error(`worker ${name} has not joined yet`);
    const reply = await this.request(worker, { op: 'health' });
    if (reply === undefined) throw new Error(`worker ${name} did not answer within ${this.options.workerTimeoutMs} ms`);
    if (!reply.ok) throw new Error(`worker ${name}: ${reply.error}`);
    const failed = reply.health?.failed ?? [];
    if (failed.length > 0) throw new Error(`worker ${name}: ${failed.map((check) => `${check.component}: ${check.reason}`).join('; ')}`);
  }

  /**
   * Applies a validated spec on every ready worker and waits for each to acknowledge (or the
   * timeout). A worker that missed a deadline and has not spoken since is not waited for (nor
   * sent the spec, which would only pile up on its channel): it gets the spec current when it
   * speaks again. The names of the workers not acknowledging are returned.
   */
  async broadcastSpec(spec: string): Promise<string[]> {
    const workers = this.readyWorkers();
    const waited = workers.filter((worker) => !worker.unresponsive);
    this.broadcasting = spec;
    try {
      const replies = await Promise.all(waited.map((worker) => this.request(worker, { op: 'logspec', spec })));
      const acknowledged = new Set(waited.filter((_, i) => replies[i]?.ok === true));
      return workers.filter((worker) => !acknowledged.has(worker)).map((worker) => worker.name);
    } finally {
      this.broadcasting = undefined;
    }
  }
}
