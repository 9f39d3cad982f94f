import type { IncomingMessage, ServerResponse } from 'node:http';
import { DEFAULT_BODY_LIMIT, setBodyLimit } from './body.ts';
import { ConnectionTable, MAX_QUEUED_REQUESTS, type Connection } from './connections.ts';
import { OpsHttpError, httpStatusFor, isOpsHttpError } from './errors.ts';
import { unsupportedTransferEncoding, writeGoRequestError, writeMalformedRequest, writeUnsupportedTransferEncoding, writeUnsupportedVersion } from './go-errors.ts';
import { goJson, writeEmpty } from './json.ts';
import { writeNotFound } from './not-found.ts';
import { cleanPath, escapeGoPath, parseRequestTarget } from './path.ts';
import { attachRequestId } from './response.ts';
import { takeRequestId } from './request-id.ts';

/**
 * A plain Node request handler. What it returns is ignored, as Express, Fastify and node:http
 * ignore it (`(req, res) => res.end('hi')` returns the response), except a promise (any
 * thenable), which is awaited: its rejection answers 500, and a request pipelined behind it
 * waits until it settles.
 */
export type Handler = (req: IncomingMessage, res: ServerResponse) => unknown;

export interface Route {
  /**
   * `/healthz` matches exactly that path. A pattern ending in `/` (`/healthz/`) matches
   * every path below it, as Go's ServeMux subtree patterns do.
   */
  readonly path: string;
  /** Needs a verified client certificate when TLS is on (Fabric's `secure`). */
  readonly secure: boolean;
  readonly handler: Handler;
}

export type AccessDecision = { readonly allow: true } | { readonly allow: false; readonly status: number };

/** Decides whether a request may reach a secure route. Only consulted for secure routes. */
export type Authorize = (req: IncomingMessage, route: Route) => AccessDecision;

export interface RouterOptions {
  readonly routes?: readonly Route[];
  /** Access check for secure routes; without it, secure routes are open (TLS off). */
  readonly authorize?: Authorize;
  /**
   * Called with errors a handler threw (or its promise rejected with) that have no HTTP meaning
   * of their own; they answer 500 with an empty body. Default: one line on stderr naming the
   * method and path (the wire never carries the error).
   */
  readonly onHandlerError?: (error: unknown, req: IncomingMessage) => void;
  /**
   * Longest time from the start of serving a request to the end of its response; past it the
   * connection is destroyed (Go's WriteTimeout). Default 2 minutes.
   */
  readonly writeTimeoutMs?: number;
  /** Largest body `readBody` accepts on this router's requests when not given a limit. Default 1 MiB. */
  readonly bodyLimitBytes?: number;
}

export interface Router {
  /** The request listener for `http.createServer` / `https.createServer`. */
  readonly handle: (req: IncomingMessage, res: ServerResponse) => void;
  /** Adds a route; a second route for the same pattern is an error. Allowed while serving. */
  add(route: Route): void;
  /** The registered patterns, in registration order. */
  paths(): string[];
  /** Responses being served and not yet completely written (the server drains these on stop). */
  inFlight(): IterableIterator<ServerResponse>;
}

const DEFAULT_WRITE_TIMEOUT_MS = 120_000;

/** The default for `onHandlerError`: one line on stderr, never on the wire. */
function reportHandlerError(error: unknown, req: IncomingMessage): void {
  const what = error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);
  process.stderr.write(`ops-http: handler for ${req.method ?? '?'} ${(req.url ?? '').slice(0, 256)} failed: ${what}\n`);
}

function validatePattern(path: string): void {
  if (!path.startsWith('/') || cleanPath(path) !== path) {
    throw new OpsHttpError('INVALID_ROUTE', `route pattern must be a clean absolute path, got ${JSON.stringify(path)}`);
  }
}

/** Go's `htmlEscape` (html.EscapeString's replacements) for the redirect body. */
function htmlEscape(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch]!);
}
const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&#34;', "'": '&#39;' };

