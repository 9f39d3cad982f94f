// A worker's series as the primary keeps them. Workers are untrusted: a layout (families, sample
// names, labels) is checked against the exposition format's grammar once, when it changes, and
// only up to the limits; values are checked on every reply. Counters and histograms only grow:
// a value that is not a finite number ≥ 0 is refused, and a decrease is that worker's reset (what
// it had counted before is kept as an offset), so the cluster's sums never go down.
import { isSeriesType, sampleKey, type KeyedLayout, type SeriesType } from '@fabric-ops/ops-metrics/cluster';
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
    (wire['layout'] !== undefined && !Array.isArray(wire['layout'])) ||
    !isOptionalSequence(wire['seq']) ||
    !isOptionalSequence(wire['base'])
  ) {
    return 'metrics must be {layoutId, layout?, values, seq?}';
  }
  if (wire['changed'] !== undefined && (typeof wire['changed'] !== 'string' || typeof wire['values'] !== 'string' || wire['base'] === undefined || wire['layout'] !== undefined)) {
    return 'metrics with changed values must be {layoutId, seq, base, changed, values} with no layout';
  }
  return wire as unknown as WireSeries;
}

const isOptionalSequence = (value: unknown): boolean => value === undefined || (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0);

/** At most this share of the values changed, a worker sends only those (indices and floats: 12 bytes each against 8 for every value). */
const MAX_CHANGED_SHARE = 0.5;

/**
 * A worker's values as it sends them, numbered (`seq`): all of them, or, to a primary that names
 * the last values sent as the ones it holds, only those whose bits changed since. Counters of
 * label sets nobody touched between two scrapes, most of a large service's, then cost nothing
 * on the wire or in the primary's read.
 */
export class ValuesSender {
  private sent = new Float64Array(0);
  private spare = new Float64Array(0);
  /** Values in `sent`, or -1 before the first reply. */
  private sentCount = -1;
  private seq = 0;

  /** The reply's JSON members for the values (`"seq":…,"values":"…"`, with `base` and `changed` for a delta). */
  fields(values: ArrayLike<number>, held: number | undefined): string {
    const count = values.length;
    if (this.spare.length < count) this.spare = new Float64Array(Math.max(count, 2 * this.spare.length));
    const current = this.spare;
    for (let i = 0; i < count; i++) current[i] = values[i]!;
    const delta = held !== undefined && held === this.seq && this.sentCount === count ? this.changes(current, count) : undefined;
    this.spare = this.sent;
    this.sent = current;
    this.sentCount = count;
    this.seq++;
    if (delta !== undefined) return `"seq":${this.seq},"base":${held},"changed":"${delta.changed}","values":"${delta.values}"`;
    return `"seq":${this.seq},"values":"${Buffer.from(current.buffer, 0, count * 8).toString('base64')}"`;
  }

  /** The values whose bits differ from the last sent (NaN and -0 included), or undefined when too many did. */
  private changes(current: Float64Array, count: number): { changed: string; values: string } | undefined {
    const now = new Uint32Array(current.buffer, 0, 2 * count);
    const before = new Uint32Array(this.sent.buffer, 0, 2 * count);
    const limit = Math.floor(count * MAX_CHANGED_SHARE);
    const indices: number[] = [];
    for (let i = 0; i < count; i++) {
      if (now[2 * i] === before[2 * i] && now[2 * i + 1] === before[2 * i + 1]) continue;
      if (indices.length === limit) return undefined;
      indices.push(i);
    }
    const changedValues = new Float64Array(indices.length);
    for (let i = 0; i < indices.length; i++) changedValues[i] = current[indices[i]!]!;
    return { changed: Buffer.from(Uint32Array.from(indices).buffer).toString('base64'), values: Buffer.from(changedValues.buffer).toString('base64') };
  }
}

/** A delta's indices: the Uint32Array of ValuesSender's text, or undefined when it is not 4 bytes an index. */
export function decodeIndices(text: string): Uint32Array | undefined {
  return decodeArray(text, Uint32Array);
}

/** The elements a base64 text holds the bytes of, or undefined when they are not whole elements. */
function decodeArray<T extends Uint32Array | Float64Array>(text: string, Type: { new (length: number): T; readonly BYTES_PER_ELEMENT: number }): T | undefined {
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length % Type.BYTES_PER_ELEMENT !== 0) return undefined;
  // Copied: a small decoded buffer sits at any offset of Node's pool, not on an element boundary.
  const array = new Type(bytes.length / Type.BYTES_PER_ELEMENT);
  new Uint8Array(array.buffer).set(bytes);
  return array;
}

