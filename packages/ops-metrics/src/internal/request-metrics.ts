import type { IncomingMessage, ServerResponse } from 'node:http';
import { MetricsError } from './errors.ts';
import type { Histogram, MetricsFactory } from './types.ts';

export interface RequestMetricsOptions {
  /** The histogram's name. Default `http_request_duration_seconds` (express-prom-bundle's). */
  readonly name?: string;
  readonly help?: string;
  /** Upper bounds in seconds. Default Prometheus's (0.005 … 10). */
  readonly buckets?: readonly number[];
  /**
   * For `node:http`, which has no router: the paths that are routes. A request for any other
   * path is labelled `route="unmatched"`, so a scan of random URLs cannot grow the series.
   * Express and Fastify name the matched route template themselves (`/orders/:id`).
   */
  readonly routes?: readonly string[];
  /** At most this many distinct `route` values; later new ones are labelled `other`. Default 100. */
  readonly maxRoutes?: number;
}

/** Connect-style middleware (Express 4 and 5, Connect). */
export type ExpressMiddleware = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

/** What a Fastify `onRequest` hook is given, loosely typed so this package needs no Fastify. */
export interface FastifyRequestLike {
  readonly raw: IncomingMessage;
  readonly routeOptions?: { readonly url?: string | undefined };
}
export interface FastifyReplyLike {
  readonly raw: ServerResponse;
}

export interface RequestMetrics {
  /**
   * Times one request from now until its response is finished (`node:http`: call it first in
   * the request listener). `route` names the route when the caller knows it; else the request's
   * path if it is one of `routes`, else `unmatched`.
   */
  observe(req: IncomingMessage, res: ServerResponse, route?: string | (() => string | undefined)): void;
  /** Express: `app.use(requestMetrics.express)`, before the routes. */
  readonly express: ExpressMiddleware;
  /** Fastify: `fastify.addHook('onRequest', requestMetrics.fastify)`. */
  readonly fastify: (request: FastifyRequestLike, reply: FastifyReplyLike, done: () => void) => void;
}

/** The little of Express's request and router stacks that naming a mounted route needs (Express 4 and 5). */
interface ExpressLayer {
  readonly handle?: { readonly stack?: readonly ExpressLayer[] };
  readonly route?: unknown;
  /** Express 5 (router 2): the path as given to `use()`, and its matchers. */
  readonly rawPath?: unknown;
  /** Express 5: a `use()` without a path, which matches every path without its matchers. */
  readonly slash?: boolean;
  readonly matchers?: readonly ((path: string) => false | { readonly path: string })[];
  /** Express 4: the compiled path and its parameter names. */
  readonly regexp?: RegExp;
  readonly keys?: readonly { readonly name: string | number }[];
}
interface ExpressRequest extends IncomingMessage {
  route?: { path?: unknown };
  baseUrl?: string;
  originalUrl?: string;
  app?: { router?: { stack?: readonly ExpressLayer[] }; _router?: { stack?: readonly ExpressLayer[] } };
}

/** How much of `path` one mounting layer takes, and that part as a template; undefined when it does not match. */
function mountedPart(layer: ExpressLayer, path: string): { readonly taken: number; readonly template: string } | undefined {
  if (layer.slash === true) return { taken: 0, template: '' };
  if (layer.matchers !== undefined) {
    const raw = Array.isArray(layer.rawPath) ? layer.rawPath : [layer.rawPath];
    for (let i = 0; i < layer.matchers.length; i++) {
      const match = layer.matchers[i]!(path);
      if (match === false) continue;
      const template = typeof raw[i] === 'string' ? (raw[i] as string) : 'regexp';
      return { taken: match.path.length, template: template.endsWith('/') ? template.slice(0, -1) : template };
    }
    return undefined;
  }
  if (layer.regexp === undefined) return undefined;
  const match = layer.regexp.exec(path);
  if (match === null) return undefined;
  // Each captured parameter value back to `:name`, from the end so earlier offsets hold.
  let template = match[0];
  const keys = layer.keys ?? [];
  for (let i = keys.length; i >= 1; i--) {
    const value = match[i];
    if (value === undefined) continue;
    const at = template.lastIndexOf(value);
    if (at >= 0) template = `${template.slice(0, at)}:${keys[i - 1]!.name}${template.slice(at + value.length)}`;
  }
  return { taken: match[0].length, template: template.endsWith('/') ? template.slice(0, -1) : template };
}

/** Routers nested deeper than this are not followed (a stack that contains itself ends too). */
const MAX_MOUNT_DEPTH = 16;

/**
 * The template of the routers between `stack` and the layer of `route`, for the `rest` of the
 * request's path; undefined when `route` is not reached that way.
 */
function templateUnder(stack: readonly ExpressLayer[], rest: string, route: unknown, depth: number): string | undefined {
  if (depth >= MAX_MOUNT_DEPTH) return undefined;
  for (const layer of stack) {
    if (layer.route !== undefined) {
      if (layer.route === route && mountedPart(layer, rest) !== undefined) return '';
      continue;
    }
    const inner = layer.handle?.stack;
    if (inner === undefined) continue;
    const part = mountedPart(layer, rest);
    if (part === undefined) continue;
    const below = templateUnder(inner, rest.slice(part.taken), route, depth + 1);
    if (below !== undefined) return (part.taken === 0 ? '' : part.template) + below;
  }
  return undefined;
}

