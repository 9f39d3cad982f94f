import type { IncomingMessage, ServerResponse } from 'node:http';
import { DEFAULT_BODY_LIMIT, setBodyLimit } from './body.ts';
import { ConnectionTable, MAX_QUEUED_REQUESTS, type Connection } from './connections.ts';
import { OpsHttpError, httpStatusFor, isOpsHttpError } from './errors.ts';
import { writeMalformedRequest, writeUnsupportedVersion } from './go-errors.ts';
import { goJson, writeEmpty } from './json.ts';
import { writeNotFound } from './not-found.ts';
import { cleanPath, parseRequestTarget } from './path.ts';
import { attachRequestId } from './response.ts';
import { takeRequestId } from './request-id.ts';

/** A plain Node request handler; a returned promise is awaited for errors. */
export type Handler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

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
  /** Called with errors a handler threw that have no HTTP meaning of their own (they answer 500). */
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

function validatePattern(path: string): void {
  if (!path.startsWith('/') || cleanPath(path) !== path) {
    throw new OpsHttpError('INVALID_ROUTE', `route pattern must be a clean absolute path, got ${JSON.stringify(path)}`);
  }
}

function htmlEscape(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** Go's `http.Redirect` with 301, as ServeMux sends for unclean paths. */
function movedPermanently(req: IncomingMessage, res: ServerResponse, location: string): void {
  if (req.method === 'GET' || req.method === 'HEAD') {
    const body = `<a href="${htmlEscape(location)}">Moved Permanently</a>.\n\n`;
    res.writeHead(301, ['Location', location, 'Content-Type', 'text/html; charset=utf-8', 'Content-Length', Buffer.byteLength(body)]);
    res.end(body);
    return;
  }
  res.writeHead(301, ['Location', location, 'Content-Length', '0']);
  res.end();
}

/**
 * Exact-path routing with the answers Go's ServeMux gives Fabric's clients: 404 with
 * `404 page not found\n`, 301 to the cleaned path, query strings ignored, `OPTIONS *`
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

export function createRouter(options: RouterOptions = {}): Router {
  const exact = new Map<string, Route>();
  const subtrees: Route[] = [];
  const order: string[] = [];
  // The default needs no mark on the request: readBody falls back to it.
  const bodyLimit = options.bodyLimitBytes === DEFAULT_BODY_LIMIT ? undefined : options.bodyLimitBytes;

  const add = (route: Route): void => {
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

  const lookup = (path: string): Route | undefined => exact.get(path) ?? subtrees.find((route) => path.startsWith(route.path));

  const fail = (req: IncomingMessage, res: ServerResponse, error: unknown): void => {
    if (res.headersSent) {
      res.destroy(error instanceof Error ? error : undefined);
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
    options.onHandlerError?.(error, req);
    writeEmpty(res, 500);
  };

  const dispatch = (connection: Connection, req: IncomingMessage, res: ServerResponse): void => {
    connections.serving(connection, res);
    if (req.httpVersionMajor !== 1) {
      // Node's parser takes `HTTP/2.0` and a request line without a version (as HTTP/0.9); Go answers neither.
      if (req.httpVersionMajor === 0) writeMalformedRequest(res);
      else writeUnsupportedVersion(res);
      return;
    }
    const target = req.url ?? '/';
    if (target === '*') {
      // Go's server answers `OPTIONS *` itself; ServeMux refuses `*` for every other method.
      if (req.method === 'OPTIONS') writeEmpty(res, 200);
      else writeEmpty(res, 400, { Connection: 'close' });
      return;
    }
    let path = target;
    let query = '';
    // Nearly every target is a plain path: only split and decode the others.
    if (target.charCodeAt(0) !== 0x2f || target.includes('?') || target.includes('%')) {
      try {
        ({ path, query } = parseRequestTarget(target));
      } catch {
        // Go's server refuses a target its URL parser rejects before any handler runs.
        writeMalformedRequest(res);
        return;
      }
    }
    const clean = cleanPath(path);
    if (clean !== path) {
      movedPermanently(req, res, encodeURI(clean) + (query === '' ? '' : `?${query}`));
      return;
    }
    const route = lookup(clean);
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
    let result: void | Promise<void>;
    try {
      result = route.handler(req, res);
    } catch (error) {
      fail(req, res, error);
      return;
    }
    if (result !== undefined) {
      connection.busy = true;
      connection.req = req;
      result.then(connection.settled, connection.failed);
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
