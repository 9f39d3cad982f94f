// A worker's series as the primary keeps them. Workers are untrusted: a layout (families, sample
// names, labels) is checked against the exposition format's grammar once, when it changes, and
// only up to the limits; values are checked on every reply. Counters and histograms only grow:
// a value that is not a finite number ≥ 0 is refused, and a decrease is that worker's reset (what
// it had counted before is kept as an offset), so the cluster's sums never go down.
import { isSeriesType, sampleKey, type KeyedLayout, type SeriesType } from '@fabric-ops/ops-metrics';
import type { WireSeries } from './protocol.ts';

/** What the primary holds per worker; past these, samples are left out and counted. */
export interface SeriesLimits {
  /** Samples kept of one worker's layout. */
  readonly samples: number;
  /** UTF-8 bytes of one metrics reply (its JSON); a larger reply is dropped unread. */
  readonly replyBytes: number;
}

/**
 * A metrics reply's JSON as a WireSeries, or why not. Its size is checked before it is parsed,
 * so a reply costs the primary at most `replyBytes` of parsing.
 */
export function readWireSeries(json: string, limits: SeriesLimits): WireSeries | string {
  // Three UTF-8 bytes per UTF-16 unit at most: only a long string needs counting.
  const bytes = json.length * 3 <= limits.replyBytes ? json.length : Buffer.byteLength(json, 'utf8');
  if (bytes > limits.replyBytes) return `metrics of ${bytes} bytes, over the bound of ${limits.replyBytes}`;
  let wire: unknown;
  try {
    wire = JSON.parse(json);
  } catch {
    return 'metrics is not JSON (a worker of an earlier version sends text, which the primary no longer reads)';
  }
  if (
    !isObject(wire) ||
    typeof wire['layoutId'] !== 'number' ||
    !Number.isSafeInteger(wire['layoutId']) ||
    !(Array.isArray(wire['values']) || typeof wire['values'] === 'string') ||
    (wire['layout'] !== undefined && !Array.isArray(wire['layout']))
  ) {
    return 'metrics must be {layoutId, layout?, values}';
  }
  return wire as unknown as WireSeries;
}

/** Scratch for encodeValues: grown to the largest snapshot, never shrunk (8 bytes a sample). */
let valueScratch = new Float64Array(1024);

/**
 * A snapshot's values as the wire carries them: the bytes of one Float64Array (this host's byte
 * order: both ends run on one machine), in base64 so that a channel of either serialization
 * carries it as one string. No number is printed or parsed, and NaN and ±Inf need no spelling.
 */
export function encodeValues(values: ArrayLike<number>): string {
  const count = values.length;
  if (valueScratch.length < count) valueScratch = new Float64Array(Math.max(count, 2 * valueScratch.length));
  const scratch = valueScratch;
  for (let i = 0; i < count; i++) scratch[i] = values[i]!;
  return Buffer.from(scratch.buffer, 0, count * 8).toString('base64');
}

/** A reply's values: the floats of encodeValues' text, or undefined when it is not 8 bytes a value. */
export function decodeValues(text: string): Float64Array | undefined {
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length % 8 !== 0) return undefined;
  // Copied: a small decoded buffer sits at any offset of Node's pool, not on an 8-byte boundary.
  const values = new Float64Array(bytes.length / 8);
  new Uint8Array(values.buffer).set(bytes);
  return values;
}

/** Families whose names are the cluster's own: a worker cannot report them. */
export const RESERVED_PREFIX = 'fabric_ops_cluster_';

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
/** Label pairs one sample may carry (Prometheus's own default limit is lower still, 64 labels). */
const MAX_LABEL_PAIRS = 64;
/** What is kept of a HELP text. */
const MAX_HELP_CHARS = 4_096;

/** Why a sample was left out: past the limits, not in the grammar, or a value a counter cannot have. */
export type DropReason = 'limit' | 'invalid' | 'value';

