import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { createJobQueue, type QueuedJob } from './job-queue.ts';

export type ToWorker =
  | { readonly kind: 'trust'; readonly generation: number; readonly pemTexts: readonly string[] }
  | { readonly kind: 'verify'; readonly id: number; readonly now: number; readonly certificates: readonly Uint8Array[] };
type FromWorker =
  | {
      readonly kind: 'verdict';
      readonly id: number;
      readonly generation: number;
      readonly accept: boolean;
      readonly reason?: string;
      /** The next moment a validity period in the chain or the pool begins or ends (ms): a cached verdict ends there. */
      readonly recheckAt?: number;
    }
  | { readonly kind: 'trust-error'; readonly generation: number; readonly message: string; readonly fileIndex?: number }
  /** Sent once the thread has loaded and can check: budgets count from then, not from a slow start. */
  | { readonly kind: 'ready' };

export type Verdict = { readonly accept: true } | { readonly accept: false; readonly reason: string };

export interface ChainJudgeOptions {
  /** Chains waiting for a verifier at once; past this the lowest-ranked is refused ("busy"). Default 1024. */
  readonly maxQueued?: number;
  /** Bytes of chains waiting at once (the same rule). Default 16 MiB. */
  readonly maxQueuedBytes?: number;
  /** Verdicts remembered; the oldest go first. Default 4096. */
  readonly maxCached?: number;
  /** How long a verdict is reused, at most (never past a validity boundary in the chain or the pool). Default 10 000 ms. */
  readonly cacheTtlMs?: number;
  /** Verifier threads. Default: the machine's available parallelism, between 2 and 8. */
  readonly workers?: number;
  /** A check running longer than this is abandoned (its thread replaced) and the chain refused. Default 10 000 ms. */
  readonly maxCheckMs?: number;
  /** A check on the small-chain verifier running longer than this moves to the others. Default 250 ms. */
  readonly expressBudgetMs?: number;
  /** A check nobody waits for any more (its connections closed) is abandoned once it has run this long. Default 50 ms. */
  readonly abandonAfterMs?: number;
  /** Called once per trust generation whose pool could not be built (every chain is then refused). */
  readonly onTrustError?: (message: string, fileIndex: number | undefined) => void;
  /** The worker script (tests). */
  readonly workerFile?: string;
}

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
  /** New CA texts: every verdict given from now on is taken under them; cached verdicts are dropped. */
  setTrust(pemTexts: readonly string[]): void;
  /** Chains queued or being checked. */
  readonly waiting: number;
  close(): Promise<void>;
}

export const BUSY_REASON = 'tls: server busy verifying client certificates';
export const TOO_LONG_REASON = 'tls: client certificate check took too long';
export const EXPIRED_REASON = 'tls: client certificate check not started before the handshake deadline';

/** Chains this small (and this short) may use the verifier kept for them, so ordinary clients never wait behind a large chain's check. */
export const EXPRESS_MAX_BYTES = 8_192;
export const EXPRESS_MAX_CERTIFICATES = 4;

/**
 * The worker is its own file in dist/ (ESM and CJS builds alike). From source (tests run the
 * .ts files) the built one is used: Node 20 cannot run TypeScript in a worker, and the package's
 * test run builds dist first.
 */
export function defaultWorkerFile(): string {
  const here = import.meta.url;
  if (here.endsWith('.ts')) return fileURLToPath(new URL('../../dist/verify-worker.js', here));
  return fileURLToPath(new URL(here.endsWith('.cjs') ? './verify-worker.cjs' : './verify-worker.js', here));
}

/**
 * The worker runs built JavaScript (dist/), so it must resolve its own imports (go-x509) to
 * dist/ too: an inherited `--conditions` (a test runner resolving workspace sources, or an
 * embedder's own) would point them at TypeScript sources that Node cannot run in a worker.
 */
function workerExecArgv(): string[] {
  const kept: string[] = [];
  const argv = process.execArgv;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--conditions' || arg === '-C') {
      i++;
      continue;
    }
    if (arg.startsWith('--conditions=') || arg.startsWith('-C=')) continue;
    kept.push(arg);
  }
  return kept;
}

