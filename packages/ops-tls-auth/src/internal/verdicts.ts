import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

export type ToWorker =
  | { readonly kind: 'trust'; readonly generation: number; readonly pemTexts: readonly string[] }
  | { readonly kind: 'verify'; readonly id: number; readonly now: number; readonly certificates: readonly Uint8Array[] };
type FromWorker =
  | { readonly kind: 'verdict'; readonly id: number; readonly generation: number; readonly accept: boolean; readonly reason?: string }
  | { readonly kind: 'trust-error'; readonly generation: number; readonly message: string };

export type Verdict = { readonly accept: true } | { readonly accept: false; readonly reason: string };

export interface ChainJudgeOptions {
  /** Chains waiting for the worker at once; past this a handshake is refused ("busy"). Default 1024. */
  readonly maxQueued?: number;
  /** Verdicts remembered; the oldest go first. Default 4096. */
  readonly maxCached?: number;
  /** How long a verdict is reused. Validity periods are checked again after this. Default 10 000 ms. */
  readonly cacheTtlMs?: number;
  /** The worker script (tests). */
  readonly workerFile?: string;
}

export interface ChainJudge {
  /** Go's verdict on the list the client sent (leaf first), computed on the worker thread. */
  judge(presented: readonly Uint8Array[]): Promise<Verdict>;
  /** New CA texts: later verdicts use a pool built from them; cached verdicts are dropped. */
  setTrust(pemTexts: readonly string[]): void;
  /** Chains sent to the worker and not yet answered. */
  readonly waiting: number;
  close(): Promise<void>;
}

export const BUSY_REASON = 'tls: server busy verifying client certificates';

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

function chainKey(generation: number, presented: readonly Uint8Array[]): string {
  const hash = createHash('sha256');
  const length = Buffer.alloc(4);
  length.writeUInt32BE(generation >>> 0);
  hash.update(length);
  for (const der of presented) {
    length.writeUInt32BE(der.length);
    hash.update(length);
    hash.update(der);
  }
  return hash.digest('base64');
}

interface Job {
  readonly key: string;
  readonly generation: number;
  readonly resolve: (verdict: Verdict) => void;
}

/**
 * Verdicts on client chains from a worker thread, so a chain that is expensive to check (large
 * keys, many candidate issuers) delays only its own handshake. A chain seen again within the TTL
 * is answered from a bounded cache, and identical chains in flight share one check.
 */
export function createChainJudge(pemTexts: readonly string[], options: ChainJudgeOptions = {}): ChainJudge {
  const maxQueued = options.maxQueued ?? 1024;
  const maxCached = options.maxCached ?? 4096;
  const ttlMs = options.cacheTtlMs ?? 10_000;
  const workerFile = options.workerFile ?? defaultWorkerFile();
  let trust: readonly string[] = [...pemTexts];
  let generation = 0;
  let worker: Worker | undefined;
  let nextId = 0;
  const jobs = new Map<number, Job>();
  const inFlight = new Map<string, Promise<Verdict>>();
  const cache = new Map<string, { readonly verdict: Verdict; readonly expires: number }>();

  const failAll = (reason: string): void => {
    for (const job of jobs.values()) job.resolve({ accept: false, reason });
    jobs.clear();
  };

  const spawn = (): Worker => {
    if (!existsSync(workerFile)) {
      throw new Error(`the client-certificate verifier ${workerFile} is missing; build @fabric-ops/ops-tls-auth first`);
    }
    const created = new Worker(workerFile);
    created.unref();
    created.on('message', (message: FromWorker) => {
      if (message.kind !== 'verdict') return;
      const job = jobs.get(message.id);
      if (job === undefined) return;
      jobs.delete(message.id);
      const verdict: Verdict = message.accept ? { accept: true } : { accept: false, reason: message.reason ?? 'x509: certificate refused' };
      if (message.generation === generation && job.generation === generation) {
        cache.set(job.key, { verdict, expires: Date.now() + ttlMs });
        while (cache.size > maxCached) cache.delete(cache.keys().next().value as string);
      }
      job.resolve(verdict);
    });
    const lost = (reason: string): void => {
      if (worker !== created) return;
      worker = undefined;
      failAll(`tls: client certificate check failed: ${reason}`);
    };
    created.on('error', (error) => lost(error.message));
    created.on('exit', (code) => lost(`verifier exited with code ${code}`));
    created.postMessage({ kind: 'trust', generation, pemTexts: trust } satisfies ToWorker);
    return created;
  };

  // Started now, not at the first client certificate: starting a worker takes a while, and
  // that time would otherwise count against the first client's handshake deadline.
  try {
    worker = spawn();
  } catch {
    // Reported on each handshake that needs it (judge below tries again).
  }

  return {
    judge(presented) {
      const key = chainKey(generation, presented);
      const cached = cache.get(key);
      if (cached !== undefined) {
        if (cached.expires > Date.now()) return Promise.resolve(cached.verdict);
        cache.delete(key);
      }
      const shared = inFlight.get(key);
      if (shared !== undefined) return shared;
      if (jobs.size >= maxQueued) return Promise.resolve({ accept: false, reason: BUSY_REASON });
      try {
        worker ??= spawn();
      } catch (error) {
        return Promise.resolve({ accept: false, reason: `tls: client certificate check failed: ${(error as Error).message}` });
      }
      const id = nextId++;
      const promise = new Promise<Verdict>((resolve) => {
        jobs.set(id, { key, generation, resolve });
      }).finally(() => inFlight.delete(key));
      inFlight.set(key, promise);
      worker.postMessage({ kind: 'verify', id, now: Date.now(), certificates: presented } satisfies ToWorker);
      return promise;
    },
    setTrust(pemTexts) {
      trust = [...pemTexts];
      generation += 1;
      cache.clear();
      worker?.postMessage({ kind: 'trust', generation, pemTexts: trust } satisfies ToWorker);
    },
    get waiting() {
      return jobs.size;
    },
    async close() {
      const running = worker;
      worker = undefined;
      failAll('tls: server closed');
      await running?.terminate();
    },
  };
}
