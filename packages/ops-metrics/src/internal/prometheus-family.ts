import type { Declaration } from './declare.ts';
import type { BodyWriter } from './body-writer.ts';
import { escapeLabelValue, familyNameFor, formatBound, headerLines, labelPairs } from './exposition.ts';
import { Family, type FamilyBackend, type SeriesSink } from './family.ts';
import type { ExpositionFormat } from './negotiate.ts';
import { QuantileWindow } from './summary-window.ts';

/** One counter or gauge series. */
class ScalarSeries implements SeriesSink {
  value = 0;
  /** `name{a="x"} ` per format, made on the first scrape and kept: a scrape builds no strings for them. */
  textPrefix: string | undefined;
  openMetricsPrefix: string | undefined;

  constructor(readonly labelValues: readonly string[]) {}

  add(delta: number): void {
    this.value += delta;
  }

  set(value: number): void {
    this.value = value;
  }

  observe(): void {}
}

/**
 * What histogram and summary series share: sum and count over the series' whole life, the
 * prefixes of their lines (made on the first scrape, the same in both formats), and no `add` or
 * `set` (they only observe).
 */
abstract class ObservedSeries implements SeriesSink {
  sum = 0;
  count = 0;
  /** The opening of each bucket or quantile line: `name_bucket{a="x",` or `name{a="x",`. */
  linePrefix: string | undefined;
  /** `name_sum{a="x"} ` and `name_count{a="x"} `. */
  sumPrefix = '';
  countPrefix = '';

  constructor(readonly labelValues: readonly string[]) {}

  add(): void {}

  set(): void {}

  abstract observe(value: number): void;
}

/** One histogram series: per-bucket (not cumulative) counts, sum and count. */
class HistogramSeries extends ObservedSeries {
  readonly counts: Float64Array;

  constructor(
    labelValues: readonly string[],
    private readonly bounds: readonly number[],
  ) {
    super(labelValues);
    this.counts = new Float64Array(bounds.length);
  }

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
}

/** One summary series: quantiles over its sliding window, sum and count over its whole life. */
export class SummarySeries extends ObservedSeries {
  readonly window: QuantileWindow;

  constructor(labelValues: readonly string[], window: { readonly maxAgeSeconds: number; readonly ageBuckets: number }) {
    super(labelValues);
    this.window = new QuantileWindow({ maxAgeMs: window.maxAgeSeconds * 1000, ageBuckets: window.ageBuckets });
  }

  observe(value: number): void {
    this.sum += value;
    this.count++;
    this.window.observe(value);
  }
}

export type Series = ScalarSeries | HistogramSeries | SummarySeries;

const NEWLINE = 0x0a;

/** What a family writes the same way every scrape in one format, made on first use. */
interface FormatText {
  /** `# HELP …\n# TYPE …\n`. */
  readonly header: string;
  /** The sample name of a counter or gauge (`_total` added for OpenMetrics counters). */
  readonly sample: string;
  /** `le="…"} ` per bucket bound, then `le="+Inf"} `. */
  readonly le: readonly string[];
  /** `quantile="…"} ` per quantile of a summary. */
  readonly quantile: readonly string[];
}

/**
 * The storage of one metric family for the Prometheus provider: its series, and how the
 * renderer writes them. Every string a scrape writes except the sample values is made once
 * and kept with its family or series, so a scrape allocates little beyond the numbers' text.
 */
