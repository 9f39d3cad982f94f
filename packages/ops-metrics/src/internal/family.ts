import { MetricsError } from './errors.ts';
import type { Counter, Gauge, Histogram, Summary } from './types.ts';

export type MetricKind = 'counter' | 'gauge' | 'histogram' | 'summary';

/** Where one labelled series' values go; each provider has its own. */
export interface SeriesSink {
  add(delta: number): void;
  set(value: number): void;
  observe(value: number): void;
}

export interface FamilyBackend {
  /** Makes the sink for one complete set of label values (declaration order). */
  createSeries(values: readonly string[]): SeriesSink;
  /** False when sinks are stateless and need no cache (the disabled provider). */
  readonly cachesSeries: boolean;
  /** Forgets a series `createSeries` made (Prometheus: it leaves the exposition; StatsD: its unsent values are dropped). */
  removeSeries(sink: SeriesSink): void;
}

export const NOOP_SINK: SeriesSink = { add() {}, set() {}, observe() {} };

/** Turns label values into one map key; NUL cannot collide unless a value holds one. */
function seriesKey(values: readonly string[]): string {
  if (values.length === 1) return values[0]!;
  const joined = values.join('\u0000');
  return values.some((v) => v.includes('\u0000') || v.includes('\u0001')) ? `\u0001${JSON.stringify(values)}` : joined;
}

export interface FamilyOptions {
  readonly kind: MetricKind;
  /** Used in error messages. */
  readonly displayName: string;
  readonly labelNames: readonly string[];
  readonly backend: FamilyBackend;
  readonly maxSeries: number;
  /** Called once when the first series beyond maxSeries is refused. */
  readonly onSeriesLimit: (displayName: string, maxSeries: number) => void;
}

/**
 * Label handling shared by every provider: `with()` pairs, validation, the series
 * cache and its bound. The provider only decides what a series does with a value.
 */
export class Family {
  readonly kind: MetricKind;
  readonly displayName: string;
  readonly labelNames: readonly string[];
  private readonly backend: FamilyBackend;
  private readonly series = new Map<string, SeriesSink>();
  private readonly maxSeries: number;
  private readonly onSeriesLimit: (displayName: string, maxSeries: number) => void;
  private limitReported = false;
  droppedSeriesWrites = 0;
  /**
   * Counts removals. A child keeps the sink it resolved; when this moved since, the sink may be
   * a removed series', so the child resolves again (and a write after a removal re-adds the series).
   */
  epoch = 0;

  constructor(options: FamilyOptions) {
    this.kind = options.kind;
    this.displayName = options.displayName;
    this.labelNames = options.labelNames;
    this.backend = options.backend;
    this.maxSeries = options.maxSeries;
    this.onSeriesLimit = options.onSeriesLimit;
  }

  root(): Instrument {
    return new Instrument(this, new Array<string | undefined>(this.labelNames.length).fill(undefined));
  }

  /** Label values after applying `with(k1, v1, k2, v2, ...)` on top of `base`. */
  merge(base: readonly (string | undefined)[], pairs: readonly string[]): (string | undefined)[] {
    const values = base.slice();
    for (let i = 0; i < pairs.length; i += 2) {
      const label = String(pairs[i]);
      const index = this.labelNames.indexOf(label);
      if (index < 0) {
        throw new MetricsError('INVALID_LABEL_NAME', `${this.displayName}: invalid label name: ${label} (declared labels: ${this.labelNames.join(', ') || 'none'})`);
      }
      values[index] = i + 1 < pairs.length ? String(pairs[i + 1]) : 'unknown';
    }
    return values;
  }

  private complete(values: readonly (string | undefined)[]): readonly string[] {
    for (let i = 0; i < values.length; i++) {
      if (values[i] === undefined) {
        const missing = this.labelNames.filter((_, j) => values[j] === undefined);
        throw new MetricsError('MISSING_LABEL_VALUE', `${this.displayName}: label values must be provided by calling with(): missing ${missing.join(', ')}`);
      }
    }
    return values as readonly string[];
  }

  resolve(values: readonly (string | undefined)[]): SeriesSink {
    const complete = this.complete(values);
    if (!this.backend.cachesSeries) return this.backend.createSeries(complete);
    const key = seriesKey(complete);
    let sink = this.series.get(key);
    if (sink === undefined) {
      if (this.series.size >= this.maxSeries) return this.refuse();
      sink = this.backend.createSeries(complete);
      this.series.set(key, sink);
    }
    return sink;
  }

  /** Removes the series with exactly these label values; false when there is none. */
  remove(values: readonly (string | undefined)[]): boolean {
    const complete = this.complete(values);
    if (!this.backend.cachesSeries) return false;
    const key = seriesKey(complete);
    const sink = this.series.get(key);
    if (sink === undefined) return false;
    this.series.delete(key);
    this.epoch++;
    this.backend.removeSeries(sink);
    return true;
  }

  private refuse(): SeriesSink {
    if (!this.limitReported) {
      this.limitReported = true;
      this.onSeriesLimit(this.displayName, this.maxSeries);
    }
    const family = this;
    return {
      add() {
        family.droppedSeriesWrites++;
      },
      set() {
        family.droppedSeriesWrites++;
      },
      observe() {
        family.droppedSeriesWrites++;
      },
    };
  }
}

/** A metric or one of its labelled children; the public types narrow it per kind. */
export class Instrument implements Counter, Gauge, Histogram, Summary {
  private sink: SeriesSink | undefined;
  /** The family's `epoch` when `sink` was resolved. */
  private epoch = 0;

  constructor(
    private readonly family: Family,
    private readonly values: readonly (string | undefined)[],
  ) {}

  with(...labelPairs: string[]): Instrument {
    return new Instrument(this.family, this.family.merge(this.values, labelPairs));
  }

  add(delta: number): void {
    if (this.family.kind === 'counter' && !(delta >= 0 && delta !== Infinity)) {
      throw new MetricsError('INVALID_VALUE', `${this.family.displayName}: a counter can only grow by a finite, non-negative amount, got ${delta}`);
    }
    if (typeof delta !== 'number') throw new MetricsError('INVALID_VALUE', `${this.family.displayName}: not a number: ${String(delta)}`);
    this.current().add(delta);
  }

  set(value: number): void {
    if (typeof value !== 'number') throw new MetricsError('INVALID_VALUE', `${this.family.displayName}: not a number: ${String(value)}`);
    this.current().set(value);
  }

  observe(value: number): void {
    if (typeof value !== 'number' || Number.isNaN(value)) {
      throw new MetricsError('INVALID_VALUE', `${this.family.displayName}: cannot observe ${value}`);
    }
    this.current().observe(value);
  }

  startTimer(): () => number {
    const started = process.hrtime.bigint();
    return () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      this.observe(seconds);
      return seconds;
    };
  }

  remove(): boolean {
    this.sink = undefined;
    return this.family.remove(this.values);
  }

  private current(): SeriesSink {
    const family = this.family;
    if (this.sink === undefined || this.epoch !== family.epoch) {
      this.sink = family.resolve(this.values);
      this.epoch = family.epoch;
    }
    return this.sink;
  }
}