/** A worker's layout once checked: the families kept, and where each kept sample's value is in a reply. */
export interface CheckedLayout {
  readonly id: number;
  readonly families: readonly KeyedLayout[];
  /** Per kept sample (family then sample order): its index in the reply's values. */
  readonly positions: Int32Array;
  /** Per kept sample: 1 when it only grows (counters, histograms, a summary's sum and count). */
  readonly cumulative: Uint8Array;
  /** Values a reply for this layout carries. */
  readonly declared: number;
  /** Samples of the layout left out, by reason (counted again with every reply that carries them). */
  readonly limit: number;
  readonly invalid: number;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const isFloatText = (text: string): boolean => text === '+Inf' || text === '-Inf' || text === 'NaN' || (text.trim() === text && text !== '' && Number.isFinite(Number(text)));

/** Which suffixes a type's samples may have, and which label each needs (`le`, `quantile`). */
function sampleRule(type: SeriesType, suffix: string): { ok: boolean; needs?: string; cumulative: boolean } {
  if (type === 'histogram') {
    if (suffix === '_bucket') return { ok: true, needs: 'le', cumulative: true };
    return { ok: suffix === '_sum' || suffix === '_count', cumulative: true };
  }
  if (type === 'summary') {
    if (suffix === '') return { ok: true, needs: 'quantile', cumulative: false };
    return { ok: suffix === '_sum' || suffix === '_count', cumulative: true };
  }
  return { ok: suffix === '', cumulative: type === 'counter' };
}

/** Whether `labels` are label pairs of the grammar (with the label `needs`, when given, holding a float). */
function checkLabels(labels: unknown, needs: string | undefined): boolean {
  if (!Array.isArray(labels) || labels.length % 2 !== 0 || labels.length > 2 * MAX_LABEL_PAIRS) return false;
  let found = needs === undefined;
  for (let i = 0; i < labels.length; i += 2) {
    const name: unknown = labels[i];
    const value: unknown = labels[i + 1];
    if (typeof name !== 'string' || typeof value !== 'string' || !LABEL_NAME.test(name) || name.startsWith('__')) return false;
    for (let j = 0; j < i; j += 2) if (labels[j] === name) return false;
    if (name === needs) {
      if (!isFloatText(value)) return false;
      found = true;
    }
  }
  return found;
}

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Checks a worker's layout (`unknown`: straight off the IPC channel). Families and samples that
 * do not fit the grammar, reserved names, repeated families or samples are left out and counted
 * `invalid`; past the sample limit, `limit`. Undefined when it is not a layout at all (the reply is
 * dropped). Works in slices, giving the event loop a turn every few milliseconds.
 */
export async function checkLayout(id: number, wire: unknown, limits: SeriesLimits): Promise<CheckedLayout | undefined> {
  // Each family has a sample at least: more families than four times the samples kept is no layout to read.
  if (!Array.isArray(wire) || wire.length > 4 * limits.samples) return undefined;
  // Where each family's values start: a family that is not even a list of samples makes the
  // positions of all that follow unknowable.
  let declared = 0;
  for (const family of wire) {
    if (!isObject(family) || !Array.isArray(family['samples'])) return undefined;
    declared += (family['samples'] as unknown[]).length;
  }
  const families: KeyedLayout[] = [];
  const positions: number[] = [];
  const cumulative: number[] = [];
  const names = new Set<string>();
  let limit = 0;
  let invalid = 0;
  let position = 0;
  let examined = 0;
  let sliceStart = performance.now();
  for (const family of wire as Record<string, unknown>[]) {
    const samples = family['samples'] as unknown[];
    const start = position;
    position += samples.length;
    const { name, help, type } = family;
    if (examined >= limits.samples) {
      limit += samples.length;
      continue;
    }
    if (typeof name !== 'string' || !METRIC_NAME.test(name) || name.startsWith(RESERVED_PREFIX) || names.has(name) || typeof help !== 'string' || !isSeriesType(type)) {
      invalid += samples.length;
      continue;
    }
    names.add(name);
    const keys: string[] = [];
    const seen = new Set<string>();
    for (let i = 0; i < samples.length; i++) {
      // Samples refused count against the limit too: a layout of nothing valid costs no more.
      if (examined >= limits.samples) {
        limit += samples.length - i;
        break;
      }
      examined++;
      if ((examined & 255) === 0 && performance.now() - sliceStart >= 5) {
        await yieldToEventLoop();
        sliceStart = performance.now();
      }
      const sample = samples[i];
      const suffix: unknown = Array.isArray(sample) && sample.length === 2 ? sample[0] : undefined;
      const rule = typeof suffix === 'string' ? sampleRule(type, suffix) : undefined;
      if (rule?.ok !== true || !checkLabels((sample as unknown[])[1], rule.needs)) {
        invalid++;
        continue;
      }
      const key = sampleKey(name, suffix as string, (sample as string[][])[1]!);
      if (seen.has(key)) {
        invalid++;
        continue;
      }
      seen.add(key);
      keys.push(key);
      positions.push(start + i);
      cumulative.push(rule.cumulative ? 1 : 0);
    }
    if (keys.length > 0) families.push({ name, help: help.length > MAX_HELP_CHARS ? `${help.slice(0, MAX_HELP_CHARS)}…` : help, type, keys });
  }
  return { id, families, positions: Int32Array.from(positions), cumulative: Uint8Array.from(cumulative), declared, limit, invalid };
}

/** A wire value: a number, or `NaN`, `+Inf`, `-Inf` (which JSON cannot carry as numbers). */
export function decodeValue(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (value === 'NaN') return NaN;
  if (value === '+Inf') return Infinity;
  if (value === '-Inf') return -Infinity;
  return undefined;
}

export interface ApplyCounts {
  /** Samples left out of this reply, by reason. */
  readonly dropped: Record<DropReason, number>;
  /** Counters and histogram samples that went down: taken as the worker's reset. */
  resets: number;
}

/**
 * One worker's series: its checked layout and, per kept sample, the last value it reported and
 * what it had counted before its resets. `values` is what merges: reported value plus offset.
 */
export class WorkerSeries {
  readonly values: Float64Array;
  private readonly raw: Float64Array;
  private readonly offset: Float64Array;
  /** Whether a sample has had a value yet. */
  private readonly seen: Uint8Array;

