import type { IncomingMessage, ServerResponse } from 'node:http';
import { OpsHttpError, httpStatusFor, isOpsHttpError } from './errors.ts';
import { goJson, writeEmpty, writeText } from './json.ts';
import { cleanPath, parseRequestTarget } from './path.ts';
import { assignRequestId } from './request-id.ts';

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
   * Longest time from routing a request to the end of its response; past it the
   * connection is destroyed (Go's WriteTimeout). Default 2 minutes.
   */
  readonly writeTimeoutMs?: number;
}

export interface Router {
  /** The request listener for `http.createServer` / `https.createServer`. */
  readonly handle: (req: IncomingMessage, res: ServerResponse) => void;
  /** Adds a route; a second route for the same pattern is an error. Allowed while serving. */
  add(route: Route): void;
  /** The registered patterns, in registration order. */
  paths(): string[];
  /** Responses of routed requests not yet finished or closed (the server drains these on stop). */
  inFlight(): IterableIterator<ServerResponse>;
}

export const DEFAULT_WRITE_TIMEOUT_MS = 120_000;

function validatePattern(path: string): void {
  if (!path.startsWith('/') || cleanPath(path) !== path) {
    throw new OpsHttpError('INVALID_ROUTE', `route pattern must be a clean absolute path, got ${JSON.stringify(path)}`);
  }
}

function notFound(res: ServerResponse): void {
  writeText(res, 404, '404 page not found\n', { 'X-Content-Type-Options': 'nosniff' });
}

function htmlEscape(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** Go's `http.Redirect` with 301, as ServeMux sends for unclean paths. */
function movedPermanently(req: IncomingMessage, res: ServerResponse, location: string): void {
  res.setHeader('Location', location);
  if (req.method === 'GET' || req.method === 'HEAD') {
    const body = `<a href="${htmlEscape(location)}">Moved Permanently</a>.\n\n`;
    res.writeHead(301, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
    return;
  }
  writeEmpty(res, 301);
}

/**
 * Exact-path routing with the answers Go's ServeMux gives Fabric's clients: 404 with
 * `404 page not found\n`, 301 to the cleaned path, query strings ignored, `OPTIONS *`
 * answered 200. Secure routes pass the `authorize` check before anything else, so a
 * refused request carries no `X-Request-Id`, as in Fabric.
 */
export function createRouter(options: RouterOptions = {}): Router {
  const exact = new Map<string, Route>();
  const subtrees: Route[] = [];
  const order: string[] = [];
  const writeTimeoutMs = options.writeTimeoutMs ?? DEFAULT_WRITE_TIMEOUT_MS;

  // Routed responses still open, with the time each must be finished by. One sweeper enforces every
  // deadline: a timer per request would cost more than the rest of the routing.
  const open = new Map<ServerResponse, number>();
  function forget(this: ServerResponse): void {
    open.delete(this);
  }
  let sweeper: NodeJS.Timeout | undefined;
  const sweep = (): void => {
    const now = Date.now();
    for (const [res, due] of open) if (due <= now) res.destroy();
    if (open.size === 0 && sweeper !== undefined) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
  };
  const track = (res: ServerResponse): void => {
    open.set(res, Date.now() + writeTimeoutMs);
    res.on('close', forget);
    if (sweeper === undefined) {
      sweeper = setInterval(sweep, Math.max(10, Math.min(1_000, writeTimeoutMs / 4)));
      sweeper.unref();
    }
  };

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

  const lookup = (path: string): Route | undefined =>
    exact.get(path) ?? subtrees.find((route) => path.startsWith(route.path));

  const fail = (req: IncomingMessage, res: ServerResponse, error: unknown): void => {
    if (res.headersSent) {
      res.destroy(error instanceof Error ? error : undefined);
      return;
    }
    if (isOpsHttpError(error)) {
      const status = httpStatusFor(error.code);
      const body = goJson({ error: error.message }) + '\n';
      res.writeHead(status, {
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(body),
        // The rest of an oversized or broken body is never read: the socket cannot be reused.
        Connection: 'close',
      });
      res.end(body);
      return;
    }
    options.onHandlerError?.(error, req);
    writeEmpty(res, 500);
  };

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const target = req.url ?? '/';
    if (req.method === 'OPTIONS' && target === '*') {
      writeEmpty(res, 200);
      return;
    }
    let path: string;
    let query: string;
    try {
      ({ path, query } = parseRequestTarget(target));
    } catch (error) {
      fail(req, res, error);
      return;
    }
    const clean = cleanPath(path);
    if (clean !== path) {
      movedPermanently(req, res, encodeURI(clean) + (query === '' ? '' : `?${query}`));
      return;
    }
    const route = lookup(clean);
    if (route === undefined) {
      notFound(res);
      return;
    }
    if (route.secure && options.authorize !== undefined) {
      const decision = options.authorize(req, route);
      if (!decision.allow) {
        writeEmpty(res, decision.status);
        return;
      }
    }
    assignRequestId(req, res);
    track(res);
    try {
      const result = route.handler(req, res);
      if (result !== undefined) result.catch((error: unknown) => fail(req, res, error));
    } catch (error) {
      fail(req, res, error);
    }
  };

  for (const route of options.routes ?? []) add(route);
  return { handle, add, paths: () => [...order], inFlight: () => open.keys() };
}
