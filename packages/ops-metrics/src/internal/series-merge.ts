// Merging the series of several processes into one exposition, without text: each input is a
// list of keyed families (a sample's rendered name and labels, its key, beside its value), the
// merge adds counters and histograms and combines gauges by rule, and the result is rendered
// once, straight into bytes.
import { BodyWriter, INITIAL_BODY_BYTES, MAX_RETAINED_BODY_BYTES } from './body-writer.ts';
import { escapeHelp, escapeLabelValue } from './exposition.ts';
import type { CancelToken } from './scrape-cancel.ts';
import type { SeriesFamily, SeriesSample, SeriesType } from './series-snapshot.ts';

/** How a gauge family is combined across processes. */
export type GaugeRule = 'sum' | 'max' | 'min' | 'perWorker';

/** A family's samples by key (`name_suffix{a="x"}`, as rendered); the values live apart. */
export interface KeyedLayout {
  readonly name: string;
  readonly help: string;
  readonly type: SeriesType;
  readonly keys: readonly string[];
}

/** A keyed family with its values: `values[start + i]` is the value of `keys[i]`. */
export interface KeyedFamily extends KeyedLayout {
  readonly values: ArrayLike<number>;
  readonly start: number;
}

/** The rendered key of one sample: `name` + `suffix` + `{a="x",…}` (values escaped). */
export function sampleKey(name: string, suffix: string, labels: readonly string[]): string {
  if (labels.length === 0) return name + suffix;
  let key = `${name}${suffix}{`;
  for (let i = 0; i + 1 < labels.length; i += 2) key += `${i === 0 ? '' : ','}${labels[i]}="${escapeLabelValue(labels[i + 1]!)}"`;
  return `${key}}`;
}

/**
 * Keys made of a family's samples, by its samples array: a provider's snapshot hands out the same
 * array while the family's series are unchanged, so a process keying its own snapshot every scrape
 * makes its keys once (and the same strings, which a merge then compares by identity).
 */
const keysBySamples = new WeakMap<readonly SeriesSample[], readonly string[]>();

/** Keys for every sample of `families` (one string per sample, made once per layout). */
export function keyLayouts(families: readonly SeriesFamily[]): KeyedLayout[] {
  return families.map((family) => {
    let keys = keysBySamples.get(family.samples);
    if (keys === undefined) {
      keys = family.samples.map(([suffix, labels]) => sampleKey(family.name, suffix, labels));
      keysBySamples.set(family.samples, keys);
    }
    return { name: family.name, help: family.help, type: family.type, keys };
  });
}

/** Keyed families of a snapshot whose values are `values`, in family then sample order. */
export function withValues(layouts: readonly KeyedLayout[], values: ArrayLike<number>): KeyedFamily[] {
  let start = 0;
  return layouts.map(({ name, help, type, keys }) => {
    const family: KeyedFamily = { name, help, type, keys, values, start };
    start += keys.length;
    return family;
  });
}

/** A summary's `_sum` and `_count` samples (cumulative), as against its quantiles. */
function isSummaryTotal(name: string, key: string): boolean {
  const after = key.startsWith('_sum', name.length) ? name.length + 4 : key.startsWith('_count', name.length) ? name.length + 6 : -1;
  return after > 0 && (after === key.length || key.charCodeAt(after) === 123); /* { */
}

/** Samples that only ever grow: counters, histograms, a summary's sum and count. */
export function isCumulativeSample(type: SeriesType, name: string, key: string): boolean {
  return type === 'counter' || type === 'histogram' || (type === 'summary' && isSummaryTotal(name, key));
}

/** Adds `worker="<id>"` to a key, for series kept apart per process. */
export function withWorkerLabel(key: string, worker: string): string {
  const label = `worker="${escapeLabelValue(worker)}"`;
  if (!key.endsWith('}')) return `${key}{${label}}`;
  return key.endsWith('{}') ? `${key.slice(0, -1)}${label}}` : `${key.slice(0, -1)},${label}}`;
}

export interface SeriesMergeInput {
  /** The process's name in `worker` labels. */
  readonly worker: string;
  readonly families: readonly KeyedFamily[];
}

