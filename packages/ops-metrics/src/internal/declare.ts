import { MetricsError } from './errors.ts';
import type { MetricKind } from './family.ts';
import { compileStatsdFormat, DEFAULT_STATSD_FORMAT, prometheusName, validateLabelNames, validateMetricName, type NameParts, type TemplatePiece } from './naming.ts';
import type { HistogramOptions, MetricOptions, SummaryOptions } from './types.ts';

/** Prometheus's default buckets (seconds), the ones Fabric's histograms use. */
export const DEFAULT_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** A Summary's quantiles and window when none are given. */
export const DEFAULT_QUANTILES: readonly number[] = [0.5, 0.9, 0.99];
export const DEFAULT_MAX_AGE_SECONDS = 600;
export const DEFAULT_AGE_BUCKETS = 5;
/** More slices buy little smoothness and cost memory per series. */
const MAX_AGE_BUCKETS = 60;

/** A Summary's quantiles (ascending, unique) and sliding window. */
export interface SummaryWindow {
  readonly quantiles: readonly number[];
  readonly maxAgeSeconds: number;
  readonly ageBuckets: number;
}

/** A metric declaration after validation, the same for every provider. */
export interface Declaration {
  readonly kind: MetricKind;
  readonly parts: NameParts;
  /** `namespace_subsystem_name`. */
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  readonly statsdFormat: string;
  readonly statsdPieces: readonly TemplatePiece[];
  /** Histograms only; empty otherwise. */
  readonly buckets: readonly number[];
  /** Summaries only. */
  readonly summary?: SummaryWindow;
}

function validateBuckets(name: string, buckets: readonly number[]): void {
  for (let i = 0; i < buckets.length; i++) {
    const bound = buckets[i]!;
    if (typeof bound !== 'number' || Number.isNaN(bound) || (i > 0 && bound <= buckets[i - 1]!)) {
      throw new MetricsError('INVALID_METRIC_OPTIONS', `${name}: buckets must be numbers in strictly increasing order, got [${buckets.join(', ')}]`);
    }
  }
}

function summaryWindow(name: string, options: SummaryOptions): SummaryWindow {
  const invalid = (message: string): never => {
    throw new MetricsError('INVALID_METRIC_OPTIONS', `${name}: ${message}`);
  };
  const given = options.quantiles ?? DEFAULT_QUANTILES;
  if (!Array.isArray(given)) invalid(`quantiles must be an array of numbers from 0 to 1, got ${String(given)}`);
  for (const quantile of given) {
    if (typeof quantile !== 'number' || !(quantile >= 0 && quantile <= 1)) invalid(`quantiles must be numbers from 0 to 1, got [${given.join(', ')}]`);
  }
  const quantiles = [...new Set(given)].sort((a, b) => a - b);
  const maxAgeSeconds = options.maxAgeSeconds ?? DEFAULT_MAX_AGE_SECONDS;
  if (typeof maxAgeSeconds !== 'number' || !(maxAgeSeconds > 0 && maxAgeSeconds <= 2_147_483)) {
    invalid(`maxAgeSeconds must be a number of seconds above 0 and at most 2147483, got ${String(maxAgeSeconds)}`);
  }
  const ageBuckets = options.ageBuckets ?? DEFAULT_AGE_BUCKETS;
  if (!Number.isInteger(ageBuckets) || ageBuckets < 1 || ageBuckets > MAX_AGE_BUCKETS) {
    invalid(`ageBuckets must be an integer from 1 to ${MAX_AGE_BUCKETS}, got ${String(ageBuckets)}`);
  }
  return { quantiles, maxAgeSeconds, ageBuckets };
}

export function declare(kind: MetricKind, options: MetricOptions | HistogramOptions | SummaryOptions): Declaration {
  if (options === null || typeof options !== 'object') {
    throw new MetricsError('INVALID_METRIC_OPTIONS', `metric options must be an object, got ${String(options)}`);
  }
  const parts: NameParts = { namespace: options.namespace ?? '', subsystem: options.subsystem ?? '', name: options.name ?? '' };
  if (parts.name === '') throw new MetricsError('INVALID_METRIC_OPTIONS', 'metric options: name is required');
  const name = prometheusName(parts);
  validateMetricName(name);
  const labelNames = [...(options.labelNames ?? [])];
  validateLabelNames(name, labelNames);
  const statsdFormat = options.statsdFormat || DEFAULT_STATSD_FORMAT;
  const statsdPieces = compileStatsdFormat(statsdFormat, parts, labelNames);
  let buckets: readonly number[] = [];
  if (kind === 'histogram') {
    const given = (options as HistogramOptions).buckets;
    buckets = given === undefined || given.length === 0 ? DEFAULT_BUCKETS : given.filter((b) => b !== Infinity);
    validateBuckets(name, buckets);
  }
  const summary = kind === 'summary' ? summaryWindow(name, options as SummaryOptions) : undefined;
  return { kind, parts, name, help: options.help ?? '', labelNames, statsdFormat, statsdPieces, buckets, ...(summary === undefined ? {} : { summary }) };
}

/** Declaring the same metric twice is fine; the same name with other options is not. */
export function assertSameDeclaration(existing: Declaration, wanted: Declaration): void {
  const same =
    existing.kind === wanted.kind &&
    existing.help === wanted.help &&
    existing.statsdFormat === wanted.statsdFormat &&
    existing.labelNames.join(',') === wanted.labelNames.join(',') &&
    existing.buckets.join(',') === wanted.buckets.join(',') &&
    JSON.stringify(existing.summary) === JSON.stringify(wanted.summary);
  if (!same) {
    throw new MetricsError('DUPLICATE_METRIC', `${wanted.name}: already declared as a ${existing.kind} with labels [${existing.labelNames.join(', ')}] and other options`);
  }
}
