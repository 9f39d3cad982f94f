// ops-http's createVersionHandler mounted in the real frameworks, answering as Fabric's /version.
import type { AddressInfo } from 'node:net';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { createVersionHandler } from '@fabric-ops/ops-http';

// Express ships no type declarations (and @types/express is not installed): the little used here, typed.
interface ExpressApp {
  all(path: string, handler: (req: IncomingMessage, res: ServerResponse) => void): void;
  listen(port: number, host: string, ready: () => void): Server;
}
const express = createRequire(import.meta.url)('express') as () => ExpressApp;

const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

async function expectFabricAnswers(base: string): Promise<void> {
  const ok = await fetch(`${base}/version`);
  expect(ok.status).toBe(200);
  expect(ok.headers.get('content-type')).toBe('application/json');
  expect(await ok.text()).toBe('{"CommitSHA":"4072367","Version":"2.5.16"}');
  const put = await fetch(`${base}/version`, { method: 'PUT' });
  expect(put.status).toBe(400);
  expect(await put.text()).toBe('{"Error":"invalid request method: PUT"}');
}

describe('createVersionHandler in real frameworks', () => {
  it("Express 5: app.all('/version', handler)", async () => {
    const app = express();
    app.all('/version', createVersionHandler({ version: '2.5.16', commitSHA: '4072367' }));
    const server: Server = await new Promise((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    closers.push(() => new Promise((resolve) => server.close(resolve)));
    await expectFabricAnswers(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  });

  it("Fastify 5: fastify.all('/version', …) handing the raw request and response over", async () => {
    const app = Fastify();
    const version = createVersionHandler({ version: '2.5.16', commitSHA: '4072367' });
    app.all('/version', (request, reply) => {
      reply.hijack();
      version(request.raw, reply.raw);
    });
    closers.push(() => app.close());
    await app.listen({ port: 0, host: '127.0.0.1' });
    await expectFabricAnswers(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}`);
  });
});