export interface SeriesMergeOptions {
  /** Per family name: how gauges combine. Unlisted gauges use `defaultGaugeRule`. */
  readonly gaugeRules?: Readonly<Record<string, GaugeRule>>;
  readonly defaultGaugeRule?: GaugeRule;
}

/**
 * A merged family: its keys (in first-seen order, or the previous merge's) and their values
 * (floats off the JavaScript heap: a large merge every scrape leaves the collector nothing to mark).
 */
export interface MergedFamily extends KeyedLayout {
  readonly values: Float64Array;
  readonly start: 0;
}

export interface SeriesMergeResult {
  readonly families: MergedFamily[];
  /** Samples left out because their family was first declared with another type. */
  readonly conflicting: number;
}

/** Merges again and again, keeping each family's keys from one merge to the next. */
export interface SeriesMerger {
  /** As mergeSeries, with these options. */
  merge(inputs: readonly SeriesMergeInput[], cancel?: CancelToken): Promise<SeriesMergeResult>;
}

/** Longest stretch of merging or rendering before the event loop gets a turn. */
const SLICE_MS = 5;
const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * key → slot, per keys array, built the first time an input's keys do not line up with it. Kept
 * with the array, so a merge that reuses the array reuses its index.
 */
const indexes = new WeakMap<readonly string[], Map<string, number>>();

function indexOf(keys: readonly string[]): Map<string, number> {
  let index = indexes.get(keys);
  if (index === undefined) {
    index = new Map();
    for (let i = 0; i < keys.length; i++) index.set(keys[i]!, i);
    indexes.set(keys, index);
  }
  return index;
}

/** A family being merged: its keys may be the previous merge's array, copied before any key is added. */
interface Target {
  readonly name: string;
  readonly help: string;
  readonly type: SeriesType;
  keys: string[];
  shared: boolean;
  /** Per slot (its length may exceed the keys': room to add keys). */
  values: Float64Array;
  /** Per slot, 1 once an input has given it a value in this merge. */
  given: Uint8Array;
  /** Slots given a value. */
  count: number;
}

function appendKey(target: Target, key: string): number {
  if (target.shared) {
    const before = target.keys;
    target.keys = before.slice();
    target.shared = false;
    const index = indexes.get(before);
    if (index !== undefined) indexes.set(target.keys, new Map(index));
  }
  const slot = target.keys.length;
  target.keys.push(key);
  if (slot === target.values.length) {
    const capacity = Math.max(16, 2 * slot);
    const values = new Float64Array(capacity);
    values.set(target.values);
    target.values = values;
    const given = new Uint8Array(capacity);
    given.set(target.given);
    target.given = given;
  }
  indexes.get(target.keys)?.set(key, slot);
  return slot;
}

/**
 * The slot of `key` in `target`. `aligned` says that every earlier sample of this input took the
 * slot at its own position, so a key past those held is new without a lookup. Processes running
 * the same code have the same keys in the same order, and a merger keeps the keys between merges,
 * so a merge is mostly positional compares of the same strings, with no hashing.
 */
function slotOf(target: Target, key: string, expected: number, aligned: boolean): number {
  const keys = target.keys;
  if (expected < keys.length) {
    if (keys[expected] === key) return expected;
  } else if (aligned) return appendKey(target, key);
  return indexOf(keys).get(key) ?? appendKey(target, key);
}

function combine(rule: Exclude<GaugeRule, 'perWorker'>, a: number, b: number): number {
  if (rule === 'sum') return a + b;
  if (rule === 'max') return Math.max(a, b);
  return Math.min(a, b);
}

/** What a merge keeps of its result for the next: each family's type and keys. */
type KeptLayouts = Map<string, { readonly type: SeriesType; readonly keys: readonly string[] }>;

function newTarget(name: string, help: string, type: SeriesType, kept: KeptLayouts | undefined): Target {
  const before = kept?.get(name);
  if (before === undefined || before.type !== type) return { name, help, type, keys: [], shared: false, values: new Float64Array(0), given: new Uint8Array(0), count: 0 };
  const size = before.keys.length;
  return { name, help, type, keys: before.keys as string[], shared: true, values: new Float64Array(size), given: new Uint8Array(size), count: 0 };
}