function chainKey(presented: readonly Uint8Array[]): string {
  const hash = createHash('sha256');
  const length = Buffer.alloc(4);
  for (const der of presented) {
    length.writeUInt32BE(der.length);
    hash.update(length);
    hash.update(der);
  }
  return hash.digest('base64');
}

export function defaultWorkerCount(): number {
  return Math.min(8, Math.max(2, availableParallelism()));
}

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
  slot: Slot | undefined;
  startedAt: number;
  id: number;
}

interface Slot {
  readonly express: boolean;
  worker: Worker | undefined;
  /** The thread has said it is ready. */
  ready: boolean;
  job: Job | undefined;
  timer: NodeJS.Timeout | undefined;
}

/**
 * Verdicts on client chains from worker threads, so a chain that is expensive to check delays
 * neither the event loop nor another client's verdict:
 * - several verifier threads, one of them kept for small chains (an ordinary client's), so an
 *   ordinary client never waits behind a large chain's check;
 * - chains wait in a bounded queue ranked so an unauthenticated sender cannot get ahead of
 *   ordinary clients (job-queue.ts);
 * - a chain whose connections have closed or passed their deadline is never started, and a
 *   check nobody waits for, or running past its budget, is abandoned by replacing its thread;
 * - a verdict taken under trust a reload has replaced is never given: the chain is checked again;
 * - a chain seen again within the TTL is answered from a bounded cache, and identical chains in
 *   flight share one check.
 */
