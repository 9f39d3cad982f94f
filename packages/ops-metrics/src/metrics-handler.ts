import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { Handler } from '@fabric-ops/ops-http';
import type { Registry } from 'prom-client';
import { foreignLines, renderLines, type ForeignMetricData } from './exposition.ts';
import { acceptsGzip, contentTypeFor, negotiateFormat, type ExpositionFormat } from './negotiate.ts';
import { isPrometheusFamily } from './prometheus-family.ts';
import type { Counter, Gauge } from './types.ts';

const gzipAsync = promisify(gzip);

export const DEFAULT_MAX_IN_FLIGHT = 4;
export const DEFAULT_SCRAPE_TIMEOUT_MS = 10_000;

export interface MetricsHandlerOptions {
  readonly registry: Registry;
  readonly maxInFlight?: number;
  readonly timeoutMs?: number;
  readonly openMetrics?: boolean;
  /** Longest serialising stretch before yielding to the event loop. Default 5 ms. */
  readonly sliceMs?: number;
  /** Self-instrumentation: requests by status code, and scrapes in progress. */
  readonly requests?: Counter;
  readonly inFlight?: Gauge;
  readonly onError?: (error: unknown) => void;
}

/** Every metric in the registry as exposition lines, families sorted by name. */
async function* familiesOf(registry: Registry, format: ExpositionFormat): AsyncGenerator<Iterable<string>> {
  const metrics = [...registry.getMetricsAsArray()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const metric of metrics as unknown[]) {
    if (isPrometheusFamily(metric)) yield metric.lines(format);
    else yield foreignLines(await (metric as { get(): Promise<ForeignMetricData> }).get(), format);
  }
}

/** Serialises a registry in the given format, yielding to the event loop as it goes. */
export async function renderRegistry(registry: Registry, format: ExpositionFormat, options: { sliceMs?: number; signal?: AbortSignal } = {}): Promise<Buffer> {
  const chunks = await renderLines(familiesOf(registry, format), { format, ...options });
  return Buffer.concat(chunks);
}

function plain(res: ServerResponse, status: number, text: string): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * The `/metrics` handler. Like promhttp it answers every method (HEAD gets headers
 * only); it negotiates text 0.0.4 / OpenMetrics and gzip, refuses scrapes beyond
 * `maxInFlight` with 503, and answers 503 when serialising outlasts `timeoutMs`.
 */
export function createMetricsHandler(options: MetricsHandlerOptions): Handler {
  const maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
  const timeoutMs = options.timeoutMs ?? DEFAULT_SCRAPE_TIMEOUT_MS;
  // Off by default, as in Fabric's promhttp: a Prometheus server prefers OpenMetrics, which would
  // store counters as `<name>_total` and silently break dashboards built on Fabric's names.
  const openMetrics = options.openMetrics ?? false;
  let inFlight = 0;
  const count = (status: number) => options.requests?.with('code', String(status)).add(1);

  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (inFlight >= maxInFlight) {
      count(503);
      plain(res, 503, `too many concurrent scrapes (limit ${maxInFlight}); try again later\n`);
      return;
    }
    inFlight++;
    options.inFlight?.set(inFlight);
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(new Error('timeout')), timeoutMs);
    const onClose = () => {
      if (!res.writableFinished) abort.abort(new Error('client went away'));
    };
    res.once('close', onClose);
    try {
      const format = negotiateFormat(headerOf(req, 'accept'), openMetrics);
      const rendering = renderRegistry(options.registry, format, {
        signal: abort.signal,
        ...(options.sliceMs === undefined ? {} : { sliceMs: options.sliceMs }),
      });
      // A collector that never settles must not hold the answer past the time limit.
      rendering.catch(() => {});
      let body = await Promise.race([rendering, aborted(abort.signal)]);
      const headers: Record<string, string | number> = { 'Content-Type': contentTypeFor(format) };
      if (acceptsGzip(headerOf(req, 'accept-encoding'))) {
        body = await gzipAsync(body);
        abort.signal.throwIfAborted();
        headers['Content-Encoding'] = 'gzip';
      }
      headers['Content-Length'] = body.length;
      count(200);
      res.writeHead(200, headers);
      res.end(body);
    } catch (error) {
      if (abort.signal.aborted && (abort.signal.reason as Error).message === 'timeout') {
        count(503);
        plain(res, 503, `collecting metrics took longer than ${timeoutMs} ms\n`);
      } else if (!abort.signal.aborted) {
        count(500);
        options.onError?.(error);
        plain(res, 500, `error collecting metrics: ${error instanceof Error ? error.message : String(error)}\n`);
      }
    } finally {
      clearTimeout(timer);
      res.off('close', onClose);
      inFlight--;
      options.inFlight?.set(inFlight);
    }
  };
}

function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

function headerOf(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}
