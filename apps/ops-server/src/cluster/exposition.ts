// Merging the Prometheus text expositions of several processes into one.
//
// Workers hand the primary their exposition text rather than a structured dump, so any
// instrumentation a worker uses (ops-metrics, the application's own prom-client registry) is
// aggregated the same way, and the primary needs no knowledge of the workers' storage. Merged
// values are printed by ops-metrics' own formatter, so a counter reads the same with and without
// the cluster.
import { formatSampleValue } from '@fabric-ops/ops-metrics';

/** How a gauge family is combined across processes. */
export type GaugeRule = 'sum' | 'max' | 'min' | 'perWorker';

interface Series {
  /** Sample name plus its label set exactly as rendered (`name{a="x"}`): the merge key. */
  readonly key: string;
  readonly value: number;
}

export interface ParsedFamily {
  readonly name: string;
  type: string;
  help: string;
  readonly series: Series[];
}

/** One process's exposition, parsed. Families keep the order they were rendered in. */
export type Exposition = ReadonlyMap<string, ParsedFamily>;

function parseValue(text: string): number {
  if (text === '+Inf' || text === 'Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  return Number(text);
}

/** Where the label set opened at `open` ends before `end`: the `}` outside a quoted value (values may hold `}` and spaces). */
function endOfLabels(text: string, open: number, end: number): number {
  let quoted = false;
  for (let i = open + 1; i < end; i++) {
    const c = text.charCodeAt(i);
    if (quoted) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) quoted = false;
    } else if (c === 34) quoted = true;
    else if (c === 125 /* } */) return i;
  }
  return -1;
}

const COMMENT = /^#\s+(HELP|TYPE)\s+(\S+)\s?(.*)$/;

/**
 * Parses the text format (0.0.4). Lines that cannot be read are skipped rather than failing the
 * whole scrape: one worker's odd metric must not take the others' away. Runs once per worker per
 * scrape, so it reads the text in place: one slice per sample (its key) and one for its value.
 */
export function parseExposition(text: string): Map<string, ParsedFamily> {
  const families = new Map<string, ParsedFamily>();
  let current: ParsedFamily | undefined;
  const familyNamed = (name: string): ParsedFamily => {
    let family = families.get(name);
    if (family === undefined) {
      family = { name, type: 'untyped', help: '', series: [] };
      families.set(name, family);
    }
    return family;
  };
  const length = text.length;
  let start = 0;
  while (start < length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = length;
    const lineStart = start;
    start = end + 1;
    if (end === lineStart) continue;
    if (text.charCodeAt(lineStart) === 35 /* # */) {
      const match = COMMENT.exec(text.slice(lineStart, end));
      if (match === null) continue;
      current = familyNamed(match[2]!);
      if (match[1] === 'TYPE') current.type = match[3]!.trim();
      else current.help = match[3]!;
      continue;
    }
    // The sample name runs to `{` or the first space.
    let nameEnd = lineStart;
    let c = 0;
    while (nameEnd < end) {
      c = text.charCodeAt(nameEnd);
      if (c === 123 /* { */ || c === 32) break;
      nameEnd++;
    }
    if (nameEnd === end) continue;
    let keyEnd = nameEnd;
    if (c === 123) {
      const close = endOfLabels(text, nameEnd, end);
      if (close < 0) continue;
      keyEnd = close + 1;
    }
    let valueStart = keyEnd;
    while (valueStart < end && text.charCodeAt(valueStart) === 32) valueStart++;
    let valueEnd = valueStart;
    while (valueEnd < end && text.charCodeAt(valueEnd) !== 32) valueEnd++;
    if (valueEnd === valueStart) continue;
    const valueText = text.slice(valueStart, valueEnd);
    const value = parseValue(valueText);
    if (Number.isNaN(value) && valueText !== 'NaN') continue;
    // `_bucket`, `_sum`, `_count` samples belong to the histogram or summary above them.
    const nameLength = nameEnd - lineStart;
    const ownName = current?.name;
    const owned =
      ownName !== undefined &&
      (nameLength === ownName.length || (nameLength > ownName.length && text.charCodeAt(lineStart + ownName.length) === 95 /* _ */)) &&
      text.startsWith(ownName, lineStart);
    const owner = owned ? current! : familyNamed(text.slice(lineStart, nameEnd));
    owner.series.push({ key: text.slice(lineStart, keyEnd), value });
  }
  return families;
}