export class PrometheusFamily implements FamilyBackend {
  readonly cachesSeries = true;
  readonly family: Family;
  readonly name: string;
  readonly help: string;
  readonly type: string;
  readonly series: Set<Series> = new Set<Series>();
  private textFormat: FormatText | undefined;
  private openMetricsFormat: FormatText | undefined;

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
    const { kind, summary } = this.declaration;
    const series =
      kind === 'histogram' ? new HistogramSeries(values, this.declaration.buckets) : kind === 'summary' && summary !== undefined ? new SummarySeries(values, summary) : new ScalarSeries(values);
    this.series.add(series);
    return series;
  }

  removeSeries(sink: SeriesSink): void {
    // A scrape iterating the set meanwhile skips it (Set iteration tolerates deletion).
    this.series.delete(sink as Series);
  }

  /** Exposition lines one series takes: 1, a histogram's buckets, +Inf, sum and count, or a summary's quantiles, sum and count. */
  get linesPerSeries(): number {
    const { kind, buckets, summary } = this.declaration;
    return kind === 'histogram' ? buckets.length + 3 : kind === 'summary' ? (summary?.quantiles.length ?? 0) + 2 : 1;
  }

  get seriesCount(): number {
    return this.series.size;
  }

  private formatText(format: ExpositionFormat): FormatText {
    const openMetrics = format.kind === 'openmetrics';
    const cached = openMetrics ? this.openMetricsFormat : this.textFormat;
    if (cached !== undefined) return cached;
    const family = familyNameFor(this.name, this.type, format);
    let header = '';
    for (const line of headerLines(family, this.help, this.type, format)) header += `${line}\n`;
    const bounds = this.declaration.kind === 'histogram' ? this.declaration.buckets : [];
    const made: FormatText = {
      header,
      sample: openMetrics && this.type === 'counter' ? `${family}_total` : this.name,
      le: [...bounds.map((b) => `le="${escapeLabelValue(formatBound(b, openMetrics))}"} `), 'le="+Inf"} '],
      quantile: (this.declaration.summary?.quantiles ?? []).map((q) => `quantile="${formatBound(q, openMetrics)}"} `),
    };
    if (openMetrics) this.openMetricsFormat = made;
    else this.textFormat = made;
    return made;
  }

  /** Writes the HELP and TYPE lines; false (and nothing written) when the family has no series. */
  writeHeader(writer: BodyWriter, format: ExpositionFormat): boolean {
    if (this.series.size === 0) return false;
    writer.write(this.formatText(format).header);
    return true;
  }

  /** Writes one series' sample lines. */
  writeSeries(writer: BodyWriter, series: Series, format: ExpositionFormat): void {
    const text = this.formatText(format);
    const names = this.declaration.labelNames;
    if (series instanceof ScalarSeries) {
      let prefix: string;
      if (format.kind === 'openmetrics') {
        prefix = series.openMetricsPrefix ??= `${text.sample}${scalarLabels(names, series.labelValues)} `;
      } else {
        prefix = series.textPrefix ??= `${text.sample}${scalarLabels(names, series.labelValues)} `;
      }
      writer.write(prefix);
      writer.number(series.value);
      writer.byte(NEWLINE);
      return;
    }
    if (series instanceof SummarySeries) {
      writeSummarySeries(writer, this.name, names, series, text.quantile, this.declaration.summary?.quantiles ?? []);
      return;
    }
    const bucketPrefix = linePrefix(series, `${this.name}_bucket`, this.name, names);
    const le = text.le;
    const counts = series.counts;
    let cumulative = 0;
    for (let i = 0; i < counts.length; i++) {
      cumulative += counts[i]!;
      writer.write(bucketPrefix);
      writer.write(le[i]!);
      writer.number(cumulative);
      writer.byte(NEWLINE);
    }
    writer.write(bucketPrefix);
    writer.write(le[counts.length]!);
    writer.number(series.count);
    writer.byte(NEWLINE);
    writeSumAndCount(writer, series);
  }
}

function scalarLabels(names: readonly string[], values: readonly string[]): string {
  return names.length === 0 ? '' : `{${labelPairs(names, values)}}`;
}

function writeSummarySeries(writer: BodyWriter, name: string, names: readonly string[], series: SummarySeries, quantileTexts: readonly string[], quantiles: readonly number[]): void {
  const quantilePrefix = linePrefix(series, name, name, names);
  const estimates = series.window.quantiles(quantiles);
  for (let i = 0; i < estimates.length; i++) {
    writer.write(quantilePrefix);
    writer.write(quantileTexts[i]!);
    writer.number(estimates[i]!);
    writer.byte(NEWLINE);
  }
  writeSumAndCount(writer, series);
}

/**
 * The opening of the series' bucket or quantile lines (`sample` is `name_bucket` or `name`), made
 * with its `_sum` and `_count` prefixes on the first scrape and kept.
 */
function linePrefix(series: ObservedSeries, sample: string, name: string, names: readonly string[]): string {
  if (series.linePrefix === undefined) {
    const pairs = names.length === 0 ? '' : labelPairs(names, series.labelValues);
    const braces = pairs === '' ? '' : `{${pairs}}`;
    series.linePrefix = `${sample}{${pairs === '' ? '' : `${pairs},`}`;
    series.sumPrefix = `${name}_sum${braces} `;
    series.countPrefix = `${name}_count${braces} `;
  }
  return series.linePrefix;
}

function writeSumAndCount(writer: BodyWriter, series: ObservedSeries): void {
  writer.write(series.sumPrefix);
  writer.number(series.sum);
  writer.byte(NEWLINE);
  writer.write(series.countPrefix);
  writer.number(series.count);
  writer.byte(NEWLINE);
}