export function createChainJudge(pemTexts: readonly string[], options: ChainJudgeOptions = {}): ChainJudge {
  const maxCached = options.maxCached ?? 4096;
  const ttlMs = options.cacheTtlMs ?? 10_000;
  const maxCheckMs = options.maxCheckMs ?? 10_000;
  const expressBudgetMs = options.expressBudgetMs ?? 250;
  const abandonAfterMs = options.abandonAfterMs ?? 50;
  const workerFile = options.workerFile ?? defaultWorkerFile();
  const queue = createJobQueue<Job>(options.maxQueued ?? 1024, options.maxQueuedBytes ?? 16 * 1024 * 1024);
  const slots: Slot[] = Array.from({ length: Math.max(2, options.workers ?? defaultWorkerCount()) }, (_, i) => ({
    express: i === 0,
    worker: undefined,
    ready: false,
    job: undefined,
    timer: undefined,
  }));
  let trust: readonly string[] = [...pemTexts];
  let generation = 0;
  let reportedGeneration = -1;
  let nextSeq = 0;
  let closed = false;
  const inFlight = new Map<string, Job>();
  const cache = new Map<string, { readonly verdict: Verdict; readonly expires: number }>();

  const finish = (job: Job, verdict: Verdict): void => {
    if (inFlight.get(job.key) === job) inFlight.delete(job.key);
    for (const waiter of job.waiters) {
      waiter.signal?.removeEventListener('abort', waiter.onAbort);
      waiter.resolve(verdict);
    }
    job.waiters.clear();
  };
  /** Waiters whose connection closed or whose deadline passed are dropped; true while someone still waits. */
  const stillWanted = (job: Job, now: number): boolean => {
    for (const waiter of job.waiters) {
      if (waiter.signal?.aborted === true || waiter.deadline <= now) {
        job.waiters.delete(waiter);
        waiter.signal?.removeEventListener('abort', waiter.onAbort);
        waiter.resolve({ accept: false, reason: EXPIRED_REASON });
      }
    }
    if (job.waiters.size > 0) return true;
    if (inFlight.get(job.key) === job) inFlight.delete(job.key);
    return false;
  };

  const onMessage = (slot: Slot, message: FromWorker): void => {
    if (message.kind === 'ready') {
      slot.ready = true;
      if (slot.job !== undefined) armBudget(slot, slot.job, Date.now());
      return;
    }
    if (message.kind === 'trust-error') {
      if (message.generation === generation && reportedGeneration !== generation) {
        reportedGeneration = generation;
        options.onTrustError?.(message.message, message.fileIndex);
      }
      return;
    }
    const job = slot.job;
    if (job === undefined || job.id !== message.id) return;
    release(slot);
    if (message.generation !== generation) {
      // Taken under trust a reload has since replaced: checked again, never given.
      requeue(job);
    } else {
      const verdict: Verdict = message.accept ? { accept: true } : { accept: false, reason: message.reason ?? 'x509: certificate refused' };
      const now = Date.now();
      const expires = Math.min(now + ttlMs, message.recheckAt ?? Number.POSITIVE_INFINITY);
      if (expires > now) {
        cache.set(job.key, { verdict, expires });
        while (cache.size > maxCached) cache.delete(cache.keys().next().value as string);
      }
      finish(job, verdict);
    }
    pump();
  };

  const spawn = (slot: Slot): Worker => {
    if (!existsSync(workerFile)) {
      throw new Error(`the client-certificate verifier ${workerFile} is missing; build @fabric-ops/ops-tls-auth first`);
    }
    const created = new Worker(workerFile, { execArgv: workerExecArgv() });
    created.unref();
    slot.ready = false;
    created.on('message', (message: FromWorker) => {
      if (slot.worker === created) onMessage(slot, message);
    });
    const lost = (reason: string): void => {
      if (slot.worker !== created) return;
      slot.worker = undefined;
      const job = slot.job;
      if (job !== undefined) {
        release(slot);
        finish(job, { accept: false, reason: `tls: client certificate check failed: ${reason}` });
      }
      pump();
    };
    created.on('error', (error) => lost(error.message));
    created.on('exit', (code) => lost(`verifier exited with code ${code}`));
    created.postMessage({ kind: 'trust', generation, pemTexts: trust } satisfies ToWorker);
    return created;
  };

  /** The slot's job is over (answered or abandoned); the slot can take another. */
  const release = (slot: Slot): void => {
    clearTimeout(slot.timer);
    slot.timer = undefined;
    if (slot.job !== undefined) {
      queue.done(slot.job);
      slot.job.slot = undefined;
    }
    slot.job = undefined;
  };
  /** Stops the slot's check by ending its thread; a new one starts when the slot is next used. */
  const abandon = (slot: Slot): Job | undefined => {
    const job = slot.job;
    const worker = slot.worker;
    slot.worker = undefined;
    release(slot);
    void worker?.terminate();
    return job;
  };

  const requeue = (job: Job): void => {
    if (!stillWanted(job, Date.now())) return;
    const pushedOut = queue.add(job);
    if (pushedOut !== undefined) finish(pushedOut, { accept: false, reason: BUSY_REASON });
  };

  const onOverrun = (slot: Slot): void => {
    const job = abandon(slot);
    if (job !== undefined) {
      if (slot.express && Date.now() - job.startedAt < maxCheckMs) {
        // Too slow for the small-chain verifier: the others check it, however long it takes there.
        job.express = false;
        requeue(job);
      } else {
        finish(job, { accept: false, reason: TOO_LONG_REASON });
      }
    }
    pump();
  };

  /** The check's clock starts when a thread that has loaded gets it. */
  const armBudget = (slot: Slot, job: Job, now: number): void => {
    if (job.startedAt === 0) job.startedAt = now;
    let latest = 0;
    for (const waiter of job.waiters) latest = Math.max(latest, waiter.deadline);
    const remaining = maxCheckMs - (now - job.startedAt);
    const budget = Math.min(slot.express ? Math.min(expressBudgetMs, remaining) : remaining, latest - now);
    slot.timer = setTimeout(() => onOverrun(slot), Math.max(0, budget));
    slot.timer.unref();
  };

  const start = (slot: Slot, job: Job, now: number): void => {
    let worker: Worker;
    try {
      worker = slot.worker ??= spawn(slot);
    } catch (error) {
      queue.done(job);
      finish(job, { accept: false, reason: `tls: client certificate check failed: ${(error as Error).message}` });
      return;
    }
    slot.job = job;
    job.slot = slot;
    job.id = nextSeq++;
    if (slot.ready) armBudget(slot, job, now);
    worker.postMessage({ kind: 'verify', id: job.id, now, certificates: job.presented } satisfies ToWorker);
  };

  const pump = (): void => {
    if (closed) return;
    for (const slot of slots) {
      while (slot.job === undefined) {
        const job = queue.take(slot.express);
        if (job === undefined) break;
        const now = Date.now();
        if (!stillWanted(job, now)) {
          queue.done(job);
          continue;
        }
        start(slot, job, now);
      }
    }
  };

  /** A connection went away: its share of the job ends, and a job nobody waits for is dropped or stopped. */
  const leave = (job: Job, waiter: Waiter): void => {
    if (!job.waiters.delete(waiter)) return;
    waiter.resolve({ accept: false, reason: 'tls: connection closed' });
    if (job.waiters.size > 0) return;
    if (inFlight.get(job.key) === job) inFlight.delete(job.key);
    if (queue.remove(job)) return;
    const slot = job.slot;
    if (slot === undefined) return;
    const stopIfStillUnwanted = (): void => {
      if (slot.job !== job || job.waiters.size > 0) return;
      abandon(slot);
      pump();
    };
    // A check about to end is left to end (and its verdict cached); replacing a thread costs more.
    const ranFor = job.startedAt === 0 ? 0 : Date.now() - job.startedAt;
    if (ranFor >= abandonAfterMs) stopIfStillUnwanted();
    else setTimeout(stopIfStillUnwanted, abandonAfterMs - ranFor).unref();
  };

  const join = (job: Job, request: JudgeRequest): Promise<Verdict> =>
    new Promise<Verdict>((resolve) => {
      const waiter: Waiter = {
        resolve,
        deadline: request.deadline ?? Number.POSITIVE_INFINITY,
        signal: request.signal,
        onAbort: () => leave(job, waiter),
      };
      job.waiters.add(waiter);
      request.signal?.addEventListener('abort', waiter.onAbort, { once: true });
    });

  // The small-chain verifier starts now, not at the first client certificate: starting a
  // thread takes a while, and that time would otherwise count against the first client's deadline.
  try {
    slots[0]!.worker = spawn(slots[0]!);
  } catch {
    // Reported on each handshake that needs it (start tries again).
  }

  return {
    judge(presented, request = {}) {
      if (closed) return Promise.resolve({ accept: false, reason: 'tls: server closed' });
      if (request.signal?.aborted === true) return Promise.resolve({ accept: false, reason: 'tls: connection closed' });
      const key = chainKey(presented);
      const cached = cache.get(key);
      if (cached !== undefined) {
        if (cached.expires > Date.now()) return Promise.resolve(cached.verdict);
        cache.delete(key);
      }
      const shared = inFlight.get(key);
      if (shared !== undefined) return join(shared, request);
      let bytes = 0;
      for (const der of presented) bytes += der.length;
      const job: Job = {
        seq: nextSeq++,
        bytes,
        source: request.source ?? '',
        express: bytes <= EXPRESS_MAX_BYTES && presented.length <= EXPRESS_MAX_CERTIFICATES,
        key,
        presented,
        waiters: new Set(),
        slot: undefined,
        startedAt: 0,
        id: -1,
      };
      const verdict = join(job, request);
      inFlight.set(key, job);
      const pushedOut = queue.add(job);
      if (pushedOut !== undefined) finish(pushedOut, { accept: false, reason: BUSY_REASON });
      pump();
      return verdict;
    },
    setTrust(pemTexts) {
      trust = [...pemTexts];
      generation += 1;
      cache.clear();
      // Messages to a thread arrive in order: every check it starts from now on uses the new pool.
      // A check already running answers with the old generation and is checked again.
      for (const slot of slots) slot.worker?.postMessage({ kind: 'trust', generation, pemTexts: trust } satisfies ToWorker);
    },
    get waiting() {
      let running = 0;
      for (const slot of slots) if (slot.job !== undefined) running += 1;
      return queue.size + running;
    },
    async close() {
      closed = true;
      const stopping: Promise<number>[] = [];
      for (const slot of slots) {
        const job = slot.job;
        const worker = slot.worker;
        slot.worker = undefined;
        release(slot);
        if (job !== undefined) finish(job, { accept: false, reason: 'tls: server closed' });
        if (worker !== undefined) stopping.push(worker.terminate());
      }
      for (let job = queue.take(false); job !== undefined; job = queue.take(false)) finish(job, { accept: false, reason: 'tls: server closed' });
      await Promise.all(stopping);
    },
  };
}