/** Adds `worker="<id>"` to a series key, for families kept apart per worker. */
export function withWorkerLabel(key: string, worker: string): string {
  const label = `worker="${worker.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  const brace = key.indexOf('{');
  if (brace < 0) return `${key}{${label}}`;
  return key.endsWith('{}') ? `${key.slice(0, -1)}${label}}` : `${key.slice(0, -1)},${label}}`;
}

/** Families whose samples only ever grow: summed across processes, and kept when a worker dies. */
export function isCumulative(family: ParsedFamily, key: string): boolean {
  if (family.type === 'counter' || family.type === 'histogram') return true;
  // A summary's quantiles cannot be added up; its _sum and _count can.
  if (family.type === 'summary') return !key.includes('quantile="');
  return false;
}

export interface MergeInput {
  /** The process's name in `worker` labels: `primary` or the worker's id. */
  readonly worker: string;
  readonly exposition: Exposition;
}

export interface MergeOptions {
  /** Per family name: how gauges combine. Unlisted gauges use `defaultGaugeRule`. */
  readonly gaugeRules?: Readonly<Record<string, GaugeRule>>;
  readonly defaultGaugeRule?: GaugeRule;
  /** Cumulative series left by workers that have exited, added to every merge (series key → value). */
  readonly retired?: ReadonlyMap<string, { family: ParsedFamily; value: number }>;
}

/** Sensible rules for the runtime gauges every Node process reports. */
export const DEFAULT_GAUGE_RULES: Readonly<Record<string, GaugeRule>> = {
  process_start_time_seconds: 'min',
  process_max_fds: 'min',
  nodejs_eventloop_lag_seconds: 'max',
  nodejs_eventloop_lag_min_seconds: 'min',
  nodejs_eventloop_lag_max_seconds: 'max',
  nodejs_eventloop_lag_mean_seconds: 'max',
  nodejs_eventloop_lag_stddev_seconds: 'max',
  nodejs_eventloop_lag_p50_seconds: 'max',
  nodejs_eventloop_lag_p90_seconds: 'max',
  nodejs_eventloop_lag_p99_seconds: 'max',
  nodejs_version_info: 'max',
  fabric_version: 'max',
  // One failing worker makes the component unhealthy for the service.
  health_check_status: 'min',
};

function combine(rule: Exclude<GaugeRule, 'perWorker'>, a: number, b: number): number {
  if (rule === 'sum') return a + b;
  if (rule === 'max') return Math.max(a, b);
  return Math.min(a, b);
}

/** One family being merged: its series keys in first-seen order, and their values by slot. */
interface MergedFamily {
  readonly family: ParsedFamily;
  readonly keys: string[];
  readonly values: number[];
  /** key → slot, built only when an input's series do not line up with the keys already held. */
  index: Map<string, number> | undefined;
}

/** Set by slotOf: whether the slot it returned was just added (so holds no value yet). */
let slotIsNew = false;

/**
 * The slot of `key` in `target`. `aligned` says that every earlier series of this input took the
 * slot at its own position, so the keys held so far are exactly those series: a key past them is
 * new without a lookup. Processes running the same code render the same series in the same
 * order, so a merge is mostly positional compares, with no hashing.
 */
function slotOf(target: MergedFamily, key: string, expected: number, aligned: boolean): number {
  slotIsNew = false;
  const keys = target.keys;
  if (expected < keys.length) {
    if (keys[expected] === key) return expected;
  } else if (aligned) {
    keys.push(key);
    target.values.push(0);
    target.index?.set(key, expected);
    slotIsNew = true;
    return expected;
  }
  if (target.index === undefined) {
    target.index = new Map();
    for (let i = 0; i < keys.length; i++) target.index.set(keys[i]!, i);
  }
  const found = target.index.get(key);
  if (found !== undefined) return found;
  const slot = keys.length;
  keys.push(key);
  target.values.push(0);
  target.index.set(key, slot);
  slotIsNew = true;
  return slot;
}

/** One exposition from many: the first process to declare a family gives its HELP and TYPE. */
export function mergeExpositions(inputs: readonly MergeInput[], options: MergeOptions = {}): string {
  const rules = { ...DEFAULT_GAUGE_RULES, ...options.gaugeRules };
  const defaultRule = options.defaultGaugeRule ?? 'sum';
  const merged = new Map<string, MergedFamily>();
  const entry = (family: ParsedFamily): MergedFamily => {
    let found = merged.get(family.name);
    if (found === undefined) {
      found = { family, keys: [], values: [], index: undefined };
      merged.set(family.name, found);
    }
    return found;
  };
  for (const { worker, exposition } of inputs) {
    for (const family of exposition.values()) {
      const target = entry(family);
      const kind = target.family.type;
      const rule: GaugeRule = kind === 'gauge' || kind === 'untyped' ? (rules[family.name] ?? defaultRule) : 'sum';
      const cumulativeFamily = kind === 'counter' || kind === 'histogram';
      const series = family.series;
      let expected = 0;
      let aligned = true;
      for (let i = 0; i < series.length; i++) {
        const { key, value } = series[i]!;
        let slot: number;
        if (cumulativeFamily || isCumulative(target.family, key)) {
          slot = slotOf(target, key, expected, aligned);
          target.values[slot] = slotIsNew ? value : target.values[slot]! + value;
        } else if (rule === 'perWorker' || kind === 'summary') {
          slot = slotOf(target, withWorkerLabel(key, worker), expected, aligned);
          target.values[slot] = value;
        } else {
          slot = slotOf(target, key, expected, aligned);
          target.values[slot] = slotIsNew ? value : combine(rule, target.values[slot]!, value);
        }
        aligned &&= slot === expected;
        expected = slot + 1;
      }
    }
  }
  for (const [key, { family, value }] of options.retired ?? []) {
    const target = entry(family);
    const slot = slotOf(target, key, target.keys.length, false);
    target.values[slot] = slotIsNew ? value : target.values[slot]! + value;
  }
  let out = '';
  for (const { family, keys, values } of merged.values()) {
    if (family.help !== '') out += `# HELP ${family.name} ${family.help}\n`;
    out += `# TYPE ${family.name} ${family.type}\n`;
    for (let i = 0; i < keys.length; i++) out += `${keys[i]} ${formatSampleValue(values[i]!)}\n`;
  }
  return out;
}
