import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import type * as WorkerThreads from 'node:worker_threads';
import type { Worker } from 'node:worker_threads';

// node:worker_threads is loaded when the first verifier thread starts (the first chain that needs
// one), not when this entry is imported: a server no client presents a certificate to never holds it.
const requireBuiltin = createRequire(import.meta.url);
export const workerThreads = (): typeof WorkerThreads => requireBuiltin('node:worker_threads') as typeof WorkerThreads;

export type ToWorker =
  | { readonly kind: 'trust'; readonly generation: number; readonly pemTexts: readonly string[] }
  | { readonly kind: 'verify'; readonly id: number; readonly now: number; readonly certificates: readonly Uint8Array[] };
export type FromWorker =
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
  /** Sent once the thread has loaded and built the pool of this trust: budgets count from then, not from a slow start or a large pool. */
  | { readonly kind: 'ready'; readonly generation: number };

/**
 * The worker is its own file in dist/ (ESM and CJS builds alike). From source (tests run the
 * .ts files) the built one is used: Node 20 cannot run TypeScript in a worker, and the package's
 * test run builds dist first.
 */
export function defaultWorkerFile(): string {
  const here = import.meta.url;
  if (here.endsWith('.ts')) return fileURLToPath(new URL('../../../dist/verifier-worker.js', here));
  return fileURLToPath(new URL(here.endsWith('.cjs') ? './verifier-worker.cjs' : './verifier-worker.js', here));
}

export function defaultWorkerCount(): number {
  return Math.min(8, Math.max(2, availableParallelism()));
}

/**
 * The node options a verifier thread starts with. The worker runs built JavaScript (dist/), so
 * it must resolve its own imports (go-x509) to dist/ too: an inherited `--conditions` (a test
 * runner resolving workspace sources, or an embedder's own) would point them at TypeScript
 * sources that Node cannot run in a worker. Undefined (inherit everything) when there is none:
 * an explicit list is checked by Node, which refuses process-wide options there (V8's heap
 * sizes, `--expose-gc`, `--trace-gc`: ERR_WORKER_INVALID_EXEC_ARGV) although a thread inherits
 * them silently — so an operator's `node --max-old-space-size=512 bin.js` must not reach it.
 */
export function workerExecArgv(execArgv: readonly string[] = process.execArgv): string[] | undefined {
  const kept: string[] = [];
  let dropped = false;
  for (let i = 0; i < execArgv.length; i++) {
    const arg = execArgv[i]!;
    if (arg === '--conditions' || arg === '-C') {
      dropped = true;
      i++;
      continue;
    }
    if (arg.startsWith('--conditions=') || arg.startsWith('-C=')) {
      dropped = true;
      continue;
    }
    kept.push(arg);
  }
  return dropped ? kept : undefined;
}

/** The flags Node named as not allowed in a worker's execArgv, from its error's text. */
function refusedFlags(error: unknown): readonly string[] | undefined {
  if ((error as { code?: unknown } | null)?.code !== 'ERR_WORKER_INVALID_EXEC_ARGV') return undefined;
  const listed = /flags: (.*)$/.exec((error as Error).message)?.[1];
  return listed === undefined ? [] : listed.split(', ');
}

/**
 * Starts a verifier thread with `execArgv`. Where Node refuses some of the process's own options
 * in that list, they are left out (they are process-wide, so the thread runs under them anyway)
 * and the thread starts with the rest; where that fails too, with none.
 */
export function startVerifierThread(file: string, execArgv: readonly string[] | undefined = workerExecArgv()): Worker {
  const { Worker } = workerThreads();
  if (execArgv === undefined) return new Worker(file);
  try {
    return new Worker(file, { execArgv: [...execArgv] });
  } catch (error) {
    const refused = refusedFlags(error);
    if (refused === undefined) throw error;
    const allowed = execArgv.filter((arg) => !refused.includes(arg));
    try {
      return new Worker(file, { execArgv: allowed });
    } catch (again) {
      if (refusedFlags(again) === undefined) throw again;
      return new Worker(file, { execArgv: [] });
    }
  }
}

/** One verifier place: a thread (started when a check needs it, ended when idle) and the job it runs. */
export interface Slot<J> {
  /** Kept for small chains. */
  readonly express: boolean;
  worker: Worker | undefined;
  /** The thread has said it is ready. */
  ready: boolean;
  job: J | undefined;
  /** The running check's budget. */
  timer: NodeJS.Timeout | undefined;
  /** Ends the thread once it has had nothing to do for the idle period. */
  idleTimer: NodeJS.Timeout | undefined;
}

