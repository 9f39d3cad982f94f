// Worker-thread entry: runs the client-chain verifier off the event loop that serves HTTP.
// Built by tsup as its own file (dist/verify-worker.js and .cjs); see verdicts.ts.
import { parentPort } from 'node:worker_threads';
import { createClientTrustPool, verifyClientChain, type ClientTrustPool } from '@fabric-ops/go-x509';
import type { ToWorker } from './verdicts.ts';

let generation = -1;
let pool: ClientTrustPool | undefined;

parentPort?.on('message', (message: ToWorker) => {
  if (message.kind === 'trust') {
    try {
      pool = createClientTrustPool(message.pemTexts);
      generation = message.generation;
    } catch (error) {
      // The main thread checked these texts when it loaded them; a pool that still fails to
      // build trusts nothing rather than keep the old one.
      pool = undefined;
      generation = message.generation;
      parentPort?.postMessage({ kind: 'trust-error', generation, message: (error as Error).message });
    }
    return;
  }
  let verdict: { accept: boolean; reason?: string };
  try {
    verdict = pool === undefined ? { accept: false, reason: 'x509: certificate signed by unknown authority' } : verifyClientChain(message.certificates, pool, new Date(message.now));
  } catch (error) {
    verdict = { accept: false, reason: `x509: ${(error as Error).message}` };
  }
  parentPort?.postMessage({ kind: 'verdict', id: message.id, generation, accept: verdict.accept, reason: verdict.accept ? undefined : verdict.reason });
});
