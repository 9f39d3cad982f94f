import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Route } from '@fabric-ops/ops-http';
import type { Declaration } from './declare.ts';
import { BodyWriter, MAX_RETAINED_BODY_BYTES } from './body-writer.ts';
import { appMetricLines } from './exposition.ts';
import { createMetricsHandler } from './metrics-handler.ts';
import { startOtlpPush, type OtlpPush } from './otlp/push.ts';
import { NEVER_CANCELLED, type CancelToken } from './scrape-cancel.ts';
import { TEXT_FORMAT, type ExpositionFormat } from './negotiate.ts';
import { PrometheusFamily } from './prometheus-family.ts';
import { renderKeyedFamilies } from './series-merge.ts';
import { snapshotSeries, type SeriesSnapshot } from './series-snapshot.ts';
import { Declarations, DEFAULT_MAX_SERIES_PER_METRIC, type MetricsProvider } from './provider-base.ts';
import { createRuntimeCollectors, DEFAULT_RUNTIME_SAMPLE_INTERVAL_MS, type RuntimeCollectors } from './runtime-collectors.ts';
import type { AppMetric, MetricsLogger, PrometheusOptions } from './types.ts';

export interface PrometheusProviderOptions extends PrometheusOptions {
  readonly logger?: MetricsLogger;
  /** Longest serialising stretch before yielding to the event loop. Default 5 ms. */
  readonly sliceMs?: number;
}

export interface PrometheusProvider extends MetricsProvider {
  readonly kind: 'prometheus';
  /**
   * The `/metrics` handler on its own, for any server or framework and any mount path
   * (`routes` holds the same handler at `/metrics`).
   */
  readonly handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  /** This process's metrics in the text format (0.0.4), without HTTP. */
  exposition(): Promise<string>;
  /** This process's series as data (the application registry's included): what a cluster worker hands its primary. */
  seriesSnapshot(): Promise<SeriesSnapshot>;
}

const NEWLINE = 0x0a;
const DEFAULT_SLICE_MS = 5;
const NO_APP_METRICS: readonly AppMetric[] = [];
const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const byName = (a: { name: string }, b: { name: string }): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * Metrics scraped from `/metrics`. ops-metrics keeps every series itself and renders
 * the exposition itself; an application's own prom-client registry, when given, is
 * read through its public `getMetricsAsJSON()` at scrape time and served after.
 */
