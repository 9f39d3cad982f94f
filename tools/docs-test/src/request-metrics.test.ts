// ops-metrics' request metrics in the real frameworks: Express 5 and Fastify 5 name the matched
// route template, so `route` carries `/orders/:id` however many ids are asked for, and a path no
// route matches is `unmatched`.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { createMetricsProvider, createRequestMetrics } from '@fabric-ops/ops-metrics';

// Express ships no type declarations (and @types/express is not installed): the little used here, typed.
interface ExpressApp {
  use(middleware: unknown): void;
  get(path: string, handler: (req: unknown, res: { json(body: unknown): void }) => void): void;
  listen(port: number, host: string, ready: () => void): Server;
}
const express = createRequire(import.meta.url)('express') as () => ExpressApp;

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
});
