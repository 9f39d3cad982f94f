// Combining the StatsD intervals of several processes into the one push the primary sends.
//
// StatsD counters are deltas: each worker hands over what it counted since its last hand-over
// and forgets it, so summing the intervals counts every increment exactly once. Nothing of a
// worker is kept after it exits (unlike the Prometheus merge, which keeps a dead worker's
// totals): its deltas were already pushed, and pushing them again would count them twice.
import type { StatsdInterval } from '@fabric-ops/ops-metrics';
import type { GaugeRule } from '@fabric-ops/ops-metrics/cluster';
import { DEFAULT_GAUGE_RULES } from './gauge-rules.ts';

/** Sensible rules for the `nodejs.` runtime gauges every process pushes (keyed like the Prometheus rules, by metric name). */
export const DEFAULT_STATSD_GAUGE_RULES: Readonly<Record<string, GaugeRule>> = {
  nodejs_eventloop_delay_min_seconds: 'min',
  nodejs_eventloop_delay_max_seconds: 'max',
  nodejs_eventloop_delay_mean_seconds: 'max',
  nodejs_eventloop_delay_p50_seconds: 'max',
  nodejs_eventloop_delay_p99_seconds: 'max',
  nodejs_gc_pause_last_seconds: 'max',
};

export interface StatsdMergeInput {
  /** `primary` or the worker's id: the bucket suffix for `perWorker` gauges. */
  readonly worker: string;
  readonly interval: StatsdInterval;
}

export interface StatsdMergeOptions {
  /** Per metric name (`namespace_subsystem_name`), as for the Prometheus merge. */
  readonly gaugeRules?: Readonly<Record<string, GaugeRule>>;
  readonly defaultGaugeRule?: GaugeRule;
}

export const EMPTY_STATSD_INTERVAL: StatsdInterval = { counters: [], gauges: [], timings: [] };

/** StatsD's forbidden bucket characters, replaced as Fabric replaces them in label values. */
function bucketSegment(worker: string): string {
  return worker.replace(/[.|:\t\n\f\r ]/g, '_');
}

/**
 * One interval from many, by bucket: counters summed, gauges by their metric's rule (`perWorker`
 * gives each process its own bucket, `<bucket>.worker-<id>`), timings concatenated.
 */
export function mergeStatsdIntervals(inputs: readonly StatsdMergeInput[], options: StatsdMergeOptions = {}): StatsdInterval {
  const rules = { ...DEFAULT_GAUGE_RULES, ...DEFAULT_STATSD_GAUGE_RULES, ...options.gaugeRules };
  const defaultRule = options.defaultGaugeRule ?? 'sum';
  const counters = new Map<string, number>();
  const gauges = new Map<string, { value: number; metric: string }>();
  const timings = new Map<string, number[]>();
  for (const { worker, interval } of inputs) {
    for (const [bucket, delta] of interval.counters) counters.set(bucket, (counters.get(bucket) ?? 0) + delta);
    for (const [bucket, value, metric] of interval.gauges) {
      const rule = rules[metric] ?? defaultRule;
      if (rule === 'perWorker') {
        gauges.set(`${bucket}.worker-${bucketSegment(worker)}`, { value, metric });
        continue;
      }
      const held = gauges.get(bucket);
      if (held === undefined) gauges.set(bucket, { value, metric });
      else held.value = rule === 'sum' ? held.value + value : rule === 'max' ? Math.max(held.value, value) : Math.min(held.value, value);
    }
    for (const [bucket, values] of interval.timings) {
      const held = timings.get(bucket);
      if (held === undefined) timings.set(bucket, [...values]);
      else for (const value of values) held.push(value);
    }
  }
  return {
    counters: [...counters],
    gauges: Array.from(gauges, ([bucket, { value, metric }]) => [bucket, value, metric] as const),
    timings: [...timings],
  };
}

/** A number as it crosses a JSON IPC channel: JSON has no NaN or ±Infinity (they would arrive as null). */
type WireNumber = number | 'NaN' | '+Inf' | '-Inf';

/** A StatsD interval on the IPC channel; only non-finite values differ from StatsdInterval. */
export interface WireStatsdInterval {
  readonly counters: readonly (readonly [string, WireNumber])[];
  readonly gauges: readonly (readonly [string, WireNumber, string])[];
  readonly timings: readonly (readonly [string, readonly WireNumber[]])[];
}

function toWire(value: number): WireNumber {
  if (Number.isFinite(value)) return value;
  return Number.isNaN(value) ? 'NaN' : value > 0 ? '+Inf' : '-Inf';
}

function fromWire(value: WireNumber | null): number {
  if (typeof value === 'number') return value;
  return value === '+Inf' ? Infinity : value === '-Inf' ? -Infinity : Number.NaN;
}

/** What a worker sends: the interval itself unless a value is not finite (a gauge set to NaN, an observation of +Inf). */
export function encodeStatsdInterval(interval: StatsdInterval): WireStatsdInterval {
  const finite = (values: readonly number[]) => values.every(Number.isFinite);
  if (interval.counters.every(([, delta]) => Number.isFinite(delta)) && interval.gauges.every(([, value]) => Number.isFinite(value)) && interval.timings.every(([, values]) => finite(values))) {
    return interval;
  }
  return {
    counters: interval.counters.map(([bucket, delta]) => [bucket, toWire(delta)] as const),
    gauges: interval.gauges.map(([bucket, value, metric]) => [bucket, toWire(value), metric] as const),
    timings: interval.timings.map(([bucket, values]) => [bucket, values.map(toWire)] as const),
  };
}

/** The primary's side of encodeStatsdInterval. */
export function decodeStatsdInterval(wire: WireStatsdInterval): StatsdInterval {
  const plain = (value: unknown) => typeof value === 'number';
  if (wire.counters.every(([, delta]) => plain(delta)) && wire.gauges.every(([, value]) => plain(value)) && wire.timings.every(([, values]) => values.every(plain))) {
    return wire as StatsdInterval;
  }
  return {
    counters: wire.counters.map(([bucket, delta]) => [bucket, fromWire(delta)] as const),
    gauges: wire.gauges.map(([bucket, value, metric]) => [bucket, fromWire(value), metric] as const),
    timings: wire.timings.map(([bucket, values]) => [bucket, values.map(fromWire)] as const),
  };
}
