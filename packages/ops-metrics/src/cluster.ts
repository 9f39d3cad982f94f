// What a multi-process service's primary needs to serve its workers' series as one /metrics
// (ops-server's cluster): the series a worker snapshots, the merge, the keys the merge matches on.
export { createSeriesMerger, keyLayouts, sampleKey, withValues } from './internal/series-merge.ts';
export type { GaugeRule, KeyedFamily, KeyedLayout, SeriesMerger } from './internal/series-merge.ts';
export { isSeriesType } from './internal/series-snapshot.ts';
export type { SeriesFamily, SeriesSnapshot, SeriesType } from './internal/series-snapshot.ts';
export type { ScrapeCancelToken } from './internal/types.ts';
