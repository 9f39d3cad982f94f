import { X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import type { Worker } from 'node:worker_threads';
import { workerThreads } from './threads.ts';

/** Whether OpenSSL can load a PEM certificate block (node:crypto's `X509Certificate`), here. */
export function certificateLoads(block: string): boolean {
  try {
    new X509Certificate(block);
    return true;
  } catch {
    return false;
  }
}

// OpenSSL's parse costs the event loop 0.05 ms (Node 24) to 0.4 ms (Node 20) per certificate, so
// 1 s for 2,001 CAs. Up to a handful it is cheaper here than a thread's start.
const LOAD_HERE_AT_MOST = 8;
const LOAD_THREAD = `const { parentPort, workerData } = require('node:worker_threads');
const { X509Certificate } = require('node:crypto');
parentPort.postMessage(workerData.map((block) => { try { new X509Certificate(block); return true; } catch { return false; } }));`;

/**
 * `certificateLoads` for each PEM certificate block, in order: on a short-lived thread started
 * for it (node:worker_threads loaded then, as for the verifier threads), here when there are few
 * or when no thread can run.
 */
export async function loadableCertificates(blocks: readonly string[]): Promise<boolean[]> {
  if (blocks.length <= LOAD_HERE_AT_MOST) return blocks.map(certificateLoads);
  let worker: Worker | undefined;
  try {
    worker = new (workerThreads().Worker)(LOAD_THREAD, { eval: true, workerData: blocks });
    worker.unref();
    const [loaded] = (await once(worker, 'message')) as [boolean[]];
    return loaded;
  } catch {
    return blocks.map(certificateLoads);
  } finally {
    void worker?.terminate();
  }
}
