import { clientTrustPoolSteps, verifyClientChainWithin, type ClientTrustPool } from '@fabric-ops/go-x509';
import { createJobQueue, type JobQueue, type QueuedJob } from './job-queue.ts';
import { failingFile } from './trust-check.ts';
import { chainKey, createVerdictCache, type Verdict, type VerdictCache } from './verdict-cache.ts';
import { createThreadSlots, defaultWorkerCount, defaultWorkerFile, type FromWorker, type Slot, type ThreadSlots, type ToWorker } from './threads.ts';

export type { Verdict } from './verdict-cache.ts';

export interface ChainJudgeOptions {
  /** Chains waiting for a verifier at once; past this the lowest-ranked is refused ("busy"). Default 1024. */
  readonly maxQueued?: number;
  /** Bytes of chains waiting at once (the same rule). Default 16 MiB. */
  readonly maxQueuedBytes?: number;
  /** Verdicts remembered; the oldest go first. Default 4096. */
  readonly maxCached?: number;
  /** How long a verdict is reused, at most (never past a validity boundary in the chain or the pool). Default 10 000 ms. */
  readonly cacheTtlMs?: number;
  /** Verifier threads at most. Default: the machine's available parallelism, between 2 and 8. */
  readonly workers?: number;
  /** A verifier thread with nothing to check for this long is ended (the next check starts one). Default 30 000 ms. */
  readonly idleThreadMs?: number;
  /** A check running longer than this is abandoned (its thread replaced) and the chain refused. Default 10 000 ms. */
  readonly maxCheckMs?: number;
  /** A check on the small-chain verifier running longer than this moves to the others. Default 250 ms. */
  readonly expressBudgetMs?: number;
  /**
   * Called once per trust generation whose pool could not be built (every chain is then refused):
   * when the texts are given, if the inline pool is built then, else by the first thread to load them.
   */
  readonly onTrustError?: (message: string, fileIndex: number | undefined) => void;
  /** The worker script (tests). */
  readonly workerFile?: string;
  /**
   * Small chains decided on the calling thread when that is cheap (see InlineLimits); false sends
   * every chain to a verifier thread. Default DEFAULT_INLINE_LIMITS.
   */
  readonly inline?: InlineLimits | false;
}

/**
 * When a chain is decided on the event loop instead of a verifier thread. An ordinary client's
 * chain (a leaf, perhaps its CA) costs one signature check, a few hundred microseconds: less than
 * handing it to a thread and back. Only a chain of the small-chain size qualifies; its check is
 * abandoned for a thread as soon as it would verify more than `maxSignatureChecks` signatures or
 * one with an RSA key over `maxRsaBits`, so one inline check is bounded (a few milliseconds at
 * the dearest); and at most `maxMsPerSecond` of each second is spent on them, so a flood of
 * cheap chains takes no more of the event loop than that and the rest wait for a thread, fairly
 * queued, as before. The default, a tenth of each second, is less than the TLS handshakes that
 * bring those chains cost the same thread (about 2 ms each). The pool inline checks use is built
 * on the calling thread when the trust is given, 0.1 to 0.2 ms per CA (after a reload in slices
 * of at most TRUST_SLICE_BLOCKS CAs, chains going to the threads meanwhile), so only CA texts of
 * at most `maxTrustBytes` get one (256 KiB: some 400 CAs, more than Mozilla's whole bundle); with
 * more, every chain goes to the threads, which build their pools off the event loop.
 */
export interface InlineLimits {
  readonly maxSignatureChecks: number;
  readonly maxRsaBits: number;
  readonly maxMsPerSecond: number;
  /** Default 256 KiB. */
  readonly maxTrustBytes?: number;
}

export const DEFAULT_INLINE_LIMITS: InlineLimits = Object.freeze({ maxSignatureChecks: 3, maxRsaBits: 4096, maxMsPerSecond: 100, maxTrustBytes: 256 * 1024 });

/** What the server knows about the connection a chain came from. */
export interface JudgeRequest {
  /** The client's address: chains are shared out fairly between addresses. */
  readonly source?: string;
  /** When the answer stops being useful (the handshake deadline), ms since the epoch. */
  readonly deadline?: number;
  /** Aborted when the connection closes: its check is never started, or abandoned. */
  readonly signal?: AbortSignal;
}