  constructor(
    readonly layout: CheckedLayout,
    previous?: WorkerSeries,
  ) {
    const count = layout.positions.length;
    this.values = new Float64Array(count);
    this.raw = new Float64Array(count);
    this.offset = new Float64Array(count);
    this.seen = new Uint8Array(count);
    if (previous !== undefined) this.carryFrom(previous);
  }

  /** Same series, same history: a worker whose layout changed keeps its counts (and resets) where keys match. */
  private carryFrom(previous: WorkerSeries): void {
    const before = new Map<string, number>();
    let slot = 0;
    for (const family of previous.layout.families) for (const key of family.keys) before.set(`${family.name}\u0000${key}`, slot++);
    slot = 0;
    for (const family of this.layout.families) {
      for (const key of family.keys) {
        const old = before.get(`${family.name}\u0000${key}`);
        if (old !== undefined && previous.layout.cumulative[old] === this.layout.cumulative[slot]) {
          this.values[slot] = previous.values[old]!;
          this.raw[slot] = previous.raw[old]!;
          this.offset[slot] = previous.offset[old]!;
          this.seen[slot] = previous.seen[old]!;
        }
        slot++;
      }
    }
  }

  /**
   * Takes a reply's values (checked: `declared` entries, floats or JSON's numbers and words). A counter or histogram
   * value that is not a finite number ≥ 0 is refused (the sample keeps its last value) and
   * counted; one below the last is a reset.
   */
  apply(wire: Float64Array | readonly unknown[], counts: ApplyCounts): void {
    const { positions, cumulative } = this.layout;
    const floats = wire instanceof Float64Array;
    for (let i = 0; i < positions.length; i++) {
      const value = floats ? wire[positions[i]!]! : decodeValue(wire[positions[i]!]);
      if (value === undefined) {
        counts.dropped.value++;
        continue;
      }
      if (cumulative[i] === 0) {
        this.values[i] = value;
        continue;
      }
      if (!(value >= 0 && value !== Infinity)) {
        counts.dropped.value++;
        continue;
      }
      if (this.seen[i] === 1 && value < this.raw[i]!) {
        this.offset[i]! += this.raw[i]!;
        counts.resets++;
      }
      this.seen[i] = 1;
      this.raw[i] = value;
      this.values[i] = value + this.offset[i]!;
    }
  }
}
