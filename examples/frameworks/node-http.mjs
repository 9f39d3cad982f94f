// @ts-check
// The operations handlers under /ops in a plain node:http service. Run: node examples/frameworks/node-http.mjs
import { createServer } from 'node:http';
import { createOperations, nodeListener, serveUntilSignalled } from './operations.mjs';

/**
 * @param {import('./operations.mjs').Operations} ops
 * @returns {import('node:http').Server}
 */
export function createOrdersServer(ops) {
  /** @type {Record<string, import('./operations.mjs').Handler>} */
  const exact = { '/ops/logspec': ops.logspec, '/ops/healthz': ops.healthz, '/ops/metrics': ops.metrics, '/ops/version': ops.version };
  return createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const handler = exact[path] ?? (path.startsWith('/ops/healthz/') ? ops.healthzComponent : undefined);
    if (handler !== undefined) {
      // Rejects only when a body cannot be read (too large, aborted).
      Promise.resolve(handler(req, res)).catch(() => res.destroy());
      return;
    }
    const found = path === '/orders';
    ops.ordersServed.with('outcome', found ? 'ok' : 'not_found').add(1);
    res.writeHead(found ? 200 : 404, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(found ? { orders: [] } : { error: 'not found' }));
  });
}

if (process.argv[1] === import.meta.filename) {
  const ops = createOperations();
  await serveUntilSignalled('node:http', ops, nodeListener(createOrdersServer(ops)));
}