/**
 * The template of the routers a matched route is mounted under (`/api/:version`), found by
 * walking the app's router stack along the request's path to the route's own layer;
 * `baseUrl` (the mount with its values) when the stack cannot be read, where at most
 * `maxRoutes` values still bound the label.
 */
function mountTemplate(req: ExpressRequest): string {
  const app = req.app;
  // Express 4 keeps its router in _router (its app.router getter throws); Express 5 in router.
  const stack = app?._router?.stack ?? app?.router?.stack;
  const url = req.originalUrl ?? req.url ?? '/';
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  return (stack === undefined ? undefined : templateUnder(stack, path, req.route, 0)) ?? req.baseUrl ?? '';
}

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH']);
const DEFAULT_MAX_ROUTES = 100;

const OPTION_KEYS = new Set(['name', 'help', 'buckets', 'routes', 'maxRoutes']);

/** Checked for JavaScript callers: a missing provider or an unknown option is named, not a TypeError later. */
function checkArguments(provider: unknown, options: unknown): void {
  if (typeof (provider as { newHistogram?: unknown } | null | undefined)?.newHistogram !== 'function') {
    throw new MetricsError('INVALID_METRIC_OPTIONS', `request metrics: the first argument must be a metrics provider (createMetricsProvider's), got ${provider === null ? 'null' : typeof provider}`);
  }
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new MetricsError('INVALID_METRIC_OPTIONS', `request metrics: options must be an object, got ${options === null ? 'null' : Array.isArray(options) ? 'an array' : typeof options}`);
  }
  const unknown = Object.keys(options).filter((key) => !OPTION_KEYS.has(key));
  if (unknown.length > 0) {
    throw new MetricsError('INVALID_METRIC_OPTIONS', `request metrics: unknown option ${unknown.map((key) => JSON.stringify(key)).join(', ')} (known: ${[...OPTION_KEYS].join(', ')})`);
  }
}

function checkOptions(options: RequestMetricsOptions): void {
  const maxRoutes = options.maxRoutes ?? DEFAULT_MAX_ROUTES;
  if (!Number.isInteger(maxRoutes) || maxRoutes < 1) {
    throw new MetricsError('INVALID_METRIC_OPTIONS', `request metrics: maxRoutes must be a positive integer, got ${String(options.maxRoutes)}`);
  }
  for (const route of options.routes ?? []) {
    if (typeof route !== 'string' || !route.startsWith('/')) {
      throw new MetricsError('INVALID_METRIC_OPTIONS', `request metrics: each of routes must be a path starting with /, got ${JSON.stringify(route)}`);
    }
  }
}

/**
 * `http_request_duration_seconds{method,route,status_code}` for an application's own HTTP
 * server, recorded on any provider (Prometheus, StatsD). Label values are bounded: `method` is
 * one of the standard methods or `other`, `route` a route template (never the raw URL) and at
 * most `maxRoutes` of them.
 */
export function createRequestMetrics(provider: MetricsFactory, options: RequestMetricsOptions = {}): RequestMetrics {
  checkArguments(provider, options);
  checkOptions(options);
  const histogram: Histogram = provider.newHistogram({
    name: options.name ?? 'http_request_duration_seconds',
    help: options.help ?? 'Duration of HTTP requests in seconds, by method, route template and status code.',
    labelNames: ['method', 'route', 'status_code'],
    ...(options.buckets === undefined ? {} : { buckets: options.buckets }),
    statsdFormat: '%{#fqname}.%{method}.%{route}.%{status_code}',
  });
  const knownPaths = new Set(options.routes ?? []);
  const maxRoutes = options.maxRoutes ?? DEFAULT_MAX_ROUTES;
  const seenRoutes = new Set<string>();

  const boundedRoute = (route: string): string => {
    if (seenRoutes.has(route)) return route;
    if (seenRoutes.size >= maxRoutes) return 'other';
    seenRoutes.add(route);
    return route;
  };
  const pathOf = (req: IncomingMessage): string => {
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    return query === -1 ? url : url.slice(0, query);
  };

  const observe: RequestMetrics['observe'] = (req, res, route) => {
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const named = typeof route === 'function' ? route() : route;
      const path = pathOf(req);
      const label = named !== undefined && named !== '' ? named : knownPaths.has(path) ? path : 'unmatched';
      const method = req.method !== undefined && KNOWN_METHODS.has(req.method) ? req.method : 'other';
      histogram.with('method', method, 'route', boundedRoute(label), 'status_code', String(res.statusCode)).observe(seconds);
    });
  };

  return {
    observe,
    express: (req, res, next) => {
      // Express sets req.route once a route matched; baseUrl is where its router is mounted, with
      // the mount's parameter values filled in, so the mount's template is read from the app.
      const express = req as ExpressRequest;
      observe(req, res, () => (typeof express.route?.path === 'string' ? `${mountTemplate(express)}${express.route.path}` : undefined));
      next();
    },
    fastify: (request, reply, done) => {
      observe(request.raw, reply.raw, () => request.routeOptions?.url);
      done();
    },
  };
}
