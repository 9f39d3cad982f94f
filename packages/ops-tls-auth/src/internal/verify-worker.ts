// Worker-thread entry: runs the client-chain verifier off the event loop that serves HTTP.
// Built by tsup as its own file (dist/verify-worker.js and .cjs); see verdicts.ts.
import { X509Certificate } from 'node:crypto';
import { parentPort } from 'node:worker_threads';
import { createClientTrustPool, verifyClientChain, type ClientTrustPool } from '@fabric-ops/go-x509';
import { failingFile } from './trust-check.ts';
import type { ToWorker } from './verifier-threads.ts';

let generation = -1;
let pool: ClientTrustPool | undefined;
/** Validity boundaries (ms) of the pool's certificates, so a cached verdict never outlives one. */
let poolBoundaries: number[] = [];

/** Where each validity period begins and ends; certificates Node cannot read add none (Go's rules judge them). */
function boundaries(certificates: Iterable<string | Uint8Array>): number[] {
  const found: number[] = [];
  for (const certificate of certificates) {
    try {
      const parsed = new X509Certificate(certificate);
      found.push(Date.parse(parsed.validFrom), Date.parse(parsed.validTo) + 1_000);
    } catch {
      // not readable here: nothing to add
    }
  }
  return found.filter((at) => Number.isFinite(at));
}

function nextBoundary(now: number, presented: readonly Uint8Array[]): number | undefined {
  let next: number | undefined;
  for (const at of [...poolBoundaries, ...boundaries(presented)]) if (at > now && (next === undefined || at < next)) next = at;
  return next;
}

/** A linear scan (a lazy regular expression would go back over the text from every unmatched BEGIN). */
function pemBlocks(text: string): string[] {
  const begin = '-----BEGIN CERTIFICATE-----';
  const end = '-----END CERTIFICATE-----';
  const blocks: string[] = [];
  for (let at = text.indexOf(begin); at !== -1;) {
    const stop = text.indexOf(end, at);
    if (stop === -1) break;
    blocks.push(text.slice(at, stop + end.length));
    at = text.indexOf(begin, stop);
  }
  return blocks;
}

parentPort?.on('message', (message: ToWorker) => {
  if (message.kind === 'trust') {
    generation = message.generation;
    try {
      pool = createClientTrustPool(message.pemTexts);
      poolBoundaries = boundaries(message.pemTexts.flatMap(pemBlocks));
    } catch (error) {
      // The main thread checked these texts when it loaded them; a pool that still fails to
      // build trusts nothing rather than keep the old one.
      pool = undefined;
      poolBoundaries = [];
      parentPort?.postMessage({ kind: 'trust-error', generation, message: (error as Error).message, fileIndex: failingFile(message.pemTexts) });
    }
    return;
  }
  let verdict: { accept: boolean; reason?: string };
  try {
    verdict = pool === undefined ? { accept: false, reason: 'x509: certificate signed by unknown authority' } : verifyClientChain(message.certificates, pool, new Date(message.now));
  } catch (error) {
    verdict = { accept: false, reason: `x509: ${(error as Error).message}` };
  }
  parentPort?.postMessage({
    kind: 'verdict',
    id: message.id,
    generation,
    accept: verdict.accept,
    reason: verdict.accept ? undefined : verdict.reason,
    recheckAt: nextBoundary(message.now, message.certificates),
  });
});
parentPort?.postMessage({ kind: 'ready' });
