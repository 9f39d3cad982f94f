// Merging the Prometheus text expositions of several processes into one.
//
// Workers hand the primary their exposition text rather than a structured dump, so any
// instrumentation a worker uses (ops-metrics, the application's own prom-client registry) is
// aggregated the same way, and the primary needs no knowledge of the workers' storage.

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

/** Where the sample's label set ends: the `}` outside a quoted value (values may hold `}` and spaces). */
function endOfLabels(line: string, open: number): number {
  let quoted = false;
  for (let i = open + 1; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (quoted) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) quoted = false;
    } else if (c === 34) quoted = true;
    else if (c === 125 /* } */) return i;
  }
  return -1;
}

/**
 * Parses the text format (0.0.4). Lines that cannot be read are skipped rather than failing the
 * whole scrape: one worker's odd metric must not take the others' away.
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
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const line = text.slice(start, end);
    start = end + 1;
    if (line.length === 0) continue;
    if (line.charCodeAt(0) === 35 /* # */) {
      const match = /^#\s+(HELP|TYPE)\s+(\S+)\s?(.*)$/.exec(line);
      if (match === null) continue;
      current = familyNamed(match[2]!);
      if (match[1] === 'TYPE') current.type = match[3]!.trim();
      else current.help = match[3]!;
      continue;
    }
    const brace = line.indexOf('{');
    const space = line.indexOf(' ');
    let key: string;
    let rest: string;
    if (brace >= 0 && (space < 0 || brace < space)) {
      const close = endOfLabels(line, brace);
      if (close < 0) continue;
      key = line.slice(0, close + 1);
      rest = line.slice(close + 1).trim();
    } else {
      if (space < 0) continue;
      key = line.slice(0, space);
      rest = line.slice(space + 1).trim();
    }
    const valueText = rest.split(' ', 1)[0]!;
    const value = parseValue(valueText);
    if (Number.isNaN(value) && valueText !== 'NaN') continue;
    const sampleName = brace >= 0 && brace < key.length ? key.slice(0, brace) : key;
    // `_bucket`, `_sum`, `_count` samples belong to the histogram or summary above them.
    const owner = current !== undefined && (sampleName === current.name || sampleName.startsWith(`${current.name}_`)) ? current : familyNamed(sampleName);
    owner.series.push({ key, value });
  }
  return families;
}

/**
 * Sample values as the single-process renderer (ops-metrics) prints them: `+Inf`, `-Inf`, `NaN`,
 * otherwise JavaScript's shortest round-trip form (`1000000`, `1e+21`). A counter reads the same
 * with and without the cluster; both parse to the same number in Prometheus.
 */
export function formatSampleValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
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

/** One exposition from many: the first process to declare a family gives its HELP and TYPE. */
export function mergeExpositions(inputs: readonly MergeInput[], options: MergeOptions = {}): string {
  const rules = { ...DEFAULT_GAUGE_RULES, ...options.gaugeRules };
  const defaultRule = options.defaultGaugeRule ?? 'sum';
  interface Merged {
    family: ParsedFamily;
    values: Map<string, number>;
  }
  const merged = new Map<string, Merged>();
  const entry = (family: ParsedFamily): Merged => {
    let found = merged.get(family.name);
    if (found === undefined) {
      found = { family, values: new Map() };
      merged.set(family.name, found);
    }
    return found;
  };
  for (const { worker, exposition } of inputs) {
    for (const family of exposition.values()) {
      const target = entry(family);
      const kind = target.family.type;
      const rule: GaugeRule = kind === 'gauge' || kind === 'untyped' ? (rules[family.name] ?? defaultRule) : 'sum';
      for (const { key, value } of family.series) {
        if (isCumulative(target.family, key)) {
          target.values.set(key, (target.values.get(key) ?? 0) + value);
        } else if (rule === 'perWorker' || target.family.type === 'summary') {
          target.values.set(withWorkerLabel(key, worker), value);
        } else {
          const previous = target.values.get(key);
          target.values.set(key, previous === undefined ? value : combine(rule, previous, value));
        }
      }
    }
  }
  for (const [key, { family, value }] of options.retired ?? []) {
    const target = entry(family);
    target.values.set(key, (target.values.get(key) ?? 0) + value);
  }
  const out: string[] = [];
  for (const { family, values } of merged.values()) {
    if (family.help !== '') out.push(`# HELP ${family.name} ${family.help}`);
    out.push(`# TYPE ${family.name} ${family.type}`);
    for (const [key, value] of values) out.push(`${key} ${formatSampleValue(value)}`);
  }
  return out.length === 0 ? '' : `${out.join('\n')}\n`;
}