/** The merged family: only the keys given a value this time (a key of the last merge that no input has is gone). */
function finish(target: Target): MergedFamily {
  const { name, help, type } = target;
  const size = target.keys.length;
  if (target.count === size) return { name, help, type, keys: target.keys, values: size === target.values.length ? target.values : target.values.subarray(0, size), start: 0 };
  const keys: string[] = [];
  const values = new Float64Array(target.count);
  for (let i = 0; i < size; i++) {
    if (target.given[i] === 0) continue;
    values[keys.length] = target.values[i]!;
    keys.push(target.keys[i]!);
  }
  return { name, help, type, keys, values, start: 0 };
}

async function merge(inputs: readonly SeriesMergeInput[], options: SeriesMergeOptions, kept: KeptLayouts | undefined, cancel: CancelToken | undefined): Promise<SeriesMergeResult> {
  let sliceStart = performance.now();
  const rules = options.gaugeRules ?? {};
  const defaultRule = options.defaultGaugeRule ?? 'sum';
  const merged = new Map<string, Target>();
  let conflicting = 0;
  for (const { worker, families } of inputs) {
    for (const family of families) {
      let target = merged.get(family.name);
      if (target === undefined) {
        target = newTarget(family.name, family.help, family.type, kept);
        merged.set(family.name, target);
      } else if (target.type !== family.type) {
        conflicting += family.keys.length;
        continue;
      }
      const type = target.type;
      const rule: GaugeRule = type === 'gauge' || type === 'untyped' ? (rules[family.name] ?? defaultRule) : 'sum';
      const { keys, values, start } = family;
      const allCumulative = type === 'counter' || type === 'histogram';
      let expected = 0;
      let aligned = true;
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i]!;
        const value = values[start + i]!;
        let slot: number;
        if (allCumulative || (type === 'summary' && isSummaryTotal(family.name, key))) {
          slot = slotOf(target, key, expected, aligned);
          target.values[slot] = target.given[slot] === 0 ? value : target.values[slot]! + value;
        } else if (rule === 'perWorker' || type === 'summary') {
          slot = slotOf(target, withWorkerLabel(key, worker), expected, aligned);
          target.values[slot] = value;
        } else {
          slot = slotOf(target, key, expected, aligned);
          target.values[slot] = target.given[slot] === 0 ? value : combine(rule, target.values[slot]!, value);
        }
        // Read after slotOf: adding a key may have grown the arrays.
        if (target.given[slot] === 0) {
          target.given[slot] = 1;
          target.count++;
        }
        aligned &&= slot === expected;
        expected = slot + 1;
        if ((i & 1023) === 1023 && performance.now() - sliceStart >= SLICE_MS) {
          await yieldToEventLoop();
          cancel?.throwIfAborted();
          sliceStart = performance.now();
        }
      }
    }
  }
  return { families: Array.from(merged.values(), finish), conflicting };
}

/**
 * One set of families from many processes' (in input order; the first to declare a family gives
 * its HELP and TYPE, and a family of the same name with another type is left out). Counters,
 * histograms and summaries' sums and counts add up; gauges combine by their rule; summary
 * quantiles and `perWorker` gauges get a `worker` label. Yields to the event loop every few
 * milliseconds.
 */
export function mergeSeries(inputs: readonly SeriesMergeInput[], options: SeriesMergeOptions = {}, cancel?: CancelToken): Promise<SeriesMergeResult> {
  return merge(inputs, options, undefined, cancel);
}

/**
 * A merger for a process that merges the same inputs scrape after scrape: each family starts
 * from the keys of the last merge (the same array, so positional compares succeed at once and
 * renderKeyedFamilies finds the key bytes it encoded last time), and copies them only when a key
 * is added. Keys no input gives any more leave the result.
 */
export function createSeriesMerger(options: SeriesMergeOptions = {}): SeriesMerger {
  let kept: KeptLayouts | undefined;
  return {
    async merge(inputs, cancel) {
      const result = await merge(inputs, options, kept, cancel);
      kept = new Map(result.families.map((family) => [family.name, family]));
      return result;
    },
  };
}

const NEWLINE = 0x0a;
const SPACE = 0x20;

/**
 * The text exposition (0.0.4) of keyed families, rendered into bytes once. Gives the event loop
 * back every few milliseconds, so a large merge never stalls other requests.
 */
