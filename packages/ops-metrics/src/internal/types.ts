import type { KeyedFamily } from './series-merge.ts';
import type { SeriesSnapshot } from './series-snapshot.ts';

/** What every metric is declared with (Fabric's CounterOpts / GaugeOpts). */
export interface MetricOptions {
  readonly namespace?: string;
  readonly subsystem?: string;
  /** Required; the last part of the name. */
  readonly name: string;
  readonly help: string;
  /** The labels `with()` accepts, in the order StatsD templates and exposition use them. */
  readonly labelNames?: readonly string[];
  /** StatsD bucket template, e.g. `%{#fqname}.%{channel}`; default `%{#fqname}`. */
  readonly statsdFormat?: string;
}

export interface HistogramOptions extends MetricOptions {
  /** Upper bounds, strictly increasing; `+Inf` is implied. Prometheus's defaults when omitted. */
  readonly buckets?: readonly number[];
}

/**
 * A Summary (prom-client's `Summary`, client_golang's `SummaryOpts`): quantiles over a sliding time
 * window, plus `_sum` and `_count` over the metric's whole life.
 */
export interface SummaryOptions extends MetricOptions {
  /** The quantiles reported, each in [0, 1] (prom-client's `percentiles`). Default [0.5, 0.9, 0.99]. */
  readonly quantiles?: readonly number[];
  /** How far back the quantiles look, in seconds (client_golang's `MaxAge`). Default 600. */
  readonly maxAgeSeconds?: number;
  /** Slices of the window, dropped one at a time as they age out (client_golang's `AgeBuckets`). Default 5. */
  readonly ageBuckets?: number;
}

export interface Counter {
  /** A child with these label values: `with('channel', 'mych', 'type', 'x')`. A trailing key without a value gets `unknown`. */
  with(...labelPairs: string[]): Counter;
  /** Adds a non-negative, finite delta. */
  add(delta: number): void;
  /**
   * Removes the series with this child's label values (every declared label needs one): it leaves
   * `/metrics`, and with StatsD what it gathered this interval is not sent. A later write creates it
   * afresh, from zero. True when there was such a series; removing an unknown one does nothing.
   */
  remove(): boolean;
}

export interface Gauge {
  with(...labelPairs: string[]): Gauge;
  add(delta: number): void;
  set(value: number): void;
  /** As `Counter.remove()`. */
  remove(): boolean;
}

export interface Histogram {
  with(...labelPairs: string[]): Histogram;
  /** Records one observation (Fabric observes durations in seconds). */
  observe(value: number): void;
  /**
   * Starts timing now (prom-client's `startTimer()`); the function it returns observes the
   * seconds since then, on this child's labels, and returns them.
   */
  startTimer(): () => number;
  /** As `Counter.remove()`. */
  remove(): boolean;
}

export interface Summary {
  with(...labelPairs: string[]): Summary;
  /** Records one observation. */
  observe(value: number): void;
  /**
   * Starts timing now (prom-client's `startTimer()`); the function it returns observes the
   * seconds since then, on this child's labels, and returns them.
   */
  startTimer(): () => number;
  /** As `Counter.remove()`. */
  remove(): boolean;
}

/** The metric factories every provider offers. */
export interface MetricsFactory {
  newCounter(options: MetricOptions): Counter;
  newGauge(options: MetricOptions): Gauge;
  newHistogram(options: HistogramOptions): Histogram;
  newSummary(options: SummaryOptions): Summary;
}

/** The subset of a (pino) logger ops-metrics writes to. */
export interface MetricsLogger {
  warn(message: string): void;
}

/** Where the statsd provider pushes: already parsed (ops-config produces it from `metrics.statsd`). */
export interface StatsdTarget {
  readonly network: 'udp' | 'tcp';
  /** Host name or IP address (IPv6 without brackets). */
  readonly host: string;
  readonly port: number;
  /** How often aggregated values are sent; 1 ms to 2^31-1 ms. */
  readonly writeIntervalMs: number;
  /** Prepended to every bucket; a `.` is appended when missing (Fabric's rule). */
  readonly prefix: string;
}

/**
 * Where the Prometheus provider also pushes its series over OTLP/HTTP (protobuf): already parsed
 * (ops-config produces it from `metrics.otlp` and the `OTEL_*` variables). Needs the optional peers
 * `@opentelemetry/exporter-metrics-otlp-proto`, `@opentelemetry/sdk-metrics` and
 * `@opentelemetry/resources`, loaded at `start()` and only then.
 */
export interface OtlpTarget {
  /** The full URL pushes are POSTed to, used as is (`http://collector:4318/v1/metrics`). */
  readonly endpoint: string;
  /** Sent with every push (an API key, a tenant). */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * How long one push may take, retries included, whatever the receiver sends meanwhile (the
   * request is aborted then); 1 ms to 2^31-1 ms.
   */
  readonly timeoutMs: number;
  /** How often the series are pushed; 100 ms to 2^31-1 ms. */
  readonly intervalMs: number;
  /**
   * OpenTelemetry resource attributes the pushes carry, over the defaults `service.name`
   * `fabric-ops` and `service.instance.id` the host name (Prometheus's OTLP receiver makes `job`
   * and `instance` of them). A function is called at the first push. `OTEL_SERVICE_NAME` and
   * `OTEL_RESOURCE_ATTRIBUTES` win over both.
   */
  readonly resourceAttributes?: Readonly<Record<string, string>> | (() => Readonly<Record<string, string>>);
}

