// Worker-thread entry: runs the client-chain verifier off the event loop that serves HTTP.
// Built by tsup as its own file (dist/verifier-worker.js and .cjs); see judge.ts.
import { parentPort } from 'node:worker_threads';
import { createClientTrustPool, verifyClientChainUntil, type ClientTrustPool } from '@fabric-ops/go-x509';
import { failingFile } from './trust-check.ts';
import type { ToWorker } from './threads.ts';

let generation = -1;
let pool: ClientTrustPool | undefined;

parentPort?.on('message', (message: ToWorker) => {
  if (message.kind === 'trust') {
    generation = message.generation;
    try {
      pool = createClientTrustPool(message.pemTexts);
    } catch (error) {
      // The main thread checked these texts when it loaded them; a pool that still fails to
      // build trusts nothing rather than keep the old one.
      pool = undefined;
      parentPort?.postMessage({ kind: 'trust-error', generation, message: (error as Error).message, fileIndex: failingFile(message.pemTexts) });
    }
    // after the pool, not at start: a check's budget must not pay for building it (2,001 CAs: 0.2 s and more)
    parentPort?.postMessage({ kind: 'ready', generation });
    return;
  }
  let verdict: { accept: boolean; reason?: string };
  // When the verdict may change (a validity boundary of a certificate sent or held, read by the
  // same parse that judged them), so a cached verdict never outlives it.
  let recheckAt: number | undefined;
  try {
    if (pool === undefined) verdict = { accept: false, reason: 'x509: certificate signed by unknown authority' };
    else ({ verdict, changesAt: recheckAt } = verifyClientChainUntil(message.certificates, pool, new Date(message.now)));
  } catch (error) {
    verdict = { accept: false, reason: `x509: ${(error as Error).message}` };
  }
  parentPort?.postMessage({
    kind: 'verdict',
    id: message.id,
    generation,
    accept: verdict.accept,
    reason: verdict.accept ? undefined : verdict.reason,
    recheckAt,
  });
});
