import { createHash } from 'node:crypto';
import * as nodeCrypto from 'node:crypto';

export type Verdict = { readonly accept: true } | { readonly accept: false; readonly reason: string };

type OneShotHash = (algorithm: string, data: Uint8Array, outputEncoding: 'base64') => string;
// crypto.hash (Node 20.12+, 21.7+) hashes without a Hash object: a third of the cost per
// connection of createHash().update().digest() for a few KB. Node 20.11 takes the old route.
const oneShotHash = (nodeCrypto as { hash?: OneShotHash }).hash;

/** SHA-256 of `data`, base64. */
export function sha256Base64(data: Uint8Array): string {
  return oneShotHash === undefined ? createHash('sha256').update(data).digest('base64') : oneShotHash('sha256', data, 'base64');
}

/** The cache key of a list: its certificates with their lengths, so two lists never share one. */
export function chainKey(presented: readonly Uint8Array[]): string {
  let total = 0;
  for (const der of presented) total += 4 + der.length;
  const framed = Buffer.allocUnsafe(total);
  let at = 0;
  for (const der of presented) {
    framed.writeUInt32BE(der.length, at);
    framed.set(der, at + 4);
    at += 4 + der.length;
  }
  return sha256Base64(framed);
}

export interface VerdictCache {
  /** The verdict on this key, while it holds. */
  get(key: string): Verdict | undefined;
  /** Remembers a verdict until `ttlMs` from now or `recheckAt`, whichever is first. */
  set(key: string, verdict: Verdict, recheckAt: number | undefined): void;
  clear(): void;
}

/** Verdicts remembered for at most `ttlMs` and never past a validity boundary; at most `maxEntries`, the oldest go first. */
export function createVerdictCache(maxEntries: number, ttlMs: number): VerdictCache {
  const entries = new Map<string, { readonly verdict: Verdict; readonly expires: number }>();
  return {
    get(key) {
      const entry = entries.get(key);
      if (entry === undefined) return undefined;
      if (entry.expires > Date.now()) return entry.verdict;
      entries.delete(key);
      return undefined;
    },
    set(key, verdict, recheckAt) {
      const now = Date.now();
      const expires = Math.min(now + ttlMs, recheckAt ?? Number.POSITIVE_INFINITY);
      if (expires <= now) return;
      entries.set(key, { verdict, expires });
      while (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
    },
    clear() {
      entries.clear();
    },
  };
}
