// @ts-check
// A plain Node HTTP service that embeds the Fabric operations server on a second port:
// its own traffic on one listener, /healthz, /metrics, /logspec and /version on the other.
// Run it with `node examples/embedding/main.mjs`; this module is what tests and other code import.
import { createServer } from 'node:http';
import { createLogging } from '@fabric-ops/ops-logspec';
import { createOperationsSystem } from '@fabric-ops/ops-server';

/**
 * @typedef {object} ServiceOptions
 * @property {number} [port] port of the service itself; 0 (the default) picks a free one
 * @property {string} [operationsAddress] where the operations server listens; `127.0.0.1:0` (the default) picks a free port
 * @property {string} [logSpec] initial logging spec, e.g. `orders=debug:info`
 */

/**
 * @typedef {object} RunningService
 * @property {string} url `http://127.0.0.1:<port>` of the service
 * @property {string} operationsAddress `host:port` of the operations server
 * @property {import('@fabric-ops/ops-server').OperationsSystem} operations
 * @property {(reachable: boolean) => void} setDatabaseReachable makes the `orders-db` health check fail (or pass again), as a lost database would
 * @property {() => Promise<void>} stop
 */

/**
 * @param {ServiceOptions} [options]
 * @returns {Promise<RunningService>}
 */
export async function startService(options = {}) {
  // Lines go to stderr so that stdout stays free for whoever runs the service.
  const logging = createLogging({ spec: options.logSpec ?? 'info', format: 'json', destination: process.stderr });
  const log = logging.getLogger('orders.http');

  const operations = createOperationsSystem({
    listenAddress: options.operationsAddress ?? '127.0.0.1:0',
    version: { version: '1.0.0', commitSHA: 'example' },
    logging,
    metrics: { provider: 'prometheus' },
  });

  // One custom health check: /healthz turns 503 with component "orders-db" when it throws.
  let databaseReachable = true;
  operations.registerChecker('orders-db', async () => {
    if (!databaseReachable) throw new Error('orders database unreachable');
  });

  // One custom metric, declared through the operations server's provider.
  const ordersServed = operations.metrics.newCounter({
    namespace: 'orders',
    name: 'requests_served',
    help: 'Requests the orders service answered, by outcome.',
    labelNames: ['outcome'],
    statsdFormat: '%{#fqname}.%{outcome}',
  });

  const server = createServer((req, res) => {
    const found = req.url === '/orders';
    log.debug({ url: req.url }, 'request');
    ordersServed.with('outcome', found ? 'ok' : 'not_found').add(1);
    res.writeHead(found ? 200 : 404, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(found ? { orders: [] } : { error: 'not found' }));
  });

  await operations.start();
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve(undefined));
  });
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  log.info(`orders service on 127.0.0.1:${port}, operations on ${operations.address()}`);

  return {
    url: `http://127.0.0.1:${port}`,
    operationsAddress: operations.address(),
    operations,
    setDatabaseReachable: (reachable) => {
      databaseReachable = reachable;
    },
    stop: async () => {
      await new Promise((resolve) => server.close(() => resolve(undefined)));
      await operations.stop();
    },
  };
}
