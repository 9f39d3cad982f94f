// A plain Node HTTP service that embeds the Fabric operations server on a second port:
// its own traffic on one listener, /healthz, /metrics, /logspec and /version on the other.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogging } from '@fabric-ops/ops-logspec';
import { createOperationsSystem, type OperationsSystem } from '@fabric-ops/ops-server';

export interface ServiceOptions {
  /** Port of the service itself; 0 picks a free one. */
  readonly port?: number;
  /** Where the operations server listens; `127.0.0.1:0` picks a free port. */
  readonly operationsAddress?: string;
  /** Initial logging spec, e.g. `orders=debug:info`. */
  readonly logSpec?: string;
}

export interface RunningService {
  /** `http://127.0.0.1:<port>` of the service. */
  readonly url: string;
  /** `host:port` of the operations server. */
  readonly operationsAddress: string;
  readonly operations: OperationsSystem;
  /** Makes the `orders-db` health check fail (or pass again), as a lost database would. */
  setDatabaseReachable(reachable: boolean): void;
  stop(): Promise<void>;
}

export async function startService(options: ServiceOptions = {}): Promise<RunningService> {
  // Lines go to stderr so that stdout stays free for whoever runs the service.
  const logging = createLogging({ spec: options.logSpec ?? 'info', format: 'json', destination: process.stderr });
  const log = logging.getLogger('orders.http');

  const operations = createOperationsSystem({
    listenAddress: options.operationsAddress ?? '127.0.0.1:0',
    version: { version: '1.0.0', commitSha: 'example' },
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

  const server: Server = createServer((req, res) => {
    const found = req.url === '/orders';
    log.debug({ url: req.url }, 'request');
    ordersServed.with('outcome', found ? 'ok' : 'not_found').add(1);
    res.writeHead(found ? 200 : 404, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(found ? { orders: [] } : { error: 'not found' }));
  });

  await operations.start();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  log.info(`orders service on 127.0.0.1:${port}, operations on ${operations.address()}`);

  return {
    url: `http://127.0.0.1:${port}`,
    operationsAddress: operations.address(),
    operations,
    setDatabaseReachable: (reachable) => {
      databaseReachable = reachable;
    },
    stop: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await operations.stop();
    },
  };
}
