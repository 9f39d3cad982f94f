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

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH']);
const DEFAULT_MAX_ROUTES = 100;

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
      // Express sets req.route on the request once a route matched; baseUrl is the router's mount point.
      const express = req as IncomingMessage & { route?: { path?: unknown }; baseUrl?: string };
      observe(req, res, () => (typeof express.route?.path === 'string' ? `${express.baseUrl ?? ''}${express.route.path}` : undefined));
      next();
    },
    fastify: (request, reply, done) => {
      observe(request.raw, reply.raw, () => request.routeOptions?.url);
      done();
    },
  };
}
