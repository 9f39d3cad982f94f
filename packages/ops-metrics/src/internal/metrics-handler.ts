import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type * as Zlib from 'node:zlib';
import { contentTypeFor, negotiateEncoding, negotiateFormat, OFFERED_ENCODINGS, TEXT_FORMAT, type ContentEncoding, type ExpositionFormat } from './negotiate.ts';
import { delimitedToProtoText } from './proto-text.ts';
import { textToDelimitedProtobuf } from './protobuf.ts';
import { ScrapeCancel, type CancelToken } from './scrape-cancel.ts';
import type { Counter, Gauge } from './types.ts';

// node:zlib is loaded on the first compressed scrape, not at start-up: a process nobody scrapes
// with Accept-Encoding (or that never serves /metrics) keeps its code and bindings out of memory.
const requireBuiltin = createRequire(import.meta.url);
let zlibModule: typeof Zlib | undefined;
const zlib = (): typeof Zlib => (zlibModule ??= requireBuiltin('node:zlib') as typeof Zlib);
/** Longest protobuf-conversion stretch before yielding to the event loop (the renderer's own slice). */
const PROTOBUF_SLICE_MS = 5;
type Compress = (body: Buffer) => Promise<Buffer>;
interface ZstdZlib {
  zstdCompress(body: Buffer, options: { params: Record<number, number> }, callback: (error: Error | null, result: Buffer) => void): void;
  constants: { ZSTD_c_compressionLevel: number };
}
/** Level 1, the counterpart of client_golang's zstd.SpeedFastest; only where node:zlib has zstd (OFFERED_ENCODINGS says). */
const zstdAsync: Compress = (body) =>
  new Promise((resolve, reject) => {
    const withZstd = zlib() as unknown as ZstdZlib;
    withZstd.zstdCompress(body, { params: { [withZstd.constants.ZSTD_c_compressionLevel]: 1 } }, (error, result) => (error ? reject(error) : resolve(result)));
  });
const COMPRESSORS: Record<Exclude<ContentEncoding, 'identity'>, Compress> = {
  gzip: (body) => new Promise((resolve, reject) => zlib().gzip(body, (error, result) => (error ? reject(error) : resolve(result)))),
  zstd: zstdAsync,
};

export const DEFAULT_MAX_IN_FLIGHT = 4;
export const DEFAULT_SCRAPE_TIMEOUT_MS = 10_000;

/** Serialises everything the endpoint serves in one format; rejects with the cancel's reason when cancelled. */
export type RenderBody = (format: ExpositionFormat, cancel: CancelToken) => Promise<Buffer>;

export interface MetricsHandlerOptions {
  readonly render: RenderBody;
  readonly maxInFlight?: number;
  readonly timeoutMs?: number;
  readonly openMetrics?: boolean;
  /** Content encodings offered, in promhttp's order. Default: identity, gzip and (where node:zlib has it) zstd. */
  readonly encodings?: readonly ContentEncoding[];
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
 * only); it negotiates the format (text 0.0.4, delimited protobuf, opt-in OpenMetrics) and the
 * `escaping=` term as expfmt.Negotiate does, identity / gzip / zstd as promhttp does, refuses scrapes beyond
 * `maxInFlight` with 503, and answers 503 when serialising outlasts `timeoutMs`.
 */
export function createMetricsHandler(options: MetricsHandlerOptions): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
  const timeoutMs = options.timeoutMs ?? DEFAULT_SCRAPE_TIMEOUT_MS;
  // Off by default, as in Fabric's promhttp: a Prometheus server prefers OpenMetrics, which would
  // store counters as `<name>_total` and silently break dashboards built on Fabric's names.
  const openMetrics = options.openMetrics ?? false;
  const offered = (options.encodings ?? OFFERED_ENCODINGS).filter((encoding) => OFFERED_ENCODINGS.includes(encoding));
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
      // Go reads the first Accept line only (Header.Get) and every Accept-Encoding line.
      const { format, escaping } = negotiateFormat(headerLines(req, 'accept')[0], openMetrics);
      const rendering = options.render(format.kind === 'protobuf' ? TEXT_FORMAT : format, cancel);
      // A collector that never settles must not hold the answer past the time limit.
      rendering.catch(() => {});
      let body = await Promise.race([rendering, cancel.rejection()]);
      if (format.kind === 'protobuf') {
        body = await textToDelimitedProtobuf(body.toString('utf8'), PROTOBUF_SLICE_MS, () => cancel.throwIfAborted());
        if (format.encoding !== 'delimited') body = Buffer.from(delimitedToProtoText(body, format.encoding === 'compact-text'));
      }
      const headers: Record<string, string | number> = { 'Content-Type': contentTypeFor(format, escaping) };
      const encoding = negotiateEncoding(headerLines(req, 'accept-encoding'), offered);
      if (encoding !== 'identity') {
        body = await COMPRESSORS[encoding](body);
        cancel.throwIfAborted();
        headers['Content-Encoding'] = encoding;
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

const NO_LINES: readonly string[] = [];

/** Each line of a request header, as Go's http.Header keeps them. */
function headerLines(req: IncomingMessage, name: string): readonly string[] {
  const distinct = req.headersDistinct as Record<string, string[] | undefined> | undefined;
  if (distinct !== undefined) return distinct[name] ?? NO_LINES;
  // A framework's request object without headersDistinct: Node joined repeated lines with ', '.
  const value = req.headers[name];
  return value === undefined ? NO_LINES : Array.isArray(value) ? value : [value];
}