export interface ChainJudge {
  /** Go's verdict on the list the client sent (leaf first), computed on a worker thread under the trust in force when it is given. */
  judge(presented: readonly Uint8Array[], request?: JudgeRequest): Promise<Verdict>;
  /**
   * The verdict already known for this list (cached under the trust in force), or undefined: a
   * reconnecting client is answered at once, with no promise, controller or listener.
   */
  knownVerdict(presented: readonly Uint8Array[]): Verdict | undefined;
  /**
   * knownVerdict, or else the verdict taken here and now when the chain is small and cheap to
   * check (InlineLimits), then cached; undefined when `judge` must decide it on a thread.
   */
  verdictNow(presented: readonly Uint8Array[]): Verdict | undefined;
  /**
   * New CA texts: every verdict given from now on is taken under them; cached verdicts are
   * dropped. Returns at once: the inline pool is built in slices afterwards (see InlineLimits).
   */
  setTrust(pemTexts: readonly string[]): void;
  /** Chains queued or being checked. */
  readonly waiting: number;
  /** Verifier threads alive now (none until a chain needs checking, none again once idle). */
  readonly threads: number;
  close(): Promise<void>;
}

export const BUSY_REASON = 'tls: server busy verifying client certificates';
export const TOO_LONG_REASON = 'tls: client certificate check took too long';
const EXPIRED_REASON = 'tls: client certificate check not started before the handshake deadline';

/** Chains this small (and this short) may use the verifier kept for them, so ordinary clients never wait behind a large chain's check. */
export const EXPRESS_MAX_BYTES = 8_192;
const EXPRESS_MAX_CERTIFICATES = 4;

interface Waiter {
  readonly resolve: (verdict: Verdict) => void;
  readonly deadline: number;
  readonly signal: AbortSignal | undefined;
  readonly onAbort: () => void;
}

interface Job extends QueuedJob {
  readonly key: string;
  readonly presented: readonly Uint8Array[];
  readonly waiters: Set<Waiter>;
  slot: Slot<Job> | undefined;
  startedAt: number;
  id: number;
}

/** What the pieces of one judge share. */
interface JudgeState {
  readonly maxCheckMs: number;
  readonly expressBudgetMs: number;
  readonly onTrustError: ChainJudgeOptions['onTrustError'];
  readonly queue: JobQueue<Job>;
  readonly cache: VerdictCache;
  /** Jobs queued or running, by chain key, so identical chains share one check. */
  readonly inFlight: Map<string, Job>;
  threads: ThreadSlots<Job>;
  trust: readonly string[];
  generation: number;
  readonly inline: InlineLimits | undefined;
  /** This thread's pool for inline checks under the trust in force; undefined when inline checks are off, the trust too large, or the pool cannot be built. */
  inlinePool: ClientTrustPool | undefined;
  /** The inline time budget's current second (performance.now() ms) and what was spent in it. */
  inlineWindowStart: number;
  inlineSpentMs: number;
  reportedGeneration: number;
  nextSeq: number;
  closed: boolean;
}

// ---- waiters: the connections a job answers ----

function finish(state: JudgeState, job: Job, verdict: Verdict): void {
  if (state.inFlight.get(job.key) === job) state.inFlight.delete(job.key);
  for (const waiter of job.waiters) {
    waiter.signal?.removeEventListener('abort', waiter.onAbort);
    waiter.resolve(verdict);
  }
  job.waiters.clear();
}

/** Waiters whose connection closed or whose deadline passed are dropped; true while someone still waits. */
function stillWanted(state: JudgeState, job: Job, now: number): boolean {
  for (const waiter of job.waiters) {
    if (waiter.signal?.aborted === true || waiter.deadline <= now) {
      job.waiters.delete(waiter);
      waiter.signal?.removeEventListener('abort', waiter.onAbort);
      waiter.resolve({ accept: false, reason: EXPIRED_REASON });
    }
  }
  if (job.waiters.size > 0) return true;
  if (state.inFlight.get(job.key) === job) state.inFlight.delete(job.key);
  return false;
}

function join(state: JudgeState, job: Job, request: JudgeRequest): Promise<Verdict> {
  return new Promise<Verdict>((resolve) => {
    const waiter: Waiter = {
      resolve,
      deadline: request.deadline ?? Number.POSITIVE_INFINITY,
      signal: request.signal,
      onAbort: () => leave(state, job, waiter),
    };
    job.waiters.add(waiter);
    request.signal?.addEventListener('abort', waiter.onAbort, { once: true });
  });
}

/**
 * A connection went away: its share of the job ends, and a queued job nobody waits for is
 * dropped. A running one is left to finish within its budget, its verdict cached: ending its
 * thread would let every client that hangs up after its handshake make the server start a
 * thread (tens of milliseconds of CPU and megabytes each), and the work stays bounded as before
 * (one check per slot, each within its budget; the address still counts against its rank in the
 * queue until the check ends).
 */
