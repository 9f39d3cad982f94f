// An Express 5 or Fastify 5 service for footprint-embedder.bench.mjs, run as its own process:
//   node embedder-target.mjs express|fastify with-ops|without-ops
// Its own route is GET /orders (a small JSON answer, the same in both modes); with-ops also mounts
// the operations handlers (metrics, logspec, health, version) under /ops exactly as the framework examples
// do (examples/frameworks: operations.mjs, express.mjs, fastify.mjs). Express and Fastify resolve
// from examples/frameworks, whose dependencies they are. Prints "listening on 127.0.0.1:<port>".
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const [framework, mode] = process.argv.slice(2);
if (!['express', 'fastify'].includes(framework) || !['with-ops', 'without-ops'].includes(mode)) {
  throw new Error(`usage: embedder-target.mjs express|fastify with-ops|without-ops (got '${framework}' '${mode}')`);
}
const examples = new URL('../../examples/frameworks/', import.meta.url);
const fromExamples = createRequire(new URL('package.json', examples));
const load = async (name) => (await import(pathToFileURL(fromExamples.resolve(name)).href)).default;
const withOps = mode === 'with-ops';
const orders = JSON.stringify({ orders: [] });

let port;
if (framework === 'express') {
  const express = await load('express');
  const app = express();
  app.use(express.json());
  if (withOps) {
    const { createOperations } = await import(new URL('operations.mjs', examples).href);
    const { mountOperations } = await import(new URL('express.mjs', examples).href);
    mountOperations(app, createOperations({ destination: process.stderr }));
  }
  app.get('/orders', (_req, res) => void res.type('application/json').send(orders));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve, reject) => server.once('listening', resolve).once('error', reject));
  server.keepAliveTimeout = 10_000;
  port = server.address().port;
} else {
  const Fastify = await load('fastify');
  const app = Fastify();
  if (withOps) {
    const { createOperations } = await import(new URL('operations.mjs', examples).href);
    const { operationsPlugin } = await import(new URL('fastify.mjs', examples).href);
    await app.register(operationsPlugin, { prefix: '/ops', operations: createOperations({ destination: process.stderr }) });
  }
  app.get('/orders', async (_request, reply) => reply.type('application/json').send(orders));
  await app.listen({ port: 0, host: '127.0.0.1' });
  app.server.keepAliveTimeout = 10_000;
  port = app.server.address().port;
}
process.stdout.write(`listening on 127.0.0.1:${port}\n`);
process.on('SIGTERM', () => process.exit(0));
