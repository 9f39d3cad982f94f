import { createHash } from 'node:crypto';

export type Verdict = { readonly accept: true } | { readonly accept: false; readonly reason: string };

/** The cache key of a list: its certificates with their lengths, so two lists never share one. */
export function chainKey(presented: readonly Uint8Array[]): string {
  const hash = createHash('sha256');
  const length = Buffer.alloc(4);
  for (const der of presented) {
    length.writeUInt32BE(der.length);
    hash.update(length);
    hash.update(der);
  }
  return hash.digest('base64');
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