function leave(state: JudgeState, job: Job, waiter: Waiter): void {
  if (!job.waiters.delete(waiter)) return;
  waiter.resolve({ accept: false, reason: 'tls: connection closed' });
  if (job.waiters.size > 0) return;
  if (state.queue.remove(job) && state.inFlight.get(job.key) === job) state.inFlight.delete(job.key);
}

// ---- scheduling: which job runs where, and for how long ----

/** The slot's job is over (answered or abandoned); the slot can take another. */
function release(state: JudgeState, slot: Slot<Job>): void {
  clearTimeout(slot.timer);
  slot.timer = undefined;
  if (slot.job !== undefined) {
    state.queue.done(slot.job);
    slot.job.slot = undefined;
  }
  slot.job = undefined;
}

/** Stops the slot's check by ending its thread; a new one starts when the slot is next used. */
function abandon(state: JudgeState, slot: Slot<Job>): Job | undefined {
  const job = slot.job;
  state.threads.stop(slot);
  release(state, slot);
  return job;
}

function enqueue(state: JudgeState, job: Job): void {
  const pushedOut = state.queue.add(job);
  if (pushedOut !== undefined) finish(state, pushedOut, { accept: false, reason: BUSY_REASON });
}

function requeue(state: JudgeState, job: Job): void {
  if (stillWanted(state, job, Date.now())) enqueue(state, job);
}

function onOverrun(state: JudgeState, slot: Slot<Job>): void {
  const job = abandon(state, slot);
  if (job !== undefined) {
    if (slot.express && Date.now() - job.startedAt < state.maxCheckMs) {
      // Too slow for the small-chain verifier: the others check it, however long it takes there.
      job.express = false;
      requeue(state, job);
    } else {
      finish(state, job, { accept: false, reason: TOO_LONG_REASON });
    }
  }
  pump(state);
}

/** The check's clock starts when a thread that has loaded and built the trust's pool gets it (else from its 'ready'). */
function armBudget(state: JudgeState, slot: Slot<Job>, job: Job, now: number): void {
  if (job.startedAt === 0) job.startedAt = now;
  // Past the last waiter's deadline the answer is of no use; a check nobody waits for keeps its budget.
  let latest = job.waiters.size === 0 ? Number.POSITIVE_INFINITY : 0;
  for (const waiter of job.waiters) latest = Math.max(latest, waiter.deadline);
  const remaining = state.maxCheckMs - (now - job.startedAt);
  const budget = Math.min(slot.express ? Math.min(state.expressBudgetMs, remaining) : remaining, latest - now);
  slot.timer = setTimeout(() => onOverrun(state, slot), Math.max(0, budget));
  slot.timer.unref();
}

function start(state: JudgeState, slot: Slot<Job>, job: Job, now: number): void {
  let worker;
  try {
    worker = state.threads.threadFor(slot);
  } catch (error) {
    state.queue.done(job);
    finish(state, job, { accept: false, reason: `tls: client certificate check failed: ${(error as Error).message}` });
    return;
  }
  slot.job = job;
  job.slot = slot;
  job.id = state.nextSeq++;
  if (slot.ready) armBudget(state, slot, job, now);
  worker.postMessage({ kind: 'verify', id: job.id, now, certificates: job.presented } satisfies ToWorker);
}

/** Gives queued jobs to free slots: those with a thread running first, so a new thread starts only when they are all busy. */
function pump(state: JudgeState): void {
  if (state.closed) return;
  const { slots } = state.threads;
  for (const withThread of [true, false]) {
    for (const slot of slots) {
      if ((slot.worker !== undefined) !== withThread) continue;
      while (slot.job === undefined) {
        const job = state.queue.take(slot.express);
        if (job === undefined) break;
        const now = Date.now();
        if (!stillWanted(state, job, now)) {
          state.queue.done(job);
          continue;
        }
        start(state, slot, job, now);
      }
    }
  }
  for (const slot of slots) if (slot.job === undefined) state.threads.idle(slot);
}

function reportTrustProblem(state: JudgeState, generation: number, message: string, fileIndex: number | undefined): void {
  if (generation !== state.generation || state.reportedGeneration === generation) return;
  state.reportedGeneration = generation;
  state.onTrustError?.(message, fileIndex);
}

