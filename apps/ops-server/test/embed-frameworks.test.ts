// The operations handlers mounted in real Express 5 and Fastify 5 applications: a request that
// fails in a handler reaches the framework's own error handling with the HTTP status the error
// carries (`status`, `statusCode`), never as a 500 with a stack trace.
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { createRequire, Module } from 'node:module';
import type { ErrorRequestHandler, Express } from 'express';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogging, logspecHandler } from '@fabric-ops/ops-logspec';

/**
 * Express 5 as an application loads it. The test runner's workers run Node with the `import`
 * condition, so require('is-promise') in Express's router would get that package's ES module
 * namespace where it expects its function: the CommonJS file is put in its place first.
 */
function loadExpress(): typeof import('express') {
  const fromTest = createRequire(import.meta.url);
  const fromRouter = createRequire(createRequire(fromTest.resolve('express')).resolve('router'));
  const resolved = fromRouter.resolve('is-promise');
  if (resolved.endsWith('.mjs')) {
    const commonJs = new Module(resolved);
    commonJs.exports = fromRouter(resolved.replace(/\.mjs$/, '.js')) as unknown;
    commonJs.loaded = true;
    fromTest.cache[resolved] = commonJs;
  }
  return fromTest('express') as typeof import('express');
}
const express = loadExpress();

const quiet = () => new Writable({ write: (_chunk, _encoding, done) => done() });
const LIMIT = 64;
const OVERSIZED = JSON.stringify({ spec: `info:${'a'.repeat(200)}` });

let closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers) await close();
  closers = [];
});

function handlerUnderTest() {
  const logging = createLogging({ spec: 'info', format: 'json', destination: quiet() });
  return { logging, handler: logspecHandler(logging, { bodyLimit: LIMIT }) };
}

async function listenExpress(app: Express): Promise<string> {
  const server: Server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function listenFastify(app: FastifyInstance): Promise<string> {
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  closers.push(() => app.close());
  return base;
}

async function put(base: string, body: string, contentType = 'application/json') {
  const res = await fetch(`${base}/logspec`, { method: 'PUT', body, headers: { 'Content-Type': contentType }, signal: AbortSignal.timeout(10_000) });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

// What an Express application adds to answer errors as JSON: the status the error carries
// (ours and body-parser's alike), its message only for a client error.
const jsonErrors: ErrorRequestHandler = (error: { status?: unknown; message?: unknown }, _req, res, _next) => {
  const status = typeof error.status === 'number' && error.status >= 400 && error.status < 600 ? error.status : 500;
  res.status(status).json({ error: status < 500 ? String(error.message) : 'internal error' });
};

describe('Express 5', () => {
  it("answers a body over the handler's limit 413 through Express's own error handler (not 500)", async () => {
    const { handler, logging } = handlerUnderTest();
    const app = express();
    app.put('/logspec', (req, res, next) => Promise.resolve(handler(req, res)).catch(next));
    const reply = await put(await listenExpress(app), OVERSIZED);
    expect(reply.status).toBe(413);
    expect(logging.spec()).toBe('info');
  });

  it('answers both an oversized and a malformed body as JSON with their status behind an error handler, no stack', async () => {
    const { handler } = handlerUnderTest();
    const app = express();
    app.put('/logspec', (req, res, next) => Promise.resolve(handler(req, res)).catch(next));
    app.put('/parsed/logspec', express.json(), (req, res, next) => Promise.resolve(handler(req, res)).catch(next));
    app.use(jsonErrors);
    const base = await listenExpress(app);
    const tooLarge = await put(base, OVERSIZED);
    expect(tooLarge).toEqual({ status: 413, type: 'application/json; charset=utf-8', text: `{"error":"request body is larger than ${LIMIT} bytes"}` });
    const malformed = await fetch(`${base}/parsed/logspec`, { method: 'PUT', body: '{"spec":', headers: { 'Content-Type': 'application/json' } });
    expect(malformed.status).toBe(400);
    expect(malformed.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await malformed.text()).not.toMatch(/ at |<html|<pre/i);
    // What the handler answers itself stays Fabric's.
    expect(await put(base, '{"spec":"loud"}')).toMatchObject({ status: 400, text: `{"error":"invalid logging specification 'loud': bad segment 'loud'"}\n` });
  });
});

describe('Fastify 5', () => {
  it("answers a body over the handler's limit 413 through Fastify's error handler, with the error's code", async () => {
    const { handler, logging } = handlerUnderTest();
    const app = Fastify();
    await app.register(async (scope) => {
      // Leave the body unread so the handler reads (and bounds) the request stream itself.
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', (_req, _payload, done) => done(null, undefined));
      scope.put('/logspec', async (request, reply) => {
        await handler(request.raw, reply.raw);
        return reply;
      });
    });
    const reply = await put(await listenFastify(app), OVERSIZED);
    expect(reply.status).toBe(413);
    expect(JSON.parse(reply.text)).toMatchObject({ statusCode: 413, code: 'BODY_TOO_LARGE', message: `request body is larger than ${LIMIT} bytes` });
    expect(logging.spec()).toBe('info');
  });
});
