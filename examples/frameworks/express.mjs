// @ts-check
// The operations handlers under /ops in an Express 4 or 5 app, behind express.json().
// Run: node examples/frameworks/express.mjs
import express from 'express';
import { createOperations, nodeListener, serveUntilSignalled } from './operations.mjs';

/**
 * Mounts /logspec, /healthz, /healthz/<component>, /metrics and /version under `path`. Call it after the
 * app's own body parsers: /logspec reads what they parsed.
 * @param {import('express').Express} app
 * @param {import('./operations.mjs').Operations} ops
 * @param {string} [path]
 */
export function mountOperations(app, ops, path = '/ops') {
  /** @param {import('./operations.mjs').Handler} handler @returns {import('express').RequestHandler} */
  const serve = (handler) => (req, res, next) => void Promise.resolve(handler(req, res)).catch(next);
  app.all(`${path}/logspec`, serve(ops.logspec));
  app.all(`${path}/healthz`, serve(ops.healthz));
  app.all(`${path}/healthz/:component`, serve(ops.healthzComponent));
  app.all(`${path}/metrics`, serve(ops.metrics));
  app.all(`${path}/version`, serve(ops.version));
  // express.json() answers a malformed or oversized body itself, with an HTML page; under `path`
  // answer in /logspec's JSON shape instead. (Its default limit is 100 kB; Fabric's is 1 MiB.)
  /** @type {import('express').ErrorRequestHandler} */
  const bodyErrors = (error, _req, res, next) => {
    const status = typeof error === 'object' && error !== null && 'status' in error ? Number(error.status) : 500;
    if (res.headersSent || !(status >= 400 && status < 500)) return next(error);
    res.writeHead(status, { 'Content-Type': 'application/json' }).end(`${JSON.stringify({ error: error instanceof Error ? error.message : String(error) })}\n`);
  };
  app.use(path, bodyErrors);
}

if (process.argv[1] === import.meta.filename) {
  const ops = createOperations();
  const app = express();
  app.use(express.json()); // the service's own body parser
  mountOperations(app, ops);
  app.get('/orders', (_req, res) => {
    ops.ordersServed.with('outcome', 'ok').add(1);
    res.json({ orders: [] });
  });
  // node:http only when run on its own: an ES module import of it builds Node's facade of the
  // module, whose lazy WebSocket export loads undici (+70-90 internal modules, several MiB on
  // Node 22-26), a cost an app that only imports mountOperations should not pay.
  const { createServer } = await import('node:http');
  await serveUntilSignalled('express', ops, nodeListener(createServer(app)));
}
