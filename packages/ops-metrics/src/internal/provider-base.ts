import type { Route } from '@fabric-ops/ops-http';
import { assertSameDeclaration, declare, type Declaration } from './declare.ts';
import type { Instrument, MetricKind } from './family.ts';
import type { Counter, Gauge, Histogram, HistogramOptions, MetricOptions, MetricsFactory, Summary, SummaryOptions } from './types.ts';

export type ProviderKind = 'prometheus' | 'statsd' | 'disabled';

/** What every provider offers: the metric factories plus its place in the system's life. */
export interface MetricsProvider extends MetricsFactory {
  readonly kind: ProviderKind;
  /** Routes to serve: `/metrics` (secure) with Prometheus, none otherwise. */
  readonly routes: readonly Route[];
  /** Starts pushing (StatsD) or the runtime sampler (Prometheus); an unreachable daemon is not an error. */
  start(): Promise<void>;
  /** Stops timers and sockets; idempotent. */
  stop(): Promise<void>;
}

export const DEFAULT_MAX_SERIES_PER_METRIC = 100_000;

/**
 * The factory half of a provider: validates declarations, returns the existing
 * metric when the same one is declared twice, and leaves storage to `build`.
 */
export class Declarations implements MetricsFactory {
  private readonly byName = new Map<string, { declaration: Declaration; root: Instrument }>();

  constructor(private readonly build: (declaration: Declaration) => Instrument) {}

  /** The metric's root instrument; internal callers may use every method whatever the kind. */
  instrument(kind: MetricKind, options: MetricOptions | HistogramOptions | SummaryOptions): Instrument {
    const declaration = declare(kind, options);
    const existing = this.byName.get(declaration.name);
    if (existing !== undefined) {
      assertSameDeclaration(existing.declaration, declaration);
      return existing.root;
    }
    const root = this.build(declaration);
    this.byName.set(declaration.name, { declaration, root });
    return root;
  }

  newCounter(options: MetricOptions): Counter {
    return this.instrument('counter', options);
  }

  newGauge(options: MetricOptions): Gauge {
    return this.instrument('gauge', options);
  }

  newHistogram(options: HistogramOptions): Histogram {
    return this.instrument('histogram', options);
  }

  newSummary(options: SummaryOptions): Summary {
    return this.instrument('summary', options);
  }

  /** The four factories as own properties bound to this table, for a provider object to spread. */
  factories(): MetricsFactory {
    return {
      newCounter: (o: MetricOptions): Counter => this.newCounter(o),
      newGauge: (o: MetricOptions): Gauge => this.newGauge(o),
      newHistogram: (o: HistogramOptions): Histogram => this.newHistogram(o),
      newSummary: (o: SummaryOptions): Summary => this.newSummary(o),
    };
  }
}