function onMessage(state: JudgeState, slot: Slot<Job>, message: FromWorker): void {
  if (message.kind === 'ready') {
    // a newer trust is on its way to the thread: its own 'ready' follows
    if (message.generation !== state.generation) return;
    slot.ready = true;
    if (slot.job !== undefined && slot.timer === undefined) armBudget(state, slot, slot.job, Date.now());
    return;
  }
  if (message.kind === 'trust-error') {
    reportTrustProblem(state, message.generation, message.message, message.fileIndex);
    return;
  }
  const job = slot.job;
  if (job === undefined || job.id !== message.id) return;
  release(state, slot);
  if (message.generation !== state.generation) {
    // Taken under trust a reload has since replaced: checked again, never given.
    requeue(state, job);
  } else {
    const verdict: Verdict = message.accept ? { accept: true } : { accept: false, reason: message.reason ?? 'x509: certificate refused' };
    state.cache.set(job.key, verdict, message.recheckAt);
    finish(state, job, verdict);
  }
  pump(state);
}

/** A thread ended on its own: its check fails (the client may try again) and the slot starts a new thread when next used. */
function onLost(state: JudgeState, slot: Slot<Job>, reason: string): void {
  const job = slot.job;
  if (job !== undefined) {
    release(state, slot);
    finish(state, job, { accept: false, reason: `tls: client certificate check failed: ${reason}` });
  }
  pump(state);
}

function chainBytes(presented: readonly Uint8Array[]): number {
  let bytes = 0;
  for (const der of presented) bytes += der.length;
  return bytes;
}

/** The small-chain size: the express verifier's, and the most a chain decided inline may be. */
function expressSized(presented: readonly Uint8Array[], bytes: number): boolean {
  return bytes <= EXPRESS_MAX_BYTES && presented.length <= EXPRESS_MAX_CERTIFICATES;
}

/** The verdict on a small chain taken on this thread, when its check stays within the inline limits and budget; cached like a thread's. */
function inlineVerdict(state: JudgeState, key: string, presented: readonly Uint8Array[]): Verdict | undefined {
  const limits = state.inline;
  if (limits === undefined || state.inFlight.has(key) || !expressSized(presented, chainBytes(presented))) return undefined;
  const started = performance.now();
  if (started - state.inlineWindowStart >= 1000) {
    state.inlineWindowStart = started;
    state.inlineSpentMs = 0;
  }
  if (state.inlineSpentMs >= limits.maxMsPerSecond) return undefined;
  const pool = state.inlinePool;
  if (pool === undefined) return undefined;
  let verdict: Verdict;
  let recheckAt: number | undefined;
  try {
    const within = verifyClientChainWithin(presented, pool, limits, new Date());
    if (within === undefined) return undefined;
    verdict = within.verdict.accept ? { accept: true } : { accept: false, reason: within.verdict.reason };
    recheckAt = within.changesAt;
  } catch (error) {
    // As a verifier thread reports an unexpected failure.
    verdict = { accept: false, reason: `x509: ${(error as Error).message}` };
  } finally {
    state.inlineSpentMs += performance.now() - started;
  }
  state.cache.set(key, verdict, recheckAt);
  return verdict;
}

function newJob(state: JudgeState, key: string, presented: readonly Uint8Array[], source: string): Job {
  const bytes = chainBytes(presented);
  return {
    seq: state.nextSeq++,
    bytes,
    source,
    express: expressSized(presented, bytes),
    key,
    presented,
    waiters: new Set(),
    slot: undefined,
    startedAt: 0,
    id: -1,
  };
}

/**
 * While the inline pool is built after a reload, a turn of the event loop reads at most this many
 * PEM blocks (0.1 to 0.4 ms each for a CA certificate).
 */
export const TRUST_SLICE_BLOCKS = 16;

/**
 * The pool inline checks use, built once per trust generation, when the trust is given: a bad CA
 * file is reported then rather than at the first client certificate. When the judge is made
 * (before it serves) it is built at once; after a reload, in slices between the server's other
 * work, and until it is complete every chain goes to the verifier threads, which hold the new
 * trust whole from the moment it is given: no verdict is taken under a half-built pool, nor
 * under the old one once the new is given. A newer trust abandons the build.
 */
function buildInlinePool(state: JudgeState, atOnce: boolean): void {
  state.inlinePool = undefined;
  const maxTrustBytes = state.inline?.maxTrustBytes ?? DEFAULT_INLINE_LIMITS.maxTrustBytes!;
  if (state.inline === undefined || state.trust.reduce((bytes, text) => bytes + text.length, 0) > maxTrustBytes) return;
  const { generation, trust } = state;
  const steps = clientTrustPoolSteps(trust);
  const slice = (): void => {
    if (state.closed || generation !== state.generation) return;
    try {
      for (let blocks = 0; atOnce || blocks < TRUST_SLICE_BLOCKS; blocks++) {
        const step = steps.next();
        if (step.done === true) {
          state.inlinePool = step.value;
          return;
        }
      }
    } catch (error) {
      reportTrustProblem(state, generation, (error as Error).message, failingFile(trust));
      return;
    }
    setImmediate(slice).unref();
  };
  slice();
}

