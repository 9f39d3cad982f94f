import { Family, NOOP_SINK } from './family.ts';
import { Declarations, type MetricsProvider } from './provider-base.ts';

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
    ...declarations.factories(),
    start: async () => {},
    stop: async () => {},
  };
}
