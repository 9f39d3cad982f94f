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
  /** Chains waiting for a worker at once, per lane; past this a handshake is refused ("busy"). Default 1024. */
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

/**
 * Chains whose certificates are all at most this large share the usual lane; a chain with a
 * larger one (RSA keys beyond ~8,192 bits, which make each signature check slow) waits in a lane
 * of its own, so such chains never queue ahead of ordinary clients.
 */
export const SMALL_CERTIFICATE_BYTES = 3_072;

interface Lane {
  worker: Worker | undefined;
  readonly jobs: Map<number, Job>;
}

interface Job {
  readonly key: string;
  readonly generation: number;
  readonly resolve: (verdict: Verdict) => void;
}

/**
 * Verdicts on client chains from worker threads, so a chain that is expensive to check (large
 * keys, many candidate issuers) delays only its own handshake, never the event loop. Two lanes,
 * each a worker: ordinary certificates, and chains holding an oversized certificate (started on
 * first use). A chain seen again within the TTL is answered from a bounded cache, and identical
 * chains in flight share one check.
 */
export function createChainJudge(pemTexts: readonly string[], options: ChainJudgeOptions = {}): ChainJudge {
  const maxQueued = options.maxQueued ?? 1024;
  const maxCached = options.maxCached ?? 4096;
  const ttlMs = options.cacheTtlMs ?? 10_000;
  const workerFile = options.workerFile ?? defaultWorkerFile();
  let trust: readonly string[] = [...pemTexts];
  let generation = 0;
  let nextId = 0;
  const lanes: Lane[] = [{ worker: undefined, jobs: new Map() }, { worker: undefined, jobs: new Map() }];
  const inFlight = new Map<string, Promise<Verdict>>();
  const cache = new Map<string, { readonly verdict: Verdict; readonly expires: number }>();

  const failAll = (lane: Lane, reason: string): void => {
    for (const job of lane.jobs.values()) job.resolve({ accept: false, reason });
    lane.jobs.clear();
  };

  const spawn = (lane: Lane): Worker => {
    if (!existsSync(workerFile)) {
      throw new Error(`the client-certificate verifier ${workerFile} is missing; build @fabric-ops/ops-tls-auth first`);
    }
    const created = new Worker(workerFile, { execArgv: workerExecArgv() });
    created.unref();
    created.on('message', (message: FromWorker) => {
      if (message.kind !== 'verdict') return;
      const job = lane.jobs.get(message.id);
      if (job === undefined) return;
      lane.jobs.delete(message.id);
      const verdict: Verdict = message.accept ? { accept: true } : { accept: false, reason: message.reason ?? 'x509: certificate refused' };
      if (message.generation === generation && job.generation === generation) {
        cache.set(job.key, { verdict, expires: Date.now() + ttlMs });
        while (cache.size > maxCached) cache.delete(cache.keys().next().value as string);
      }
      job.resolve(verdict);
    });
    const lost = (reason: string): void => {
      if (lane.worker !== created) return;
      lane.worker = undefined;
      failAll(lane, `tls: client certificate check failed: ${reason}`);
    };
    created.on('error', (error) => lost(error.message));
    created.on('exit', (code) => lost(`verifier exited with code ${code}`));
    created.postMessage({ kind: 'trust', generation, pemTexts: trust } satisfies ToWorker);
    return created;
  };

  // The usual lane is started now, not at the first client certificate: starting a worker
  // takes a while, and that time would otherwise count against the first client's deadline.
  try {
    lanes[0]!.worker = spawn(lanes[0]!);
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
      const lane = lanes[presented.every((der) => der.length <= SMALL_CERTIFICATE_BYTES) ? 0 : 1]!;
      if (lane.jobs.size >= maxQueued) return Promise.resolve({ accept: false, reason: BUSY_REASON });
      let worker: Worker;
      try {
        worker = lane.worker ??= spawn(lane);
      } catch (error) {
        return Promise.resolve({ accept: false, reason: `tls: client certificate check failed: ${(error as Error).message}` });
      }
      const id = nextId++;
      const promise = new Promise<Verdict>((resolve) => {
        lane.jobs.set(id, { key, generation, resolve });
      }).finally(() => inFlight.delete(key));
      inFlight.set(key, promise);
      worker.postMessage({ kind: 'verify', id, now: Date.now(), certificates: presented } satisfies ToWorker);
      return promise;
    },
    setTrust(pemTexts) {
      trust = [...pemTexts];
      generation += 1;
      cache.clear();
      for (const lane of lanes) lane.worker?.postMessage({ kind: 'trust', generation, pemTexts: trust } satisfies ToWorker);
    },
    get waiting() {
      return lanes[0]!.jobs.size + lanes[1]!.jobs.size;
    },
    async close() {
      await Promise.all(
        lanes.map(async (lane) => {
          const running = lane.worker;
          lane.worker = undefined;
          failAll(lane, 'tls: server closed');
          await running?.terminate();
        }),
      );
    },
  };
}
