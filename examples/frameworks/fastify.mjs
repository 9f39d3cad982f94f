// @ts-check
// The operations handlers under /ops in a Fastify 4 or 5 app. Run: node examples/frameworks/fastify.mjs
import Fastify from 'fastify';
import { createOperations, serveUntilSignalled } from './operations.mjs';

/**
 * A Fastify plugin: `app.register(operationsPlugin, { prefix: '/ops', operations })`.
 * @param {import('fastify').FastifyInstance} scope
 * @param {{ operations: import('./operations.mjs').Operations }} options
 */
export async function operationsPlugin(scope, { operations: ops }) {
  // Fastify answers 415 itself for a content type it has no parser for (curl -d sends
  // application/x-www-form-urlencoded). Inside this plugin's scope only, every body is a Buffer,
  // which /logspec decodes exactly as Fabric decodes the raw body.
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  /** @param {import('./operations.mjs').Handler} handler @returns {import('fastify').RouteHandlerMethod} */
  const serve = (handler) => async (request, reply) => {
    /** @type {typeof request.raw & { body?: unknown }} */ (request.raw).body = request.body;
    reply.hijack(); // the handler writes the raw response itself
    await handler(request.raw, reply.raw);
  };
  scope.all('/logspec', serve(ops.logspec));
  scope.all('/healthz', serve(ops.healthz));
  scope.all('/healthz/:component', serve(ops.healthzComponent));
  scope.all('/metrics', serve(ops.metrics));
  scope.all('/version', serve(ops.version));
}

if (process.argv[1] === import.meta.filename) {
  const ops = createOperations();
  const app = Fastify();
  await app.register(operationsPlugin, { prefix: '/ops', operations: ops });
  app.get('/orders', async () => {
    ops.ordersServed.with('outcome', 'ok').add(1);
    return { orders: [] };
  });
  await serveUntilSignalled('fastify', ops, {
    listen: async (port) => {
      await app.listen({ port, host: '127.0.0.1' });
      return /** @type {import('node:net').AddressInfo} */ (app.server.address()).port;
    },
    close: () => app.close(),
  });
}