/**
 * The values of `held` with a delta's changes written in, or why not (nothing is written then):
 * as many floats as indices, each index within the values and above the one before it.
 */
export function patchValues(held: Float64Array, changed: string, values: string): string | undefined {
  const indices = decodeIndices(changed);
  const floats = decodeValues(values);
  if (indices === undefined || floats === undefined) return 'changed values are not whole 4-byte indices and 8-byte floats';
  if (indices.length !== floats.length) return `${indices.length} changed indices for ${floats.length} values`;
  let last = -1;
  for (const index of indices) {
    if (index <= last || index >= held.length) return `changed index ${index} is out of order or past the ${held.length} values held`;
    last = index;
  }
  for (let i = 0; i < indices.length; i++) held[indices[i]!] = floats[i]!;
  return undefined;
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
  return decodeArray(text, Float64Array);
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
/** The longest stretch a layout's check or carry holds the event loop before giving it a turn. */
const SLICE_MS = 5;
/** Samples carried between looks at the clock. */
const CARRY_STEP = 1_024;

/**
 * Checks a worker's layout (`unknown`: straight off the IPC channel). Families and samples that
 * do not fit the grammar, reserved names, repeated families or samples are left out and counted
 * `invalid`; past the sample limit, `limit`. Undefined when it is not a layout at all (the reply is
 * dropped). Works in slices, giving the event loop a turn every few milliseconds.
 */
export async function checkLayout(id: number, wire: unknown, limits: SeriesLimits, previous?: CheckedLayout): Promise<CheckedLayout | undefined> {
  // Each family has a sample at least: more families than four times the samples kept is no layout to read.
  if (!Array.isArray(wire) || wire.length > 4 * limits.samples) return undefined;
  // Where each family's values start: a family that is not even a list of samples makes the
  // positions of all that follow unknowable.
  let declared = 0;
  for (const family of wire) {
    if (!isObject(family) || !Array.isArray(family['samples'])) return undefined;
    declared += (family['samples'] as unknown[]).length;
  }
  // The keys of the layout this one replaces, by family: a key equal to the one at the same place
  // before is that same string, so merges go on comparing keys by identity (a worker's layout
  // changes when one runtime family gains a series; its other keys stay as they were).
  const keysBefore = new Map<string, readonly string[]>();
  for (const family of previous?.families ?? []) keysBefore.set(family.name, family.keys);
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
    const before = keysBefore.get(name);
    const keys: string[] = [];
    const seen = new Set<string>();
    for (let i = 0; i < samples.length; i++) {
      // Samples refused count against the limit too: a layout of nothing valid costs no more.
      if (examined >= limits.samples) {
        limit += samples.length - i;
        break;
      }
      examined++;
      if ((examined & 255) === 0 && performance.now() - sliceStart >= SLICE_MS) {
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
      const same = before?.[keys.length];
      keys.push(same === key ? same : key);
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
    // All at once here (tests, small layouts); takeSeriesReply uses carryFrom, in slices.
    if (previous !== undefined) for (const _ of this.carrySteps(previous));
  }

  /**
   * Same series, same history: a worker whose layout changed keeps its counts (and resets) where
   * keys match, in slices of at most a few milliseconds (a layout of 200,000 samples took a
   * third of a second in one stretch when each key was looked up as a new string).
   */
  async carryFrom(previous: WorkerSeries, sliceMs: number = SLICE_MS): Promise<void> {
    let sliceStart = performance.now();
    for (const _ of this.carrySteps(previous)) {
      if (performance.now() - sliceStart >= sliceMs) {
        await yieldToEventLoop();
        sliceStart = performance.now();
      }
    }
  }

  /** The carry, pausing after every CARRY_STEP samples. */
  private *carrySteps(previous: WorkerSeries): Generator<void> {
    const before = new Map<string, { readonly keys: readonly string[]; readonly start: number }>();
    let slot = 0;
    for (const family of previous.layout.families) {
      before.set(family.name, { keys: family.keys, start: slot });
      slot += family.keys.length;
    }
    slot = 0;
    let work = 0;
    for (const family of this.layout.families) {
      const old = before.get(family.name);
      let index: Map<string, number> | undefined;
      for (let i = 0; old !== undefined && i < family.keys.length; i++) {
        const key = family.keys[i]!;
        // checkLayout hands a key equal to the one at the same place before as that same string,
        // so most keys are found without a lookup; the index is built for a family that moved.
        let at = old.keys[i] === key ? i : -1;
        if (at === -1) {
          index ??= new Map(old.keys.map((oldKey, position) => [oldKey, position]));
          at = index.get(key) ?? -1;
        }
        if (at !== -1) this.carryOne(previous, old.start + at, slot + i);
        if (++work === CARRY_STEP) {
          work = 0;
          yield;
        }
      }
      slot += family.keys.length;
    }
  }

  private carryOne(previous: WorkerSeries, from: number, to: number): void {
    if (previous.layout.cumulative[from] !== this.layout.cumulative[to]) return;
    this.values[to] = previous.values[from]!;
    this.raw[to] = previous.raw[from]!;
    this.offset[to] = previous.offset[from]!;
    this.seen[to] = previous.seen[from]!;
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

/**
 * What the primary holds of a worker's values for a delta: those of its last reply taken, as
 * sent (one per sample of its layout, before any check), that reply's `seq`, named in the next
 * request so the worker may send only what changed, and the series they were taken into.
 */
export interface HeldValues {
  readonly series: WorkerSeries | undefined;
  readonly wire: Float64Array | undefined;
  readonly wireSeq: number | undefined;
}

/**
 * A reply's values: all of them decoded, or the held ones with a delta's changes written in. A
 * delta counts only against the values of the layout it names, as last taken: any other base
 * (a reply lost or dropped on the way, a layout that changed since) is refused, and the caller
 * then forgets the held values, so the next request names none and the worker sends them all.
 */
export function replyValues(held: HeldValues, series: WorkerSeries, metrics: WireSeries): Float64Array | readonly unknown[] | string {
  if (metrics.changed === undefined) {
    const values = typeof metrics.values === 'string' ? decodeValues(metrics.values) : metrics.values;
    return values ?? 'values are not whole 8-byte floats';
  }
  const wire = held.wire;
  if (wire === undefined || series !== held.series || metrics.base !== held.wireSeq || wire.length !== series.layout.declared) {
    return `changed values against values ${String(metrics.base)}, which the primary does not hold`;
  }
  return patchValues(wire, metrics.changed, metrics.values as string) ?? wire;
}

/** The primary's record of one worker's series, as takeSeriesReply reads and updates it. */
export interface SeriesHolder extends HeldValues {
  series: WorkerSeries | undefined;
  wire: Float64Array | undefined;
  wireSeq: number | undefined;
  /** The id of the request whose answer `series` holds: an older answer arriving later is not taken. */
  lastId: number;
  /** A layout being checked (one at a time per worker). */
  checking: boolean;
  readonly alive: boolean;
}

/**
 * Takes one worker's metrics reply into `holder`: a new layout is checked first (one at a time
 * per worker), then the values are read, checked and applied. What the reply left out is added
 * to `counts`; a reply refused as a whole changes nothing held but the values kept for a delta,
 * and gives its reason.
 */
export async function takeSeriesReply(holder: SeriesHolder, id: number, json: string, limits: SeriesLimits, counts: ApplyCounts): Promise<string | undefined> {
  const metrics = readWireSeries(json, limits);
  if (typeof metrics === 'string') return metrics;
  let series = holder.series;
  if (series === undefined || series.layout.id !== metrics.layoutId) {
    // Values for a layout the primary does not hold: nothing to read them against.
    if (metrics.layout === undefined || holder.checking) return `values for layout ${metrics.layoutId}, which the primary does not hold`;
    holder.checking = true;
    try {
      const layout = await checkLayout(metrics.layoutId, metrics.layout, limits, holder.series?.layout);
      if (layout === undefined) return 'metrics.layout is not a list of families with samples';
      if (!holder.alive || id < holder.lastId) return undefined;
      series = new WorkerSeries(layout);
      if (holder.series !== undefined) await series.carryFrom(holder.series);
    } finally {
      holder.checking = false;
    }
    if (!holder.alive || id < holder.lastId) return undefined;
  }
  const values = replyValues(holder, series, metrics);
  if (typeof values === 'string') {
    holder.wire = undefined;
    holder.wireSeq = undefined;
    return values;
  }
  if (values.length !== series.layout.declared) return `${values.length} values for a layout of ${series.layout.declared} samples`;
  series.apply(values, counts);
  counts.dropped.limit += series.layout.limit;
  counts.dropped.invalid += series.layout.invalid;
  holder.series = series;
  holder.lastId = id;
  holder.wire = values instanceof Float64Array && metrics.seq !== undefined ? values : undefined;
  holder.wireSeq = holder.wire === undefined ? undefined : metrics.seq;
  return undefined;
}