async function closeJudge(state: JudgeState): Promise<void> {
  state.closed = true;
  for (const slot of state.threads.slots) {
    const job = slot.job;
    release(state, slot);
    if (job !== undefined) finish(state, job, { accept: false, reason: 'tls: server closed' });
  }
  for (let job = state.queue.take(false); job !== undefined; job = state.queue.take(false)) finish(state, job, { accept: false, reason: 'tls: server closed' });
  await state.threads.closeAll();
}

/**
 * Verdicts on client chains from worker threads, so a chain that is expensive to check delays
 * neither the event loop nor another client's verdict:
 * - verifier threads start at the first chain that needs checking, grow up to `workers` under
 *   load and end after `idleThreadMs` without work (threads.ts); one of them is kept
 *   for small chains (an ordinary client's), so an ordinary client never waits behind a large
 *   chain's check;
 * - chains wait in a bounded queue ranked so an unauthenticated sender cannot get ahead of
 *   ordinary clients (job-queue.ts);
 * - a chain whose connections have closed or passed their deadline is never started; a check
 *   running past its budget is abandoned by replacing its thread; one nobody waits for any more
 *   runs on within its budget (its verdict cached), on the thread it has;
 * - a verdict taken under trust a reload has replaced is never given: the chain is checked again;
 * - a chain seen again within the TTL is answered from a bounded cache (verdict-cache.ts) with
 *   no thread involved, and identical chains in flight share one check.
 */
export function createChainJudge(pemTexts: readonly string[], options: ChainJudgeOptions = {}): ChainJudge {
  const state: JudgeState = {
    maxCheckMs: options.maxCheckMs ?? 10_000,
    expressBudgetMs: options.expressBudgetMs ?? 250,
    onTrustError: options.onTrustError,
    queue: createJobQueue<Job>(options.maxQueued ?? 1024, options.maxQueuedBytes ?? 16 * 1024 * 1024),
    cache: createVerdictCache(options.maxCached ?? 4096, options.cacheTtlMs ?? 10_000),
    inFlight: new Map(),
    threads: undefined as unknown as ThreadSlots<Job>,
    trust: [...pemTexts],
    generation: 0,
    inline: options.inline === false ? undefined : (options.inline ?? DEFAULT_INLINE_LIMITS),
    inlinePool: undefined,
    inlineWindowStart: 0,
    inlineSpentMs: 0,
    reportedGeneration: -1,
    nextSeq: 0,
    closed: false,
  };
  state.threads = createThreadSlots<Job>({
    count: options.workers ?? defaultWorkerCount(),
    workerFile: options.workerFile ?? defaultWorkerFile(),
    idleMs: options.idleThreadMs ?? 30_000,
    currentTrust: () => ({ generation: state.generation, pemTexts: state.trust }),
    onMessage: (slot, message) => onMessage(state, slot, message),
    onLost: (slot, reason) => onLost(state, slot, reason),
  });
  buildInlinePool(state, true);

  return {
    judge(presented, request = {}) {
      if (state.closed) return Promise.resolve({ accept: false, reason: 'tls: server closed' });
      if (request.signal?.aborted === true) return Promise.resolve({ accept: false, reason: 'tls: connection closed' });
      const key = chainKey(presented);
      const cached = state.cache.get(key);
      if (cached !== undefined) return Promise.resolve(cached);
      const shared = state.inFlight.get(key);
      if (shared !== undefined) return join(state, shared, request);
      const job = newJob(state, key, presented, request.source ?? '');
      const verdict = join(state, job, request);
      state.inFlight.set(key, job);
      enqueue(state, job);
      pump(state);
      return verdict;
    },
    knownVerdict(presented) {
      return state.closed ? undefined : state.cache.get(chainKey(presented));
    },
    verdictNow(presented) {
      if (state.closed) return undefined;
      const key = chainKey(presented);
      return state.cache.get(key) ?? inlineVerdict(state, key, presented);
    },
    setTrust(texts) {
      state.trust = [...texts];
      state.generation += 1;
      state.cache.clear();
      buildInlinePool(state, false);
      // Messages to a thread arrive in order: every check it starts from now on uses the new pool.
      // A check already running answers with the old generation and is checked again.
      state.threads.broadcastTrust(state.generation, state.trust);
    },
    get waiting() {
      let running = 0;
      for (const slot of state.threads.slots) if (slot.job !== undefined) running += 1;
      return state.queue.size + running;
    },
    get threads() {
      return state.threads.threads;
    },
    close: () => closeJudge(state),
  };
}
