/**
 * The order in which client chains get a verifier. Nobody is authenticated yet when a chain is
 * queued, so the order must be one an attacker cannot turn against legitimate clients:
 * - cheaper chains first: what a chain costs to check grows with its size (more certificates,
 *   more names, more constraints, larger keys), so a chain is ranked by the power of two its
 *   total size falls under; an attacker who wants to be checked before an operator must send a
 *   chain as small as the operator's, which is as cheap to check;
 * - within a size class, the address with the fewest chains queued or being checked first, so
 *   one address sending many chains waits behind everybody else;
 * - then first come, first served.
 * The queue is bounded in jobs and in bytes; when full, the job ranked last is pushed out, which
 * is the newcomer itself when it ranks below everything queued.
 */
export interface QueuedJob {
  /** Arrival order. */
  readonly seq: number;
  /** Total DER bytes of the chain. */
  readonly bytes: number;
  /** The client's address. */
  readonly source: string;
  /** May run on the verifier kept for small chains. */
  express: boolean;
}

function sizeClass(bytes: number): number {
  return Math.ceil(Math.log2(Math.max(bytes, 1)));
}

export interface JobQueue<J extends QueuedJob> {
  /** Queues a job; returns the job pushed out to stay within the bounds, if any (possibly `job`). */
  add(job: J): J | undefined;
  /** The best queued job (only express ones when asked), taken off the queue; its address's count stays until `done`. */
  take(expressOnly: boolean): J | undefined;
  /** Takes a queued job off without running it; false when it was not queued. */
  remove(job: J): boolean;
  /** A job taken earlier has finished or was abandoned. */
  done(job: J): void;
  readonly size: number;
}

export function createJobQueue<J extends QueuedJob>(maxJobs: number, maxBytes: number): JobQueue<J> {
  const queued = new Set<J>();
  const perSource = new Map<string, number>();
  let bytes = 0;

  const count = (source: string, delta: number): void => {
    const next = (perSource.get(source) ?? 0) + delta;
    if (next <= 0) perSource.delete(source);
    else perSource.set(source, next);
  };
  /** Negative when `a` should run before `b`. */
  const compare = (a: J, b: J): number => sizeClass(a.bytes) - sizeClass(b.bytes) || (perSource.get(a.source) ?? 0) - (perSource.get(b.source) ?? 0) || a.seq - b.seq;
  const unqueue = (job: J): void => {
    queued.delete(job);
    bytes -= job.bytes;
  };

  return {
    add(job) {
      queued.add(job);
      bytes += job.bytes;
      count(job.source, 1);
      if (queued.size <= maxJobs && bytes <= maxBytes) return undefined;
      let worst: J | undefined;
      for (const candidate of queued) if (worst === undefined || compare(candidate, worst) > 0) worst = candidate;
      unqueue(worst!);
      count(worst!.source, -1);
      return worst;
    },
    take(expressOnly) {
      let best: J | undefined;
      for (const candidate of queued) {
        if (expressOnly && !candidate.express) continue;
        if (best === undefined || compare(candidate, best) < 0) best = candidate;
      }
      if (best !== undefined) unqueue(best);
      return best;
    },
    remove(job) {
      if (!queued.has(job)) return false;
      unqueue(job);
      count(job.source, -1);
      return true;
    },
    done(job) {
      count(job.source, -1);
    },
    get size() {
      return queued.size;
    },
  };
}
