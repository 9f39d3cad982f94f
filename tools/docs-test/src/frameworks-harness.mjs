// Serves one variant of examples/frameworks for frameworks.test.ts, in a plain Node process:
// inside vitest's workers require() resolves with the "import" condition, which hands Express 5's
// router an ES module namespace where it expects is-promise's function.
//   node frameworks-harness.mjs <express|fastify|node-http> [package name, e.g. express4]
// Reports { base } over IPC once listening; then answers { id, reachable? } messages with
// { id, orders: <level of the 'orders' logger> }. Exits when the parent disconnects.
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { Writable } from 'node:stream';

const require = createRequire(import.meta.url);
const [variant, packageName] = process.argv.slice(2);
const example = (file) => import(new URL(`../../../examples/frameworks/${file}`, import.meta.url).href);

const { createOperations } = await example('operations.mjs');
// The version and commit the reference operations server reports (frameworks.test.ts).
const ops = createOperations({ destination: new Writable({ write: (_chunk, _encoding, done) => done() }), version: '1.0.0', commitSHA: 'example' });

const listen = (server) => new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${server.address().port}/ops`)));

let base;
if (variant === 'express') {
  const express = require(packageName);
  const { mountOperations } = await example('express.mjs');
  const app = express();
  app.use(express.json());
  mountOperations(app, ops);
  base = await listen(createServer(app));
} else if (variant === 'fastify') {
  const fastify = require(packageName);
  const { operationsPlugin } = await example('fastify.mjs');
  const app = fastify();
  await app.register(operationsPlugin, { prefix: '/ops', operations: ops });
  await app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${app.server.address().port}/ops`;
} else {
  const { createOrdersServer } = await example('node-http.mjs');
  base = await listen(createOrdersServer(ops));
}

process.on('message', (message) => {
  if (typeof message.reachable === 'boolean') ops.setDatabaseReachable(message.reachable);
  process.send({ id: message.id, orders: ops.logging.levelOf('orders') });
});
process.on('disconnect', () => process.exit(0));
process.send({ base });
