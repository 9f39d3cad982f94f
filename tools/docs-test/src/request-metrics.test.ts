// ops-metrics' request metrics in the real frameworks: Express 5 and Fastify 5 name the matched
// route template, so `route` carries `/orders/:id` however many ids are asked for, and a path no
// route matches is `unmatched`.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { createMetricsProvider } from '@fabric-ops/ops-metrics';
import { createRequestMetrics } from '@fabric-ops/ops-metrics/request-metrics';

// Express ships no type declarations (and @types/express is not installed): the little used here, typed.
interface ExpressApp {
  use(...middleware: unknown[]): void;
  get(path: string, handler: (req: unknown, res: { json(body: unknown): void }) => void): void;
  listen(port: number, host: string, ready: () => void): Server;
}
type ExpressRouter = Omit<ExpressApp, 'listen'>;
type Express = (() => ExpressApp) & { Router(): ExpressRouter };
const express = createRequire(import.meta.url)('express') as Express;
const express4 = createRequire(import.meta.url)('express4') as Express;

const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

async function countsOf(provider: ReturnType<typeof createMetricsProvider>): Promise<string[]> {
  const text = await (provider as { exposition(): Promise<string> }).exposition();
  return text
    .split('\n')
    .filter((line) => line.startsWith('http_request_duration_seconds_count{'))
    .map((line) => line.slice('http_request_duration_seconds_count'.length))
    .sort();
}

async function hit(base: string, paths: readonly string[]): Promise<void> {
  for (const path of paths) await (await fetch(`${base}${path}`)).arrayBuffer();
}

const PATHS = ['/orders/1', '/orders/2', '/orders/3', '/nope/1', '/nope/2'];
const EXPECTED = ['{method="GET",route="/orders/:id",status_code="200"} 3', '{method="GET",route="unmatched",status_code="404"} 2'];

describe('createRequestMetrics in real frameworks', () => {
  it('Express 5: app.use(requestMetrics.express)', async () => {
    const provider = createMetricsProvider({ provider: 'prometheus', runtimeMetrics: false });
    const app = express();
    app.use(createRequestMetrics(provider).express);
    app.get('/orders/:id', (_req, res) => void res.json({ ok: true }));
    const server: Server = await new Promise((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    closers.push(() => new Promise((resolve) => server.close(resolve)));
    await hit(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, PATHS);
    expect(await countsOf(provider)).toEqual(EXPECTED);
  });

  it("Fastify 5: addHook('onRequest', requestMetrics.fastify)", async () => {
    const provider = createMetricsProvider({ provider: 'prometheus', runtimeMetrics: false });
    const app = Fastify();
    app.addHook('onRequest', createRequestMetrics(provider).fastify);
    app.get('/orders/:id', async () => ({ ok: true }));
    closers.push(() => app.close());
    await app.listen({ port: 0, host: '127.0.0.1' });
    await hit(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, PATHS);
    expect(await countsOf(provider)).toEqual(EXPECTED);
  });

  it.each([
    ['Express 5', express],
    ['Express 4', express4],
  ] as const)('%s: routers mounted with parameters give their templates, not the values asked for', async (_name, framework) => {
    const provider = createMetricsProvider({ provider: 'prometheus', runtimeMetrics: false });
    const app = framework();
    app.use(createRequestMetrics(provider).express);
    const orgs = framework.Router();
    orgs.get('/items/:id', (_req, res) => void res.json({ ok: true }));
    const api = framework.Router();
    api.use('/orgs/:org', orgs);
    api.get('/status', (_req, res) => void res.json({ ok: true }));
    const plain = framework.Router();
    plain.use('/api/:version', api);
    app.use(plain);
    app.use('/direct/:version', api);
    const server: Server = await new Promise((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    closers.push(() => new Promise((resolve) => server.close(resolve)));
    const paths = ['/api/v1/status', '/api/v2/status', '/api/v1/orgs/org1/items/1', '/api/v9/orgs/org2/items/2', '/api/v3/orgs/x/items/3', '/direct/7/status', '/direct/8/status'];
    await hit(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, paths);
    expect(await countsOf(provider)).toEqual([
      '{method="GET",route="/api/:version/orgs/:org/items/:id",status_code="200"} 3',
      '{method="GET",route="/api/:version/status",status_code="200"} 2',
      '{method="GET",route="/direct/:version/status",status_code="200"} 2',
    ]);
  });
});
