import { formatGoFloat } from './format-float.ts';
import type { StatsdInterval } from './types.ts';

export const DEFAULT_MAX_TIMINGS_PER_INTERVAL = 100_000;

/**
 * What Fabric's go-kit StatsD store keeps between flushes: counter deltas summed,
 * the last gauge value (an `add` adds to it, or to 0 after a flush), and every
 * histogram observation. Draining returns the wire lines and forgets everything,
 * so a metric with no activity in the interval is not sent at all.
 */
export class StatsdAggregate {
  private counters = new Map<string, number>();
  /** bucket → the gauge's value and the metric (`namespace_subsystem_name`) it belongs to. */
  private gauges = new Map<string, { metric: string; value: number }>();
  private timings = new Map<string, number[]>();
  private timingCount = 0;
  /** Observations refused because the interval already held `maxTimings`. */
  droppedTimings = 0;

  constructor(private readonly maxTimings: number = DEFAULT_MAX_TIMINGS_PER_INTERVAL) {}

  count(bucket: string, delta: number): void {
    this.counters.set(bucket, (this.counters.get(bucket) ?? 0) + delta);
  }

  setGauge(bucket: string, value: number, metric: string = bucket): void {
    const held = this.gauges.get(bucket);
    if (held === undefined) this.gauges.set(bucket, { metric, value });
    else held.value = value;
  }

  addGauge(bucket: string, delta: number, metric: string = bucket): void {
    const held = this.gauges.get(bucket);
    if (held === undefined) this.gauges.set(bucket, { metric, value: delta });
    else held.value += delta;
  }

  time(bucket: string, value: number): void {
    if (this.timingCount >= this.maxTimings) {
      this.droppedTimings++;
      return;
    }
    this.timingCount++;
    const list = this.timings.get(bucket);
    if (list === undefined) this.timings.set(bucket, [value]);
    else list.push(value);
  }

  /** Drops what the interval holds for `bucket` (a removed series' unsent values). */
  forget(bucket: string): void {
    this.counters.delete(bucket);
    this.gauges.delete(bucket);
    const list = this.timings.get(bucket);
    if (list === undefined) return;
    this.timingCount -= list.length;
    this.timings.delete(bucket);
  }

  get isEmpty(): boolean {
    return this.counters.size === 0 && this.gauges.size === 0 && this.timings.size === 0;
  }

  /** The interval's lines (counters, then gauges, then timings), `prefix` already normalised. */
  drain(prefix: string): string[] {
    return statsdLines(this.take(), prefix);
  }

  /** The interval as data (no prefix), and a fresh one begins. */
  take(): StatsdInterval {
    const interval: StatsdInterval = {
      counters: [...this.counters],
      gauges: Array.from(this.gauges, ([bucket, { metric, value }]) => [bucket, value, metric] as const),
      timings: [...this.timings],
    };
    this.counters = new Map();
    this.gauges = new Map();
    this.timings = new Map();
    this.timingCount = 0;
    return interval;
  }
}

/** Fabric's wire lines for an interval: counters, then gauges, then timings. */
export function statsdLines(interval: StatsdInterval, prefix: string): string[] {
  const lines: string[] = [];
  for (const [bucket, sum] of interval.counters) lines.push(`${prefix}${bucket}:${formatGoFloat(sum)}|c`);
  for (const [bucket, value] of interval.gauges) lines.push(`${prefix}${bucket}:${formatGoFloat(value)}|g`);
  for (const [bucket, values] of interval.timings) {
    for (const value of values) lines.push(`${prefix}${bucket}:${formatGoFloat(value)}|ms`);
  }
  return lines;
}

/** Groups lines into packets of at most `maxBytes` (a line longer than that travels alone). */
export function packLines(lines: readonly string[], maxBytes: number): string[][] {
  const packets: string[][] = [];
  let current: string[] = [];
  let size = 0;
  for (const line of lines) {
    const bytes = Buffer.byteLength(line) + 1;
    if (current.length > 0 && size + bytes > maxBytes) {
      packets.push(current);
      current = [];
      size = 0;
    }
    current.push(line);
    size += bytes;
  }
  if (current.length > 0) packets.push(current);
  return packets;
}

/** Reconnect delay after `failures` consecutive failed attempts: 1 s doubling, capped at 1 min. */
export function backoffDelayMs(failures: number, initialMs = 1_000, maxMs = 60_000): number {
  return Math.min(maxMs, initialMs * 2 ** Math.max(0, Math.min(failures - 1, 30)));
}
