import { Family, NOOP_SINK } from './family.ts';
import { Declarations, type MetricsProvider } from './provider-base.ts';
import type { Counter, Gauge, Histogram, HistogramOptions, MetricOptions, Summary, SummaryOptions } from './types.ts';

export interface DisabledProvider extends MetricsProvider {
  readonly kind: 'disabled';
}

/**
 * Records nothing, but checks labels exactly as the real providers do, so code that
 * works with metrics off keeps working when they are switched on.
 */
export function createDisabledProvider(): DisabledProvider {
  const declarations = new Declarations((declaration) =>
    new Family({
      kind: declaration.kind,
      displayName: declaration.name,
      labelNames: declaration.labelNames,
      backend: { cachesSeries: false, createSeries: () => NOOP_SINK, removeSeries: () => {} },
      maxSeries: 0,
      onSeriesLimit: () => {},
    }).root(),
  );
  return {
    kind: 'disabled',
    routes: [],
    newCounter: (o: MetricOptions): Counter => declarations.newCounter(o),
    newGauge: (o: MetricOptions): Gauge => declarations.newGauge(o),
    newHistogram: (o: HistogramOptions): Histogram => declarations.newHistogram(o),
    newSummary: (o: SummaryOptions): Summary => declarations.newSummary(o),
    start: async () => {},
    stop: async () => {},
  };
}