/**
 * An application's own prom-client `Registry` (or anything with the same public
 * `getMetricsAsJSON()`), whose metrics are served on `/metrics` beside ops-metrics' own.
 */
export interface AppRegistry {
  getMetricsAsJSON(): Promise<readonly AppMetric[]>;
}

/** One metric as prom-client's `getMetricsAsJSON()` reports it. */
export interface AppMetric {
  readonly name: string;
  readonly help: string;
  /** prom-client reports `'counter'`, `'gauge'`, `'histogram'` or `'summary'` (its typings say an enum). */
  readonly type: unknown;
  readonly values: readonly {
    readonly value: number;
    readonly labels: Readonly<Record<string, string | number | undefined>>;
    readonly metricName?: string;
  }[];
}

/** A scrape's cancellation, as `aggregate` sees it: stop early once it is aborted. */
export interface ScrapeCancelToken {
  readonly aborted: boolean;
  throwIfAborted(): void;
}

/** The `/metrics` endpoint's options (not in Fabric's config files; defaults apply). */
export interface PrometheusOptions {
  /** Scrapes served at once; more get 503. Default 4. */
  readonly maxInFlight?: number;
  /** A scrape taking longer answers 503. Default 10 000 ms. */
  readonly timeoutMs?: number;
  /** Answer OpenMetrics when the Accept header prefers it (opt-in; Fabric never does). Default false. */
  readonly openMetrics?: boolean;
  /** Series per metric before new label combinations are dropped (with a warning). Default 100 000. */
  readonly maxSeriesPerMetric?: number;
  /** The Node runtime and process series (`nodejs_*`, `process_*`). Default true. */
  readonly runtimeMetrics?: boolean;
  /** How often the runtime series that are not read at scrape time are sampled. Default 5 000 ms. */
  readonly runtimeSampleIntervalMs?: number;
  /** An application's own prom-client registry, served after ops-metrics' families. */
  readonly registry?: AppRegistry;
  /**
   * For the primary of a multi-process service: turns this process's series into the families
   * `/metrics` serves (ops-server's cluster merges its workers' in here, with `mergeSeries`).
   * Scrapes then always answer the text format.
   */
  readonly aggregate?: (own: SeriesSnapshot, cancel: ScrapeCancelToken) => Promise<readonly KeyedFamily[]>;
  /** Also push every series `/metrics` serves over OTLP on an interval (not with `aggregate`). */
  readonly otlp?: OtlpTarget;
}

/** The statsd provider's options beyond its target. */
export interface StatsdOptions {
  /** Lines held while the daemon is unreachable or not reading; the oldest are dropped beyond it. Default 10 000. */
  readonly maxPendingLines?: number;
  /** TCP: bytes allowed to wait in the socket's write queue before lines stay queued here. Default 256 KiB. */
  readonly maxSocketBufferBytes?: number;
  /** Push `nodejs.` runtime gauges (collected every writeInterval/2). Default true. */
  readonly runtimeMetrics?: boolean;
  readonly maxSeriesPerMetric?: number;
  /** First TCP reconnect delay. Default 1 000 ms. */
  readonly initialBackoffMs?: number;
  /** Longest TCP reconnect delay. Default 60 000 ms. */
  readonly maxBackoffMs?: number;
  /**
   * For the primary of a multi-process service: turns this process's interval into the one that
   * is pushed (ops-server's cluster merges its workers' in here). Called once per flush; the push
   * waits for it, and a flush that falls due meanwhile is skipped (nothing is lost: the values
   * stay for the next one).
   */
  readonly aggregate?: (own: StatsdInterval) => Promise<StatsdInterval>;
}

/** The options of a StatsD provider that gathers without sending (`capture: true`). */
export interface StatsdCaptureOptions {
  /** Push-less: the owner takes each interval with `drain()` (a cluster worker hands it to its primary). */
  readonly capture: true;
  /** Include the `nodejs.` runtime gauges, read at each `drain()`. Default true. */
  readonly runtimeMetrics?: boolean;
  readonly maxSeriesPerMetric?: number;
}

/**
 * One StatsD interval of one process, without the prefix: what a capture-mode provider's
 * `drain()` returns and what `aggregate` combines. Plain arrays of tuples, so it crosses an IPC
 * channel (JSON or structured clone) unchanged.
 */
export interface StatsdInterval {
  /** `[bucket, sum of the deltas]` per counter bucket. */
  readonly counters: readonly (readonly [bucket: string, delta: number])[];
  /** `[bucket, value, metric]`: `metric` is the declared name (`namespace_subsystem_name`), for per-metric merge rules. */
  readonly gauges: readonly (readonly [bucket: string, value: number, metric: string])[];
  /** `[bucket, observations]` per histogram or summary bucket (sent as timings). */
  readonly timings: readonly (readonly [bucket: string, values: readonly number[]])[];
}

/** What `createMetricsProvider` takes: the provider and only the settings that provider uses. */
export type MetricsOptions =
  | ({ readonly provider: 'prometheus'; readonly logger?: MetricsLogger } & PrometheusOptions)
  | ({ readonly provider: 'statsd'; readonly statsd: StatsdTarget; readonly logger?: MetricsLogger } & StatsdOptions)
  | ({ readonly provider: 'statsd'; readonly statsd?: undefined; readonly logger?: MetricsLogger } & StatsdCaptureOptions)
  | { readonly provider: 'disabled' };
