// The primary's check of what arrives on a worker's IPC channel. Application code in a worker can
// `process.send` anything with our tag, so every tagged message is read as untrusted input: it is
// taken only if it has exactly the shape protocol.ts describes, within the limits below; anything
// else is refused with a reason (the coordinator drops and counts it). Nothing here throws.
import { PROTOCOL_TAG, type WorkerHealth, type WorkerMessage } from './protocol.ts';
import type { WireStatsdInterval } from './statsd-merge.ts';

/** Limits on one worker message; generous for real use, small enough to bound the primary's work. */
export const MESSAGE_LIMITS: Readonly<Record<'specChars' | 'healthEntries' | 'healthTextChars' | 'errorChars' | 'statsdEntries' | 'statsdObservations' | 'statsdNameChars', number>> = {
  /** A logging spec a worker reports (the primary's own PUT body limit is smaller). */
  specChars: 2 * 1024 * 1024,
  /** Failed checks in one health answer, and the characters kept of each name and reason. */
  healthEntries: 1_000,
  healthTextChars: 1_024,
  /** An error text in a refusal (kept, cut). */
  errorChars: 1_024,
  /** Entries of each list of a StatsD interval, and observations over all its timings. */
  statsdEntries: 100_000,
  statsdObservations: 1_000_000,
  /** A bucket or metric name. */
  statsdNameChars: 4_096,
};

export type Checked = { readonly ok: true; readonly message: WorkerMessage } | { readonly ok: false; readonly reason: string; readonly id?: number };

const refuse = (reason: string, id?: number): Checked => (id === undefined ? { ok: false, reason } : { ok: false, reason, id });

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const cut = (text: string, limit: number): string => (text.length <= limit ? text : `${text.slice(0, limit)}…`);

const isWireNumber = (value: unknown): boolean => typeof value === 'number' || value === 'NaN' || value === '+Inf' || value === '-Inf';

const isName = (value: unknown): value is string => typeof value === 'string' && value.length > 0 && value.length <= MESSAGE_LIMITS.statsdNameChars;

/**
 * A StatsD interval from the wire, or why not. Counter deltas must be finite and not negative:
 * a StatsD counter only counts up, and a negative delta would take from the other workers' sum.
 */
export function checkStatsdInterval(value: unknown): { ok: true; interval: WireStatsdInterval } | { ok: false; reason: string } {
  if (!isObject(value)) return { ok: false, reason: 'statsd: expected an object with counters, gauges and timings' };
  const { counters, gauges, timings } = value;
  if (!Array.isArray(counters) || !Array.isArray(gauges) || !Array.isArray(timings)) return { ok: false, reason: 'statsd: counters, gauges and timings must be arrays' };
  const limit = MESSAGE_LIMITS.statsdEntries;
  if (counters.length > limit || gauges.length > limit || timings.length > limit) return { ok: false, reason: `statsd: more than ${limit} entries in one list` };
  for (const entry of counters) {
    if (!Array.isArray(entry) || entry.length !== 2 || !isName(entry[0])) return { ok: false, reason: 'statsd: a counter must be [bucket, delta]' };
    const delta: unknown = entry[1];
    if (typeof delta !== 'number' || !Number.isFinite(delta) || delta < 0)
      return { ok: false, reason: `statsd: counter ${cut(entry[0], 64)} has delta ${String(delta).slice(0, 32)} (expected a finite number ≥ 0)` };
  }
  for (const entry of gauges) {
    if (!Array.isArray(entry) || entry.length !== 3 || !isName(entry[0]) || !isWireNumber(entry[1]) || !isName(entry[2]))
      return { ok: false, reason: 'statsd: a gauge must be [bucket, value, metric]' };
  }
  let observations = 0;
  for (const entry of timings) {
    if (!Array.isArray(entry) || entry.length !== 2 || !isName(entry[0]) || !Array.isArray(entry[1])) return { ok: false, reason: 'statsd: a timing must be [bucket, [values…]]' };
    const values = entry[1] as unknown[];
    observations += values.length;
    if (observations > MESSAGE_LIMITS.statsdObservations) return { ok: false, reason: `statsd: more than ${MESSAGE_LIMITS.statsdObservations} observations` };
    for (const observed of values) if (!isWireNumber(observed)) return { ok: false, reason: `statsd: timing ${cut(entry[0], 64)} has a value that is not a number` };
  }
  return { ok: true, interval: value as unknown as WireStatsdInterval };
}