export interface ThreadSlotsOptions<J> {
  readonly count: number;
  readonly workerFile: string;
  /** A thread with no check to run for this long is ended; the next check starts a new one. */
  readonly idleMs: number;
  /** The trust every new thread is given first. */
  readonly currentTrust: () => { readonly generation: number; readonly pemTexts: readonly string[] };
  readonly onMessage: (slot: Slot<J>, message: FromWorker) => void;
  /** The slot's thread ended on its own (crashed, exited); its job, if any, is still on the slot. */
  readonly onLost: (slot: Slot<J>, reason: string) => void;
}

export interface ThreadSlots<J> {
  readonly slots: readonly Slot<J>[];
  /** The slot's thread, started now if it has none. Throws when the worker script is missing. */
  threadFor(slot: Slot<J>): Worker;
  /** Ends the slot's thread now (a check to abandon); the slot starts a new one when next used. */
  stop(slot: Slot<J>): void;
  /** The slot has no job any more: its thread is ended after the idle period unless it gets one. */
  idle(slot: Slot<J>): void;
  /** Sends the new trust to every thread running (messages arrive in order, ahead of later checks). */
  broadcastTrust(generation: number, pemTexts: readonly string[]): void;
  /** Threads alive now. */
  readonly threads: number;
  closeAll(): Promise<void>;
}

/**
 * The verifier threads. None runs before a chain needs checking: a server whose clients present
 * no certificate (or whose verdicts come from the cache) holds no thread, and a thread left
 * without work for `idleMs` is ended, so an idle server gives the memory back.
 */
export function createThreadSlots<J>(options: ThreadSlotsOptions<J>): ThreadSlots<J> {
  const slots: Slot<J>[] = Array.from({ length: Math.max(2, options.count) }, (_, i) => ({
    express: i === 0,
    worker: undefined,
    ready: false,
    job: undefined,
    timer: undefined,
    idleTimer: undefined,
  }));

  const end = (slot: Slot<J>): void => {
    clearTimeout(slot.idleTimer);
    slot.idleTimer = undefined;
    const worker = slot.worker;
    slot.worker = undefined;
    slot.ready = false;
    void worker?.terminate();
  };

  const spawn = (slot: Slot<J>): Worker => {
    if (!existsSync(options.workerFile)) {
      throw new Error(`the client-certificate verifier ${options.workerFile} is missing; build @fabric-ops/go-x509 first`);
    }
    const created = startVerifierThread(options.workerFile);
    created.unref();
    slot.ready = false;
    created.on('message', (message: FromWorker) => {
      if (slot.worker === created) options.onMessage(slot, message);
    });
    const lost = (reason: string): void => {
      if (slot.worker !== created) return;
      slot.worker = undefined;
      slot.ready = false;
      clearTimeout(slot.idleTimer);
      slot.idleTimer = undefined;
      options.onLost(slot, reason);
    };
    created.on('error', (error) => lost(error.message));
    created.on('exit', (code) => lost(`verifier exited with code ${code}`));
    const { generation, pemTexts } = options.currentTrust();
    created.postMessage({ kind: 'trust', generation, pemTexts } satisfies ToWorker);
    return created;
  };

  return {
    slots,
    threadFor(slot) {
      clearTimeout(slot.idleTimer);
      slot.idleTimer = undefined;
      return (slot.worker ??= spawn(slot));
    },
    stop: end,
    idle(slot) {
      // Armed once per idle spell: activity on other slots does not postpone it.
      if (slot.worker === undefined || slot.job !== undefined || slot.idleTimer !== undefined) return;
      slot.idleTimer = setTimeout(() => {
        slot.idleTimer = undefined;
        if (slot.job === undefined) end(slot);
      }, options.idleMs);
      slot.idleTimer.unref();
    },
    broadcastTrust(generation, pemTexts) {
      for (const slot of slots) {
        if (slot.worker === undefined) continue;
        slot.worker.postMessage({ kind: 'trust', generation, pemTexts } satisfies ToWorker);
        // checks started from now on count from its 'ready' for this trust
        slot.ready = false;
      }
    },
    get threads() {
      let alive = 0;
      for (const slot of slots) if (slot.worker !== undefined) alive += 1;
      return alive;
    },
    async closeAll() {
      const stopping: Promise<number>[] = [];
      for (const slot of slots) {
        clearTimeout(slot.idleTimer);
        slot.idleTimer = undefined;
        if (slot.worker !== undefined) stopping.push(slot.worker.terminate());
        slot.worker = undefined;
      }
      await Promise.all(stopping);
    },
  };
}