export function createPrometheusProvider(options: PrometheusProviderOptions = {}): PrometheusProvider {
  const maxSeries = options.maxSeriesPerMetric ?? DEFAULT_MAX_SERIES_PER_METRIC;
  const onSeriesLimit = (name: string, max: number) => options.logger?.warn(`metric ${name} reached ${max} series; values for new label combinations are dropped`);

  const families: PrometheusFamily[] = [];
  let familiesSnapshot: PrometheusFamily[] = [];
  const ownNames = new Set<string>();
  let sorted = true;
  const declarations = new Declarations((declaration: Declaration) => {
    const family = new PrometheusFamily(declaration, maxSeries, onSeriesLimit);
    families.push(family);
    ownNames.add(family.name);
    sorted = false;
    return family.family.root();
  });

  let runtime: RuntimeCollectors | undefined;
  const startRuntime = () => {
    if (runtime !== undefined || options.runtimeMetrics === false) return;
    runtime = createRuntimeCollectors(
      {
        counter: (name, help) => declarations.instrument('counter', { name, help }),
        gauge: (name, help, labelNames = []) => declarations.instrument('gauge', { name, help, labelNames }),
        histogram: (name, help, labelNames, buckets) => declarations.instrument('histogram', { name, help, labelNames, buckets }),
      },
      options.runtimeSampleIntervalMs ?? DEFAULT_RUNTIME_SAMPLE_INTERVAL_MS,
    );
  };
  startRuntime();

  // promhttp's self-instrumentation, which Fabric's /metrics carries.
  const requests = declarations.newCounter({
    namespace: 'promhttp',
    subsystem: 'metric_handler',
    name: 'requests_total',
    help: 'Total number of scrapes by HTTP status code.',
    labelNames: ['code'],
  });
  for (const code of ['200', '500', '503']) requests.with('code', code).add(0);
  const inFlight = declarations.newGauge({
    namespace: 'promhttp',
    subsystem: 'metric_handler',
    name: 'requests_in_flight',
    help: 'Current number of scrapes being served.',
  });
  inFlight.set(0);

  const shadowed = new Set<string>();
  /** The app registry's metrics, minus names ops-metrics serves itself (one family per name). */
  const appMetrics = async (): Promise<AppMetric[]> => {
    if (options.registry === undefined) return [];
    const kept: AppMetric[] = [];
    const newlyShadowed: string[] = [];
    for (const metric of await options.registry.getMetricsAsJSON()) {
      if (!ownNames.has(metric.name)) kept.push(metric);
      else if (!shadowed.has(metric.name)) {
        shadowed.add(metric.name);
        newlyShadowed.push(metric.name);
      }
    }
    if (newlyShadowed.length > 0) {
      options.logger?.warn(
        `metrics ${newlyShadowed.join(', ')} of the application's prom-client registry have the names of ops-metrics' own series; serving ops-metrics' (set runtimeMetrics: false to serve the registry's runtime series instead)`,
      );
    }
    return kept.sort(byName);
  };

  // One scratch buffer, reused by scrapes that do not overlap (a scrape that finds it taken,
  // while another is between slices, renders into its own).
  let spare: BodyWriter | undefined;
  const sliceMs = options.sliceMs ?? DEFAULT_SLICE_MS;

  /**
   * Serialises every family into bytes, giving the event loop back every few milliseconds so a
   * large registry never stalls other requests. Synchronous between slices: a small scrape is
   * one stretch of work, with no promise, generator or string per family.
   */
  const renderOwn = async (format: ExpositionFormat, cancel: CancelToken): Promise<Buffer> => {
    const app = options.registry === undefined ? NO_APP_METRICS : await appMetrics();
    runtime?.beforeScrape();
    if (!sorted) {
      families.sort(byName);
      sorted = true;
    }
    // A declaration made while this scrape yields must not shift the list under it.
    const own = families.length === familiesSnapshot.length ? familiesSnapshot : (familiesSnapshot = families.slice());
    const writer = spare ?? new BodyWriter();
    spare = undefined;
    try {
      let sliceStart = performance.now();
      let count = 0;
      // The clock is read about every 256 lines (a histogram series is many lines).
      const sliceOver = (lines: number): boolean => {
        if ((count += lines) < 256) return false;
        count = 0;
        return performance.now() - sliceStart >= sliceMs;
      };
      const pause = async () => {
        await yieldToEventLoop();
        cancel.throwIfAborted();
        sliceStart = performance.now();
      };
      const writeApp = async (metric: AppMetric) => {
        for (const line of appMetricLines(metric, format)) {
          writer.write(line);
          writer.byte(NEWLINE);
          if (sliceOver(1)) await pause();
        }
      };
      // Both lists are sorted: merge them so the whole answer is in name order, as client_golang's is.
      let j = 0;
      for (const family of own) {
        while (j < app.length && app[j]!.name < family.name) await writeApp(app[j++]!);
        if (!family.writeHeader(writer, format)) continue;
        const lines = family.linesPerSeries;
        for (const series of family.series) {
          family.writeSeries(writer, series, format);
          if (sliceOver(lines)) await pause();
        }
      }
      while (j < app.length) await writeApp(app[j++]!);
      if (format.kind === 'openmetrics') writer.write('# EOF\n');
      return writer.take();
    } finally {
      writer.reset();
      if (writer.capacity <= MAX_RETAINED_BODY_BYTES) spare = writer;
    }
  };
  const seriesSnapshot = async (): Promise<SeriesSnapshot> => {
    const app = options.registry === undefined ? NO_APP_METRICS : await appMetrics();
    runtime?.beforeScrape();
    if (!sorted) {
      families.sort(byName);
      sorted = true;
    }
    return snapshotSeries(families, app);
  };
  const aggregate = options.aggregate;
  const render =
    aggregate === undefined ? renderOwn : async (_format: ExpositionFormat, cancel: CancelToken): Promise<Buffer> => renderKeyedFamilies(await aggregate(await seriesSnapshot(), cancel), cancel);

  const handler = createMetricsHandler({
    render,
    requests,
    inFlight,
    ...(options.maxInFlight === undefined ? {} : { maxInFlight: options.maxInFlight }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.openMetrics === undefined || aggregate !== undefined ? {} : { openMetrics: options.openMetrics }),
    onError: (error) => options.logger?.warn(`error collecting metrics: ${error instanceof Error ? error.message : String(error)}`),
  });

  // OTLP push of the same series, when asked for: OpenTelemetry's packages load at start(), and only then.
  let otlp: OtlpPush | undefined;
  const startOtlp = async () => {
    const target = options.otlp;
    if (target === undefined || otlp !== undefined) return;
    otlp = await startOtlpPush({
      target,
      logger: options.logger,
      collect: async () => {
        const app = await appMetrics();
        runtime?.beforeScrape();
        if (!sorted) {
          families.sort(byName);
          sorted = true;
        }
        return { families: families.slice(), app };
      },
    });
  };

  const provider: PrometheusProvider = {
    kind: 'prometheus',
    handler,
    exposition: async () => (await renderOwn(TEXT_FORMAT, NEVER_CANCELLED)).toString(),
    seriesSnapshot,
    routes: [{ path: '/metrics', secure: true, handler }] satisfies Route[],
    ...declarations.factories(),
    start: async () => {
      startRuntime();
      await startOtlp();
    },
    stop: async () => {
      runtime?.stop();
      runtime = undefined;
      await otlp?.stop();
      otlp = undefined;
    },
  };
  renderers.set(provider, render);
  return provider;
}

const renderers = new WeakMap<PrometheusProvider, (format: ExpositionFormat, cancel: CancelToken) => Promise<Buffer>>();

/** The body a scrape in `format` gets, without HTTP (tests, the bench). */
export function renderBody(provider: PrometheusProvider, format: ExpositionFormat): Promise<Buffer> {
  const render = renderers.get(provider);
  if (render === undefined) throw new TypeError('not a provider made by createPrometheusProvider');
  return render(format, NEVER_CANCELLED);
}
