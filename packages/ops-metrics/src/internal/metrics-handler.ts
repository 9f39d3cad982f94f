import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { acceptsGzip, contentTypeFor, negotiateFormat, type ExpositionFormat } from './negotiate.ts';
import { ScrapeCancel, type CancelToken } from './scrape-cancel.ts';
import type { Counter, Gauge } from './types.ts';

const gzipAsync = promisify(gzip);

export const DEFAULT_MAX_IN_FLIGHT = 4;
export const DEFAULT_SCRAPE_TIMEOUT_MS = 10_000;

/** Serialises everything the endpoint serves in one format; rejects with the cancel's reason when cancelled. */
export type RenderBody = (format: ExpositionFormat, cancel: CancelToken) => Promise<Buffer>;

export interface MetricsHandlerOptions {
  readonly render: RenderBody;
  readonly maxInFlight?: number;
  readonly timeoutMs?: number;
  readonly openMetrics?: boolean;
  /** Self-instrumentation: requests by status code, and scrapes in progress. */
  readonly requests?: Counter;
  readonly inFlight?: Gauge;
  readonly onError?: (error: unknown) => void;
}

function plain(res: ServerResponse, status: number, text: string): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * The `/metrics` handler. It reads nothing but the request's headers, so it works under
 * any mount path and behind any framework. Like promhttp it answers every method (HEAD gets headers
 * only); it negotiates text 0.0.4 / OpenMetrics and gzip, refuses scrapes beyond
 * `maxInFlight` with 503, and answers 503 when serialising outlasts `timeoutMs`.
 */
export function createMetricsHandler(options: MetricsHandlerOptions): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
  const timeoutMs = options.timeoutMs ?? DEFAULT_SCRAPE_TIMEOUT_MS;
  // Off by default, as in Fabric's promhttp: a Prometheus server prefers OpenMetrics, which would
  // store counters as `<name>_total` and silently break dashboards built on Fabric's names.
  const openMetrics = options.openMetrics ?? false;
  let inFlight = 0;
  // One child per status code (200, 500, 503), resolved once instead of per scrape.
  const byStatus = new Map<number, Counter>();
  const count = (status: number) => {
    const requests = options.requests;
    if (requests === undefined) return;
    let child = byStatus.get(status);
    if (child === undefined) byStatus.set(status, (child = requests.with('code', String(status))));
    child.add(1);
  };

  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (inFlight >= maxInFlight) {
      count(503);
      plain(res, 503, `too many concurrent scrapes (limit ${maxInFlight}); try again later\n`);
      return;
    }
    inFlight++;
    options.inFlight?.set(inFlight);
    const cancel = new ScrapeCancel();
    const timer = setTimeout(() => cancel.abort(new Error('timeout')), timeoutMs);
    const onClose = () => {
      if (!res.writableFinished) cancel.abort(new Error('client went away'));
    };
    res.once('close', onClose);
    try {
      const format = negotiateFormat(headerOf(req, 'accept'), openMetrics);
      const rendering = options.render(format, cancel);
      // A collector that never settles must not hold the answer past the time limit.
      rendering.catch(() => {});
      let body = await Promise.race([rendering, cancel.rejection()]);
      const headers: Record<string, string | number> = { 'Content-Type': contentTypeFor(format) };
      if (acceptsGzip(headerOf(req, 'accept-encoding'))) {
        body = await gzipAsync(body);
        cancel.throwIfAborted();
        headers['Content-Encoding'] = 'gzip';
      }
      // The same digits node would print for the number, made without V8's number-string cache
      // (which lives in old space, so each new body length would be promoted there).
      headers['Content-Length'] = JSON.stringify(body.length);
      count(200);
      res.writeHead(200, headers);
      res.end(body);
    } catch (error) {
      if (cancel.reason?.message === 'timeout') {
        count(503);
        plain(res, 503, `collecting metrics took longer than ${timeoutMs} ms\n`);
      } else if (!cancel.aborted) {
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

function headerOf(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}
