import { errorGuard, FabricOpsError } from '@fabric-ops/ops-http/errors';

/** Every failure ops-metrics raises, by cause. */
export type MetricsErrorCode =
  /** `with()` named a label the metric was not declared with. */
  | 'INVALID_LABEL_NAME'
  /** A value was recorded before every declared label had a value. */
  | 'MISSING_LABEL_VALUE'
  /** A counter was given a negative or non-finite delta, or a histogram NaN. */
  | 'INVALID_VALUE'
  /** Metric options that can never work: bad name, bad buckets, bad StatsD template. */
  | 'INVALID_METRIC_OPTIONS'
  /** A metric of that name already exists with different options. */
  | 'DUPLICATE_METRIC'
  /** Provider options that cannot work (unknown provider, port 0, writeIntervalMs ≤ 0, …). */
  | 'INVALID_SETTINGS'
  /** OTLP push was asked for and OpenTelemetry's exporter packages (optional peers) cannot be loaded. */
  | 'OTLP_UNAVAILABLE';

export class MetricsError extends FabricOpsError<MetricsErrorCode> {
  override readonly name = 'MetricsError';
}

/** True for a MetricsError, also across duplicate copies of this package. */
export const isMetricsError: (value: unknown) => value is MetricsError = errorGuard(MetricsError, 'MetricsError');