function checkHealth(value: unknown): WorkerHealth | string {
  if (!isObject(value) || typeof value['healthy'] !== 'boolean' || !Array.isArray(value['failed'])) return 'health: expected {healthy: boolean, failed: [...]}';
  const failed = value['failed'] as unknown[];
  if (failed.length > MESSAGE_LIMITS.healthEntries) return `health: more than ${MESSAGE_LIMITS.healthEntries} failed checks`;
  const entries: { component: string; reason: string }[] = [];
  for (const entry of failed) {
    if (!isObject(entry) || typeof entry['component'] !== 'string' || typeof entry['reason'] !== 'string') return 'health: a failed check must be {component: string, reason: string}';
    entries.push({ component: cut(entry['component'], MESSAGE_LIMITS.healthTextChars), reason: cut(entry['reason'], MESSAGE_LIMITS.healthTextChars) });
  }
  return { healthy: value['healthy'], failed: entries };
}

/** A tagged message from a worker, checked against the protocol. `value` must carry the tag. */
export function checkWorkerMessage(value: unknown): Checked {
  if (!isObject(value) || value['tag'] !== PROTOCOL_TAG) return refuse('not a protocol message');
  const type = value['type'];
  if (type === 'hello') return { ok: true, message: { tag: PROTOCOL_TAG, type: 'hello' } };
  if (type === 'ready') {
    const spec = value['spec'];
    if (typeof spec !== 'string' || spec.length > MESSAGE_LIMITS.specChars) return refuse('ready: spec must be a string of at most 2 MiB');
    return { ok: true, message: { tag: PROTOCOL_TAG, type: 'ready', spec } };
  }
  if (type === 'statsd-final') {
    const checked = checkStatsdInterval(value['statsd']);
    if (!checked.ok) return refuse(`statsd-final: ${checked.reason}`);
    return { ok: true, message: { tag: PROTOCOL_TAG, type: 'statsd-final', statsd: checked.interval } };
  }
  if (type !== 'reply') return refuse(`unknown message type ${JSON.stringify(String(type).slice(0, 32))}`);
  const id = value['id'];
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1) return refuse('reply: id must be a whole number ≥ 1');
  const ok = value['ok'];
  if (ok === false) {
    const error = value['error'];
    if (typeof error !== 'string') return refuse('reply: a refusal must carry an error string', id);
    return { ok: true, message: { tag: PROTOCOL_TAG, type: 'reply', id, ok: false, error: cut(error, MESSAGE_LIMITS.errorChars) } };
  }
  if (ok !== true) return refuse('reply: ok must be true or false', id);
  const reply: { metrics?: string; health?: WorkerHealth; spec?: string; statsd?: WireStatsdInterval } = {};
  if (value['metrics'] !== undefined) {
    // Its size and content are checked where it is kept (coordinator.ts, worker-series.ts), within the primary's limits.
    const metrics = value['metrics'];
    if (typeof metrics !== 'string') return refuse('reply: metrics must be a string', id);
    reply.metrics = metrics;
  }
  if (value['health'] !== undefined) {
    const health = checkHealth(value['health']);
    if (typeof health === 'string') return refuse(`reply: ${health}`, id);
    reply.health = health;
  }
  if (value['spec'] !== undefined) {
    const spec = value['spec'];
    if (typeof spec !== 'string' || spec.length > MESSAGE_LIMITS.specChars) return refuse('reply: spec must be a string of at most 2 MiB', id);
    reply.spec = spec;
  }
  if (value['statsd'] !== undefined) {
    const checked = checkStatsdInterval(value['statsd']);
    if (!checked.ok) return refuse(`reply: ${checked.reason}`, id);
    reply.statsd = checked.interval;
  }
  return { ok: true, message: { tag: PROTOCOL_TAG, type: 'reply', id, ok: true, ...reply } };
}
