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

export interface Counter {
  /** A child with these label values: `with('channel', 'mych', 'type', 'x')`. A trailing key without a value gets `unknown`. */
  with(...labelPairs: string[]): Counter;
  /** Adds a non-negative, finite delta. */
  add(delta: number): void;
}

export interface Gauge {
  with(...labelPairs: string[]): Gauge;
  add(delta: number): void;
  set(value: number): void;
}

export interface Histogram {
  with(...labelPairs: string[]): Histogram;
  /** Records one observation (Fabric observes durations in seconds). */
  observe(value: number): void;
}

/** The three metric factories every provider offers. */
export interface MetricsFactory {
  newCounter(options: MetricOptions): Counter;
  newGauge(options: MetricOptions): Gauge;
  newHistogram(options: HistogramOptions): Histogram;
}

/** The subset of a (pino) logger ops-metrics writes to. */
export interface MetricsLogger {
  warn(message: string): void;
}

/** Push settings, the same shape ops-config produces. */
export interface StatsdSettings {
  /** `udp` or `tcp`. */
  readonly network: string;
  /** `host:port` of the daemon. */
  readonly address: string;
  /** How often aggregated values are sent; must be > 0. */
  readonly writeIntervalMs: number;
  /** Prepended to every bucket; a `.` is appended when missing. */
  readonly prefix: string;
}

/** Scrape endpoint limits (not in Fabric's config files; defaults apply). */
export interface ScrapeOptions {
  /** Scrapes served at once; more get 503. Default 4. */
  readonly maxInFlight?: number;
  /** A scrape taking longer answers 503. Default 10 000 ms. */
  readonly timeoutMs?: number;
  /** Answer OpenMetrics when the Accept header prefers it (opt-in; Fabric never does). Default false. */
  readonly openMetrics?: boolean;
  /** Series per metric before new label combinations are dropped (with a warning). Default 100 000. */
  readonly maxSeriesPerMetric?: number;
}

/** The `metrics` / `Metrics` section, the same shape ops-config produces. */
export interface MetricsSettings {
  /** `prometheus`, `statsd` or `disabled` (exact, case-sensitive); anything else disables metrics with a warning. */
  readonly provider: string;
  readonly statsd: StatsdSettings;
  readonly prometheus?: ScrapeOptions;
}
