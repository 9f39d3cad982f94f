import type { Declaration } from './declare.ts';
import { escapeLabelValue, familyNameFor, formatBound, formatSampleValue, headerLines, labelPairs } from './exposition.ts';
import { Family, type FamilyBackend, type SeriesSink } from './family.ts';
import type { ExpositionFormat } from './negotiate.ts';

/** One counter or gauge series. */
class ScalarSeries implements SeriesSink {
  value = 0;
  private text: string | undefined;

  constructor(readonly labelValues: readonly string[]) {}

  add(delta: number): void {
    this.value += delta;
  }

  set(value: number): void {
    this.value = value;
  }

  observe(): void {}

  /** `{a="x"}`, computed once. */
  labelText(names: readonly string[]): string {
    return (this.text ??= names.length === 0 ? '' : `{${labelPairs(names, this.labelValues)}}`);
  }
}

/** One histogram series: per-bucket (not cumulative) counts, sum and count. */
class HistogramSeries implements SeriesSink {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  private prefix: string | undefined;

  constructor(
    readonly labelValues: readonly string[],
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length);
  }

  add(): void {}

  set(): void {}

  observe(value: number): void {
    this.sum += value;
    this.count++;
    const bounds = this.bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]!) {
        this.counts[i]!++;
        return;
      }
    }
  }

  /** `a="x",` ready to be followed by `le="..."`, computed once. */
  labelPrefix(names: readonly string[]): string {
    return (this.prefix ??= names.length === 0 ? '' : `${labelPairs(names, this.labelValues)},`);
  }
}

type Series = ScalarSeries | HistogramSeries;

/**
 * The storage of one metric family for the Prometheus provider: its series, and the
 * exposition lines the renderer reads from them a slice at a time, without building
 * an object per sample.
 */
export class PrometheusFamily implements FamilyBackend {
  readonly cachesSeries = true;
  readonly family: Family;
  readonly name: string;
  readonly help: string;
  readonly type: string;
  private readonly series = new Set<Series>();

  constructor(
    readonly declaration: Declaration,
    maxSeries: number,
    onSeriesLimit: (name: string, max: number) => void,
  ) {
    this.name = declaration.name;
    this.help = declaration.help;
    this.type = declaration.kind;
    this.family = new Family({
      kind: declaration.kind,
      displayName: declaration.name,
      labelNames: declaration.labelNames,
      backend: this,
      maxSeries,
      onSeriesLimit,
    });
  }

  createSeries(values: readonly string[]): SeriesSink {
    const series = this.declaration.kind === 'histogram' ? new HistogramSeries(values, this.declaration.buckets) : new ScalarSeries(values);
    this.series.add(series);
    return series;
  }

  get seriesCount(): number {
    return this.series.size;
  }

  *lines(format: ExpositionFormat): Generator<string> {
    if (this.series.size === 0) return;
    const openMetrics = format.kind === 'openmetrics';
    const names = this.declaration.labelNames;
    const family = familyNameFor(this.name, this.type, format);
    yield* headerLines(family, this.help, this.type, format);
    if (this.declaration.kind !== 'histogram') {
      const sample = openMetrics && this.type === 'counter' ? `${family}_total` : this.name;
      for (const series of this.series as Set<ScalarSeries>) {
        yield `${sample}${series.labelText(names)} ${formatSampleValue(series.value)}`;
      }
      return;
    }
    const bounds = this.declaration.buckets;
    const le = [...bounds.map((b) => `le="${escapeLabelValue(formatBound(b, openMetrics))}"} `), 'le="+Inf"} '];
    for (const series of this.series as Set<HistogramSeries>) {
      const prefix = series.labelPrefix(names);
      const head = `${this.name}_bucket{${prefix}`;
      let cumulative = 0;
      for (let i = 0; i < bounds.length; i++) {
        cumulative += series.counts[i]!;
        yield `${head}${le[i]}${cumulative}`;
      }
      yield `${head}${le[bounds.length]}${series.count}`;
      const braces = prefix === '' ? '' : `{${prefix.slice(0, -1)}}`;
      yield `${this.name}_sum${braces} ${formatSampleValue(series.sum)}`;
      yield `${this.name}_count${braces} ${series.count}`;
    }
  }
}