export async function renderKeyedFamilies(families: readonly KeyedFamily[], cancel?: CancelToken): Promise<Buffer> {
  // One scratch buffer, reused by renders that do not overlap (the body handed out is a copy).
  // A page past the size kept between renders gets a writer of its last size (with room to
  // grow), not one that doubles its way up from 16 KB copying what it holds at every step.
  const writer = spareWriter ?? new BodyWriter(Math.max(INITIAL_BODY_BYTES, lastBodyBytes + (lastBodyBytes >> 3)));
  spareWriter = undefined;
  try {
    const body = await renderInto(writer, families, cancel);
    lastBodyBytes = body.length;
    return body;
  } finally {
    writer.reset();
    if (writer.capacity <= MAX_RETAINED_BODY_BYTES) spareWriter = writer;
  }
}

let spareWriter: BodyWriter | undefined;
/** Bytes of the last page rendered. */
let lastBodyBytes = 0;

/** A family's `# HELP` and `# TYPE` lines as last rendered, by name: made again only when its HELP or type changes. */
interface Header {
  readonly help: string;
  readonly type: SeriesType;
  readonly text: string;
}

const headers = new Map<string, Header>();
/** Names whose header lines are kept; past it the map starts over (a merge holds far fewer families). */
const MAX_KEPT_HEADERS = 10_000;

function headerOf(family: KeyedLayout): string {
  const kept = headers.get(family.name);
  if (kept !== undefined && kept.help === family.help && kept.type === family.type) return kept.text;
  const text = `${family.help === '' ? '' : `# HELP ${family.name} ${escapeHelp(family.help, false)}\n`}# TYPE ${family.name} ${family.type}\n`;
  if (headers.size >= MAX_KEPT_HEADERS) headers.clear();
  headers.set(family.name, { help: family.help, type: family.type, text });
  return text;
}

/** A keys array as UTF-8, each key followed by a space: key `i` is `bytes[ends[i - 1], ends[i])`. */
interface EncodedKeys {
  readonly bytes: Uint8Array;
  readonly ends: Uint32Array;
}

/**
 * Keys arrays rendered before: `null` once, then their bytes. A merger hands out the same array
 * while a family's keys are unchanged, so from its second scrape a family's keys are copied as
 * bytes rather than encoded again; an array seen only once (a registry's snapshot made afresh
 * every scrape) is never encoded twice.
 */
const encodedKeys = new WeakMap<readonly string[], EncodedKeys | null>();

function encodedOf(keys: readonly string[]): EncodedKeys | undefined {
  const known = encodedKeys.get(keys);
  if (known !== null) {
    if (known === undefined) encodedKeys.set(keys, null);
    return known;
  }
  let size = 0;
  for (const key of keys) size += Buffer.byteLength(key, 'utf8') + 1;
  const bytes = Buffer.allocUnsafeSlow(size);
  const ends = new Uint32Array(keys.length);
  let at = 0;
  for (let i = 0; i < keys.length; i++) {
    at += bytes.write(keys[i]!, at, 'utf8');
    bytes[at++] = SPACE;
    ends[i] = at;
  }
  const encoded = { bytes, ends };
  encodedKeys.set(keys, encoded);
  return encoded;
}

async function renderInto(writer: BodyWriter, families: readonly KeyedFamily[], cancel: CancelToken | undefined): Promise<Buffer> {
  let sliceStart = performance.now();
  let count = 0;
  for (const family of families) {
    const { keys, values, start } = family;
    if (keys.length === 0) continue;
    writer.write(headerOf(family));
    const encoded = encodedOf(keys);
    for (let i = 0; i < keys.length; i++) {
      if (encoded === undefined) {
        writer.write(keys[i]!);
        writer.byte(SPACE);
      } else writer.bytes(encoded.bytes, i === 0 ? 0 : encoded.ends[i - 1]!, encoded.ends[i]!);
      writer.number(values[start + i]!);
      writer.byte(NEWLINE);
      if (++count >= 256) {
        count = 0;
        if (performance.now() - sliceStart >= SLICE_MS) {
          await yieldToEventLoop();
          cancel?.throwIfAborted();
          sliceStart = performance.now();
        }
      }
    }
  }
  return writer.take();
}
