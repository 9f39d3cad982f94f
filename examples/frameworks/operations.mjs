// @ts-check
// The operations handlers every framework example mounts: /logspec, /healthz,
// /healthz/<component>, /metrics and /version, built from the packages themselves (no ops-server,
// so no second listener). Each handler is a plain (req, res) function that never looks at the
// mount path.
import { createHealthEndpoints, createHealthRegistry } from '@fabric-ops/ops-health';
import { createVersionHandler } from '@fabric-ops/ops-http';
import { createLogging, logspecHandler } from '@fabric-ops/ops-logspec';
import { createMetricsProvider } from '@fabric-ops/ops-metrics';

/**
 * @typedef {import('node:http').IncomingMessage} IncomingMessage
 * @typedef {import('node:http').ServerResponse} ServerResponse
 * @typedef {(req: IncomingMessage, res: ServerResponse) => unknown} Handler
 */

/**
 * @typedef {object} Operations
 * @property {Handler} logspec GET and PUT; a parsed `req.body` (express.json(), a Buffer, a string) is used when there is one
 * @property {Handler} healthz every check, Fabric's 200/503 JSON
 * @property {Handler} healthzComponent one check, named by the last path segment
 * @property {Handler} metrics the Prometheus text format 0.0.4
 * @property {Handler} version Fabric's `{"CommitSHA":…,"Version":…}` on GET, 400 for any other method
 * @property {import('@fabric-ops/ops-logspec').Logging} logging the registry /logspec controls
 * @property {import('@fabric-ops/ops-metrics').Counter} ordersServed the service's own counter
 * @property {(reachable: boolean) => void} setDatabaseReachable makes the `orders-db` check fail or pass
 * @property {() => Promise<void>} stop stops the metrics sampler
 */

/**
 * @param {{ logSpec?: string, destination?: NodeJS.WritableStream, version?: string, commitSHA?: string }} [options]
 *   destination of the log lines: stderr by default, so that stdout stays free for the address the
 *   examples print; version and commitSHA: what /version reports (an empty one is left out), by
 *   default the service's `1.0.0` and no commit
 * @returns {Operations}
 */
export function createOperations(options = {}) {
  const logging = createLogging({ spec: options.logSpec ?? 'info', format: 'json', destination: options.destination ?? process.stderr });
  const registry = createHealthRegistry();
  let databaseReachable = true;
  registry.register('orders-db', async () => {
    if (!databaseReachable) throw new Error('orders database unreachable');
  });
  const health = createHealthEndpoints(registry);
  const metrics = createMetricsProvider({ provider: 'prometheus', logger: logging.getLogger('metrics') });
  const ordersServed = metrics.newCounter({
    namespace: 'orders',
    name: 'requests_served',
    help: 'Requests the orders service answered, by outcome.',
    labelNames: ['outcome'],
  });
  return {
    logspec: logspecHandler(logging),
    healthz: health.healthz,
    healthzComponent: health.healthzComponent,
    metrics: metrics.handler,
    version: createVersionHandler({ version: options.version ?? '1.0.0', commitSHA: options.commitSHA ?? '' }),
    logging,
    ordersServed,
    setDatabaseReachable: (reachable) => {
      databaseReachable = reachable;
    },
    stop: () => metrics.stop(),
  };
}

/**
 * Listens on `PORT` (default 3000) on loopback, prints where, and stops cleanly on SIGINT or
 * SIGTERM: what each example does when run with `node`.
 * @param {string} framework
 * @param {Operations} operations
 * @param {{ listen(port: number): Promise<number>, close(): Promise<void> }} server listen resolves with the bound port
 */
export async function serveUntilSignalled(framework, operations, server) {
  const port = await server.listen(Number(process.env['PORT'] ?? 3000));
  process.stdout.write(`${framework}: orders service on http://127.0.0.1:${port}, operations under http://127.0.0.1:${port}/ops\n`);
  const stop = () => void Promise.all([server.close(), operations.stop()]).then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/**
 * serveUntilSignalled's `server` for a node:http server (Express apps run on one too).
 * @param {import('node:http').Server} server
 */
export function nodeListener(server) {
  return {
    /** @param {number} port */
    listen: (port) =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => resolve(/** @type {import('node:net').AddressInfo} */ (server.address()).port));
      }),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve(undefined));
        server.closeIdleConnections();
      }),
  };
}