/** Go's `hexEscapeNonASCII` for the Location header: bytes >= 0x80 as %XX. */
function hexEscapeNonAscii(text: string): string {
  return /[^\x00-\x7f]/.test(text) ? text.replace(/[^\x00-\x7f]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`) : text;
}

/**
 * Go 1.22+'s ServeMux redirect (`RedirectHandler(url, 307)`; Go 1.26's ServeMux sends 307, where
 * Go 1.18's sent 301): `location` is `url.URL{Path, RawQuery}.String()`, so the cleaned escaped
 * path is escaped once more (`%` → `%25`), a quirk Fabric's clients see too. GET gets Go's short
 * HTML body, HEAD its Content-Type only, other methods neither.
 */
function temporaryRedirect(req: IncomingMessage, res: ServerResponse, location: string): void {
  const header = hexEscapeNonAscii(location);
  if (req.method === 'GET') {
    const body = `<a href="${htmlEscape(location)}">Temporary Redirect</a>.\n\n`;
    res.writeHead(307, ['Content-Type', 'text/html; charset=utf-8', 'Location', header, 'Content-Length', Buffer.byteLength(body)]);
    res.end(body);
    return;
  }
  if (req.method === 'HEAD') {
    res.writeHead(307, ['Content-Type', 'text/html; charset=utf-8', 'Location', header]);
    res.end();
    return;
  }
  res.writeHead(307, ['Location', header, 'Content-Length', '0']);
  res.end();
}

/** `url.URL{Path: path, RawQuery: query}.String()` for a rooted path. */
function goUrlString(path: string, query: string): string {
  return escapeGoPath(path) + (query === '' ? '' : `?${query}`);
}

/** Go's pattern.go `pathUnescape`: a segment that is not a valid escape is used as it is. */
function segmentUnescape(segment: string): string {
  if (!segment.includes('%')) return segment;
  if (/%(?![0-9a-fA-F]{2})/.test(segment)) return segment;
  return Buffer.from(
    segment.replace(/%([0-9a-fA-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    'latin1',
  ).toString('utf8');
}

/** The bytes `httpguts.ValidHostHeader` accepts in a Host header. */
const VALID_HOST_BYTE = ((): Uint8Array => {
  const set = new Uint8Array(256);
  for (const ch of "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ!$%&'()*+,-.:;=[]_~") set[ch.charCodeAt(0)] = 1;
  return set;
})();

/**
 * Go's server checks Host before any handler (server.go readRequest): more than one is a plain
 * 400, none on HTTP/1.1 and a value with a byte outside ValidHostHeader's set are 400s with
 * their reason. Undefined when the header is as Go wants it.
 */
function hostProblem(req: IncomingMessage): string | undefined {
  const raw = req.rawHeaders;
  let count = 0;
  let value = '';
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    // Clients send `Host` (or `host`): compare those first, without making a lower-cased copy per request.
    if (name.length === 4 && (name === 'Host' || name === 'host' || name.toLowerCase() === 'host')) {
      count++;
      value = raw[i + 1]!;
    }
  }
  if (count > 1) return '400 Bad Request';
  if (count === 0) return req.httpVersionMinor >= 1 ? '400 Bad Request: missing required Host header' : undefined;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code > 255 || VALID_HOST_BYTE[code] !== 1) return '400 Bad Request: malformed Host header';
  }
  return undefined;
}

/**
 * Exact-path routing with the answers Go's ServeMux gives Fabric's clients: 404 with
 * `404 page not found\n`, 307 to the cleaned path (Go 1.26), query strings ignored, `OPTIONS *`
 * answered 200. Secure routes pass the `authorize` check before anything else, so a
 * refused request carries no `X-Request-Id`, as in Fabric.
 *
 * Requests on one connection are handled one after another, as Go's server reads them: when a
 * handler returns a promise, a request pipelined behind it waits until that promise settles and
 * its response is complete, so it sees the first one's effects.
 */
/** How long a connection refused mid-body keeps draining what the client still sends. */
const LINGER_MS = 500;

/**
 * Closes the connection behind a refused body the way Go's server does (closeWriteAndWait):
 * send the answer and a FIN, then keep discarding what the client is still sending for a
 * moment before closing. Closing at once, with the client's data still arriving, makes the
 * kernel answer with a reset that can destroy the answer before the client has read it.
 * Node's server discards the rest of the body meanwhile, so nothing is buffered.
 */
function lingerOnClose(res: ServerResponse): void {
  const socket = res.socket;
  if (socket === null || socket.destroyed) return;
  socket.destroySoon = function lingeringDestroySoon(this: typeof socket) {
    this.end();
    const timer = setTimeout(() => this.destroy(), LINGER_MS);
    timer.unref();
    this.once('close', () => clearTimeout(timer));
  };
}

// Taken once at load: a promise whose `then` was replaced later is treated as any other thenable.
const PROMISE_THEN = Promise.prototype.then;

export function createRouter(options: RouterOptions = {}): Router {
  const exact = new Map<string, Route>();
  const subtrees: Route[] = [];
  const order: string[] = [];
  // The default needs no mark on the request: readBody falls back to it.
  const bodyLimit = options.bodyLimitBytes === DEFAULT_BODY_LIMIT ? undefined : options.bodyLimitBytes;

  const add = (route: Route): void => {
    // Checked for JavaScript callers: a route without a path or handler fails here, named, not later as a TypeError.
    if (route === null || typeof route !== 'object') throw new OpsHttpError('INVALID_ROUTE', `a route must be an object { path, secure, handler }, got ${route === null ? 'null' : typeof route}`);
    if (typeof route.path !== 'string') throw new OpsHttpError('INVALID_ROUTE', `route path must be a string such as '/status', got ${typeof route.path}`);
    if (typeof route.handler !== 'function') throw new OpsHttpError('INVALID_ROUTE', `route ${route.path}: handler must be a function (req, res), got ${typeof route.handler}`);
    validatePattern(route.path);
    if (exact.has(route.path) || subtrees.some((r) => r.path === route.path)) {
      throw new OpsHttpError('DUPLICATE_ROUTE', `a handler is already registered for ${route.path}`);
    }
    if (route.path.endsWith('/') && route.path !== '/') {
      subtrees.push(route);
      subtrees.sort((a, b) => b.path.length - a.path.length);
    } else {
      exact.set(route.path, route);
    }
    order.push(route.path);
  };

  /**
   * Go 1.22+'s ServeMux matches the cleaned escaped path segment by segment, each segment
   * unescaped on its own: `/log%73pec` is `/logspec`, but `/healthz%2Fx` is the one segment
   * `healthz/x` and matches neither `/healthz` nor `/healthz/`.
   */
  const lookup = (escapedPath: string): Route | undefined => {
    if (!escapedPath.includes('%')) return exact.get(escapedPath) ?? subtrees.find((route) => escapedPath.startsWith(route.path));
    const segments = escapedPath.slice(1).split('/').map(segmentUnescape);
    const slashInside = segments.findIndex((segment) => segment.includes('/'));
    if (slashInside === -1) {
      const route = exact.get('/' + segments.join('/'));
      if (route !== undefined) return route;
    }
    return subtrees.find((route) => {
      const prefix = route.path.slice(1, -1).split('/');
      if (segments.length <= prefix.length) return false;
      return prefix.every((segment, i) => segments[i] === segment);
    });
  };

  const report = (error: unknown, req: IncomingMessage): void => {
    try {
      (options.onHandlerError ?? reportHandlerError)(error, req);
    } catch {
      // A logger that throws must not turn one failed request into a crashed process.
    }
  };

  const fail = (req: IncomingMessage, res: ServerResponse, error: unknown): void => {
    if (res.headersSent) {
      // Too late for a status. The failure is logged (never sent); a response already ended is
      // left as it is, and an unfinished one ends with its connection once what was written has
      // gone out: the client sees a response cut short and a closed connection, as Go's server
      // leaves one whose handler panicked, not a reset.
      report(error, req);
      if (!res.writableEnded) {
        // Node corks a response while its handler runs (uncorked on the next tick; Node 22+
        // keeps a chunked body's writes in the response until then), so what was written is
        // released before the connection ends, or the client would get nothing at all.
        while (res.writableCorked > 0) res.uncork();
        res.socket?.end();
      }
      return;
    }
    if (isOpsHttpError(error)) {
      const status = httpStatusFor(error.code);
      const body = goJson({ error: error.message }) + '\n';
      // The rest of an oversized or broken body is never read: the socket cannot be reused.
      lingerOnClose(res);
      res.writeHead(status, ['Content-Type', 'application/json', 'Content-Length', Buffer.byteLength(body), 'Connection', 'close']);
      res.end(body);
      return;
    }
    report(error, req);
    writeEmpty(res, 500);
  };

  const dispatch = (connection: Connection, req: IncomingMessage, res: ServerResponse): void => {
    connections.serving(connection, res);
    if (unsupportedTransferEncoding(req)) {
      writeUnsupportedTransferEncoding(res);
      return;
    }
    if (req.httpVersionMajor !== 1) {
      // Node's parser takes `HTTP/2.0` and a request line without a version (as HTTP/0.9); Go answers neither.
      if (req.httpVersionMajor === 0) writeMalformedRequest(res);
      else writeUnsupportedVersion(res);
      return;
    }
    const badHost = hostProblem(req);
    if (badHost !== undefined) {
      writeGoRequestError(res, badHost);
      return;
    }
    const target = req.url ?? '/';
    if (target === '*') {
      // Go's server answers `OPTIONS *` itself; ServeMux refuses `*` for every other method.
      if (req.method === 'OPTIONS') writeEmpty(res, 200);
      else writeEmpty(res, 400, { Connection: 'close' });
      return;
    }
    let escapedPath: string;
    let path: string;
    let query: string;
    try {
      ({ escapedPath, path, query } = parseRequestTarget(target));
    } catch {
      // Go's server refuses a target its URL parser rejects before any handler runs.
      writeMalformedRequest(res);
      return;
    }
    const clean = cleanPath(escapedPath);
    const route = lookup(clean);
    if (route === undefined && !clean.endsWith('/') && subtrees.some((r) => r.path === clean + '/')) {
      // ServeMux's /tree → /tree/ redirect, built from the decoded path.
      temporaryRedirect(req, res, goUrlString(cleanPath(path) + '/', query));
      return;
    }
    if (clean !== escapedPath) {
      temporaryRedirect(req, res, goUrlString(clean, query));
      return;
    }
    if (route === undefined) {
      writeNotFound(res);
      return;
    }
    if (route.secure && options.authorize !== undefined) {
      const decision = options.authorize(req, route);
      if (!decision.allow) {
        writeEmpty(res, decision.status);
        return;
      }
    }
    attachRequestId(res, takeRequestId(req));
    if (bodyLimit !== undefined) setBodyLimit(req, bodyLimit);
    let result: unknown;
    let then: unknown;
    try {
      result = route.handler(req, res);
      // Only a thenable is waited for; any other value (a JavaScript handler returning
      // `res.end()`) is ignored. Reading `then` can itself throw (a getter).
      then = typeof result === 'object' || typeof result === 'function' ? (result as { then?: unknown } | null)?.then : undefined;
    } catch (error) {
      fail(req, res, error);
      return;
    }
    if (typeof then === 'function') {
      connection.busy = true;
      connection.req = req;
      if (then === PROMISE_THEN && result instanceof Promise) {
        // A native promise calls back once, one way: the connection's own callbacks, no closures per request.
        void PROMISE_THEN.call(result as Promise<unknown>, connection.settled, connection.failed);
        return;
      }
      // A hand-made thenable may call back twice, or both ways: the first call counts.
      let done = false;
      const settledOnce = (): void => {
        if (done) return;
        done = true;
        connection.settled();
      };
      const failedOnce = (error: unknown): void => {
        if (done) return;
        done = true;
        connection.failed(error);
      };
      try {
        (then as (onFulfilled: () => void, onRejected: (error: unknown) => void) => unknown).call(result, settledOnce, failedOnce);
      } catch (error) {
        failedOnce(error);
      }
    }
  };

  /** Runs the requests that waited behind `connection`'s last one, until one of them has to wait. */
  const runQueue = (connection: Connection): void => {
    const { queue, socket } = connection;
    while (!connection.busy && queue.length > 0) {
      // A response that closed the connection (Connection: close, shutdown) ends it here: Go
      // would not read the requests behind it either.
      if (socket.destroyed || !socket.writable) {
        queue.length = 0;
        return;
      }
      const req = queue.shift() as IncomingMessage;
      const res = queue.shift() as ServerResponse;
      dispatch(connection, req, res);
    }
  };

  const settled = (connection: Connection): void => {
    connection.req = undefined;
    if (connection.queue.length === 0) {
      connection.busy = false;
      return;
    }
    // Run the next request once this response is done with (its 'close': Node has then either
    // freed the connection for the next one or begun closing it). `busy` stays set meanwhile.
    const res = connection.res;
    if (res === undefined || res.destroyed) {
      connection.busy = false;
      runQueue(connection);
      return;
    }
    res.once('close', () => {
      connection.busy = false;
      runQueue(connection);
    });
  };

  const failed = (connection: Connection, error: unknown): void => {
    const { req, res } = connection;
    if (req !== undefined && res !== undefined) fail(req, res, error);
    settled(connection);
  };

  const connections = new ConnectionTable(options.writeTimeoutMs ?? DEFAULT_WRITE_TIMEOUT_MS, settled, failed);

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const connection = connections.of(req);
    if (connection.busy) {
      if (connection.queue.length >= 2 * MAX_QUEUED_REQUESTS) {
        connection.socket.destroy();
        return;
      }
      connection.queue.push(req, res);
      return;
    }
    dispatch(connection, req, res);
  };

  for (const route of options.routes ?? []) add(route);
  return { handle, add, paths: () => [...order], inFlight: () => connections.inFlight() };
}
