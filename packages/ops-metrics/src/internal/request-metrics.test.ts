import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { isMetricsError } from './errors.ts';
import type { PrometheusProvider } from './prometheus.ts';
import { createMetricsProvider } from './provider.ts';
import { createRequestMetrics, type RequestMetricsOptions } from './request-metrics.ts';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<number> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

function call(port: number, method: string, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The `_count` samples of the histogram, as `labels count` lines. */
async function counts(provider: PrometheusProvider, name = 'http_request_duration_seconds'): Promise<string[]> {
  const text = await provider.exposition();
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}_count{`))
    .map((line) => line.slice(`${name}_count`.length))
    .sort();
}

function setUp(options: RequestMetricsOptions = {}) {
  const provider = createMetricsProvider({ provider: 'prometheus', runtimeMetrics: false });
  return { provider, metrics: createRequestMetrics(provider, options) };
}

describe('createRequestMetrics on node:http', () => {
  it('labels each finished request with method, route and status code; unknown paths are "unmatched"', async () => {
    const { provider, metrics } = setUp({ routes: ['/orders'] });
    const port = await serve((req, res) => {
      metrics.observe(req, res);
      res.statusCode = req.url?.startsWith('/orders') ? 200 : 404;
      res.end();
    });
    expect(await call(port, 'GET', '/orders?page=2')).toBe(200);
    expect(await call(port, 'POST', '/orders')).toBe(200);
    for (let i = 0; i < 3; i++) await call(port, 'GET', `/random-${i}`);
    expect(await counts(provider)).toEqual([
      '{method="GET",route="/orders",status_code="200"} 1',
      '{method="GET",route="unmatched",status_code="404"} 3',
      '{method="POST",route="/orders",status_code="200"} 1',
    ]);
  });

  it('bounds the route label: past maxRoutes a new route is "other", and odd methods are "other"', async () => {
    const { provider, metrics } = setUp({ maxRoutes: 2 });
    const port = await serve((req, res) => {
      metrics.observe(req, res, req.url); // a caller that (wrongly) names raw URLs as routes
      res.end();
    });
    for (const path of ['/a', '/b', '/c', '/d', '/a']) await call(port, 'GET', path);
    await call(port, 'PROPFIND', '/a');
    expect(await counts(provider)).toEqual([
      '{method="GET",route="/a",status_code="200"} 2',
      '{method="GET",route="/b",status_code="200"} 1',
      '{method="GET",route="other",status_code="200"} 2',
      '{method="other",route="/a",status_code="200"} 1',
    ]);
  });

  it('takes the route a framework matched, read when the response finishes', async () => {
    const { provider, metrics } = setUp();
    const port = await serve((req, res) => {
      const matched = req as IncomingMessage & { route?: { path: string }; baseUrl?: string };
      metrics.express(req, res, () => {
        // What Express does after the middleware: match a route, then answer.
        matched.baseUrl = '/api';
        matched.route = { path: '/orders/:id' };
        res.statusCode = 201;
        res.end();
      });
    });
    await call(port, 'PUT', '/api/orders/42');
    expect(await counts(provider)).toEqual(['{method="PUT",route="/api/orders/:id",status_code="201"} 1']);
  });

  it('refuses bad options with a MetricsError', () => {
    const provider = createMetricsProvider({ provider: 'prometheus', runtimeMetrics: false });
    for (const [options, message] of [
      [{ maxRoutes: 0 }, 'request metrics: maxRoutes must be a positive integer, got 0'],
      [{ routes: ['orders'] }, 'request metrics: each of routes must be a path starting with /, got "orders"'],
    ] as const) {
      let caught: unknown;
      try {
        createRequestMetrics(provider, options);
      } catch (error) {
        caught = error;
      }
      expect(isMetricsError(caught)).toBe(true);
      expect((caught as Error).message).toBe(message);
    }
  });
});

describe('createRequestMetrics called from JavaScript with bad arguments', () => {
  const provider = createMetricsProvider({ provider: 'prometheus' });
  const codeOf = (call: () => unknown): { code: string | undefined; message: string } => {
    try {
      call();
      return { code: undefined, message: 'no error' };
    } catch (error) {
      return { code: isMetricsError(error) ? error.code : `not a MetricsError: ${String(error)}`, message: (error as Error).message };
    }
  };
  const create = createRequestMetrics as (...args: unknown[]) => unknown;

  it('names a missing provider instead of failing later with a TypeError', () => {
    expect(codeOf(() => create(undefined))).toEqual({ code: 'INVALID_METRIC_OPTIONS', message: expect.stringContaining('the first argument must be a metrics provider') });
    expect(codeOf(() => create({}))).toMatchObject({ code: 'INVALID_METRIC_OPTIONS' });
  });

  it('refuses an unknown option, naming it and the known ones', () => {
    expect(codeOf(() => create(provider, { maxRoute: 5 }))).toEqual({
      code: 'INVALID_METRIC_OPTIONS',
      message: expect.stringContaining('unknown option "maxRoute" (known: name, help, buckets, routes, maxRoutes)'),
    });
    expect(codeOf(() => create(provider, null))).toMatchObject({ code: 'INVALID_METRIC_OPTIONS' });
  });
});
