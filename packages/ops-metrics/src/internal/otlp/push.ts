import type { Agent } from 'node:http';
import { hostname } from 'node:os';
import type { MetricData, ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { MetricsError } from '../errors.ts';
import type { PrometheusFamily } from '../prometheus-family.ts';
import type { AppMetric, MetricsLogger, OtlpTarget } from '../types.ts';
import { createDeadlineAgent } from './deadline-agent.ts';
import { appMetricData, familyMetrics, hrTime, type OtlpShapes, type OtlpTimes } from './convert.ts';

/** What the provider hands over at each push: its families in name order and the app registry's metrics. */
export interface OtlpCollection {
  readonly families: readonly PrometheusFamily[];
  readonly app: readonly AppMetric[];
}

export interface OtlpPushOptions {
  readonly target: OtlpTarget;
  readonly collect: () => Promise<OtlpCollection>;
  readonly logger?: MetricsLogger | undefined;
  /** Longest converting stretch before yielding to the event loop. Default 5 ms. */
  readonly sliceMs?: number;
}

export interface OtlpPush {
  /** Pushes now (tests); resolves with the problem, or undefined when the receiver took it. */
  pushNow(): Promise<string | undefined>;
  stop(): Promise<void>;
}

/** The peer packages, named once for the import and for the message when one is missing. */
export const OTLP_PEER_PACKAGES = ['@opentelemetry/exporter-metrics-otlp-proto', '@opentelemetry/sdk-metrics', '@opentelemetry/resources'] as const;

const SCOPE = { name: '@fabric-ops/ops-metrics' };
/** Matches the alert rules' `job=~"fabric-.+"` as it is. */
const DEFAULT_SERVICE_NAME = 'fabric-ops';
const MAX_PROBLEM_CHARS = 300;
const DEFAULT_SLICE_MS = 5;
/** How long `stop()` waits for the exporter to let go of a push still under way. */
const STOP_GRACE_MS = 1_000;
/** The "skipped" line at most this often: a receiver that never answers must not flood the log. */
const SKIPPED_LINE_EVERY_MS = 60_000;

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A CommonJS module imported from ESM may put its exports under `default`. */
function exported<T>(module: Record<string, unknown>, name: string): T {
  const direct = module[name] ?? (module['default'] as Record<string, unknown> | undefined)?.[name];
  if (direct === undefined) throw new TypeError(`export ${name} not found`);
  return direct as T;
}

/** An error as one bounded log line: an answer's body or a stack never reaches the log. */
function oneLine(error: unknown): string {
  const code = typeof error === 'object' && error !== null && 'code' in error ? (error as { code: unknown }).code : undefined;
  let text = error instanceof Error ? error.message : String(error);
  if (typeof code === 'number' && !text.includes(String(code))) text = `HTTP ${code} ${text}`;
  text = text.replace(/\s+/g, ' ').trim() || 'unknown error';
  return text.length > MAX_PROBLEM_CHARS ? `${text.slice(0, MAX_PROBLEM_CHARS)}…` : text;
}

interface LoadedSdk {
  readonly Exporter: new (config: { url: string; headers: Record<string, string>; timeoutMillis: number; concurrencyLimit: number; httpAgentOptions: (protocol: string) => Promise<Agent> }) => {
    export(metrics: ResourceMetrics, done: (result: { code: number; error?: Error }) => void): void;
    shutdown(): Promise<void>;
  };
  readonly shapes: OtlpShapes;
  /** The resource a push carries: ops-metrics' defaults, then the embedder's attributes, then `OTEL_*`. */
  resource(attributes: Readonly<Record<string, string>>): ResourceMetrics['resource'];
}

async function loadSdk(): Promise<LoadedSdk> {
  let modules: Record<string, unknown>[];
  try {
    // Loaded here and only here: a provider without `otlp` never loads OpenTelemetry.
    modules = await Promise.all([
      import('@opentelemetry/exporter-metrics-otlp-proto') as Promise<Record<string, unknown>>,
      import('@opentelemetry/sdk-metrics') as Promise<Record<string, unknown>>,
      import('@opentelemetry/resources') as Promise<Record<string, unknown>>,
    ]);
  } catch (cause) {
    throw new MetricsError('OTLP_UNAVAILABLE', `otlp: pushing over OTLP needs the packages ${OTLP_PEER_PACKAGES.join(', ')} installed beside @fabric-ops/ops-metrics (${oneLine(cause)})`, { cause });
  }
  const [exporterModule, sdk, resources] = modules as [Record<string, unknown>, Record<string, unknown>, Record<string, unknown>];
  const dataPointType = exported<Record<string, number>>(sdk, 'DataPointType');
  const temporality = exported<Record<string, number>>(sdk, 'AggregationTemporality');
  type Resource = ResourceMetrics['resource'];
  const defaultResource = exported<() => Resource>(resources, 'defaultResource');
  const resourceFromAttributes = exported<(attributes: Record<string, string>) => Resource>(resources, 'resourceFromAttributes');
  const detectResources = exported<(config: { detectors: unknown[] }) => Resource>(resources, 'detectResources');
  const envDetector = exported<unknown>(resources, 'envDetector');
  // Each node its own identity by default: Prometheus's OTLP receiver makes `job` of
  // service.namespace/service.name and `instance` of service.instance.id. OpenTelemetry's own
  // resource rules then: OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over both.
  const resource = (attributes: Readonly<Record<string, string>>): Resource =>
    defaultResource()
      .merge(resourceFromAttributes({ 'service.name': DEFAULT_SERVICE_NAME, 'service.instance.id': hostname() }))
      .merge(resourceFromAttributes({ ...attributes }))
      .merge(detectResources({ detectors: [envDetector] }));
  return {
    Exporter: exported(exporterModule, 'OTLPMetricExporter'),
    shapes: {
      histogram: dataPointType['HISTOGRAM']!,
      gauge: dataPointType['GAUGE']!,
      sum: dataPointType['SUM']!,
      cumulative: temporality['CUMULATIVE']!,
    },
    resource,
  };
}

/**
 * Pushes the provider's series to an OTLP/HTTP receiver every `intervalMs`, with OpenTelemetry's
 * own exporter (protobuf encoding, headers, timeout, its bounded retries of 429/502/503/504 and
 * network errors within the timeout). At most one push is under way: an interval that finds the
 * last one still running is skipped, so a slow or absent receiver holds one collection, never a
 * queue. Each failed interval is one warning; the first success after failures says so once.
 * Throws a MetricsError (OTLP_UNAVAILABLE) when the OpenTelemetry packages are not installed.
 */
export async function startOtlpPush(options: OtlpPushOptions): Promise<OtlpPush> {
  const sdk = await loadSdk();
  const { target, logger } = options;
  const agent = createDeadlineAgent();
  const exporter = new sdk.Exporter({
    url: target.endpoint,
    headers: { ...target.headers },
    timeoutMillis: target.timeoutMs,
    concurrencyLimit: 1,
    httpAgentOptions: agent.factory,
  });
  const start = hrTime(Date.now());
  const sliceMs = options.sliceMs ?? DEFAULT_SLICE_MS;
  let running: Promise<string | undefined> | undefined;
  /** Intervals since the last push that got through: failed ones and ones skipped while a push waited. */
  let failedPushes = 0;
  let stopped = false;

  // Read at the first push, not at start: an embedder's attributes may name the address its
  // server listens on, known only once it listens.
  let resource: ResourceMetrics['resource'] | undefined;
  const collect = async (): Promise<ResourceMetrics> => {
    const { families, app } = await options.collect();
    const attributes = target.resourceAttributes;
    resource ??= sdk.resource(typeof attributes === 'function' ? attributes() : (attributes ?? {}));
    const times: OtlpTimes = { start, end: hrTime(Date.now()) };
    const metrics: MetricData[] = [];
    let sliceStart = performance.now();
    for (const family of families) {
      metrics.push(...familyMetrics(family, sdk.shapes, times));
      if (performance.now() - sliceStart >= sliceMs) {
        await yieldToEventLoop();
        sliceStart = performance.now();
      }
    }
    for (const metric of app) metrics.push(...appMetricData(metric, sdk.shapes, times));
    return { resource, scopeMetrics: [{ scope: SCOPE, metrics }] };
  };

  const push = async (): Promise<string | undefined> => {
    let problem: string | undefined;
    try {
      const metrics = await collect();
      agent.resume();
      problem = await new Promise<string | undefined>((resolve) => {
        // The exporter's timeout restarts with every byte the receiver sends; this one does not.
        const deadline = setTimeout(() => {
          resolve(`no complete answer within ${target.timeoutMs} ms (the push's deadline; the request was aborted)`);
          agent.abort();
        }, target.timeoutMs);
        deadline.unref();
        exporter.export(metrics, (result) => {
          clearTimeout(deadline);
          resolve(result.code === 0 ? undefined : oneLine(result.error ?? 'export failed'));
        });
      });
    } catch (error) {
      problem = `collecting failed: ${oneLine(error)}`;
    }
    if (problem !== undefined) {
      failedPushes++;
      if (!stopped) logger?.warn(`OTLP push to ${target.endpoint} failed: ${problem}`);
    } else if (failedPushes > 0) {
      logger?.warn(`OTLP push to ${target.endpoint} succeeded again after ${failedPushes} failed or skipped ${failedPushes === 1 ? 'interval' : 'intervals'}`);
      failedPushes = 0;
    }
    return problem;
  };

  const pushNow = (): Promise<string | undefined> => {
    if (running !== undefined) return running;
    running = push().finally(() => {
      running = undefined;
    });
    return running;
  };

  let lastSkippedLine = -Infinity;
  let skippedSinceLine = 0;
  const timer = setInterval(() => {
    if (running === undefined) {
      void pushNow();
      return;
    }
    failedPushes++;
    skippedSinceLine++;
    const now = performance.now();
    if (now - lastSkippedLine < SKIPPED_LINE_EVERY_MS) return;
    const more = skippedSinceLine > 1 ? ` (${skippedSinceLine} intervals skipped since the last such line)` : '';
    logger?.warn(`OTLP push to ${target.endpoint} skipped${more}: the previous push is still waiting for the receiver (timeout ${target.timeoutMs} ms)`);
    lastSkippedLine = now;
    skippedSinceLine = 0;
  }, target.intervalMs);
  timer.unref();

  return {
    pushNow,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      agent.abort();
      // A push under way ends by its own timeout; stop() waits a moment for it, never that long.
      let grace: NodeJS.Timeout | undefined;
      await Promise.race([
        exporter.shutdown().catch(() => undefined),
        new Promise<void>((resolve) => {
          grace = setTimeout(resolve, STOP_GRACE_MS);
          grace.unref();
        }),
      ]);
      clearTimeout(grace);
    },
  };
}
