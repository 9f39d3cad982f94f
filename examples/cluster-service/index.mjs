// A service that runs on every core, with one operations endpoint for all of it.
// @ts-check
//
//   node examples/cluster-service/index.mjs
//
// Environment: OPS_ADDRESS (the operations server, plain HTTP; default 127.0.0.1:9443),
// APP_PORT (the service, default 8080), WORKERS (default: the number of cores).
// STATSD_ADDRESS (host:port of a UDP StatsD daemon) switches metrics to StatsD: the primary pushes
// one aggregated interval every STATSD_WRITE_INTERVAL_MS (default 10000, Fabric's), bucket names
// prefixed with STATSD_PREFIX (default none). CLUSTER_MAX_WORKER_SAMPLES and CLUSTER_MAX_RETIRED_SERIES
// set the primary's bounds of the same names (maxWorkerSamples, maxRetiredSeries).
//
// The primary serves /metrics, /logspec, /healthz, /livez, /readyz and /version for every worker;
// each worker serves GET /work (counts example_work_total) and GET /whoami ({"pid", "spec"}).
import cluster from 'node:cluster';
import { createServer } from 'node:http';
import { availableParallelism } from 'node:os';
import { createOperationsCluster, startOperationsWorker } from '@fabric-ops/ops-server/cluster';

const opsAddress = process.env.OPS_ADDRESS || '127.0.0.1:9443';
const appPort = Number(process.env.APP_PORT || 8080);
const workerCount = Number(process.env.WORKERS || availableParallelism());

/** @returns {import('@fabric-ops/ops-metrics').MetricsOptions} */
function metricsSettings() {
  const address = process.env.STATSD_ADDRESS;
  if (!address) return { provider: 'prometheus' };
  const colon = address.lastIndexOf(':');
  return {
    provider: 'statsd',
    statsd: {
      network: 'udp',
      host: address.slice(0, colon).replace(/^\[|\]$/g, ''),
      port: Number(address.slice(colon + 1)),
      writeIntervalMs: Number(process.env.STATSD_WRITE_INTERVAL_MS || 10_000),
      prefix: process.env.STATSD_PREFIX || '',
    },
  };
}

if (cluster.isPrimary) {
  const operations = createOperationsCluster({
    listenAddress: opsAddress,
    version: { version: '1.0.0', commitSHA: 'example' },
    metrics: metricsSettings(),
    cluster: {
      minWorkers: workerCount,
      ...(process.env.CLUSTER_MAX_WORKER_SAMPLES ? { maxWorkerSamples: Number(process.env.CLUSTER_MAX_WORKER_SAMPLES) } : {}),
      ...(process.env.CLUSTER_MAX_RETIRED_SERIES ? { maxRetiredSeries: Number(process.env.CLUSTER_MAX_RETIRED_SERIES) } : {}),
    },
  });
  await operations.start();

  let stopping = false;
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    console.error(`worker ${worker.id} (pid ${worker.process.pid}) ${signal ? `killed by ${signal}` : `exited with ${code}`}; starting another`);
    cluster.fork();
  });
  for (let i = 0; i < workerCount; i++) cluster.fork();

  const stop = async () => {
    if (stopping) return;
    stopping = true;
    const workers = Object.values(cluster.workers ?? {}).flatMap((worker) => (worker === undefined ? [] : [worker]));
    const exited = workers.map((worker) => /** @type {Promise<void>} */ (new Promise((resolve) => (worker.isDead() ? resolve() : worker.once('exit', () => resolve())))));
    for (const worker of workers) worker.process.kill('SIGTERM');
    const force = setTimeout(() => {
      for (const worker of workers) worker.process.kill('SIGKILL');
    }, 5_000);
    await Promise.all(exited);
    clearTimeout(force);
    await operations.stop();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  console.log(`operations on http://${operations.address()}, service on port ${appPort}, ${workerCount} workers`);
} else {
  const operations = await startOperationsWorker();
  const work = operations.metrics.newCounter({ namespace: 'example', name: 'work_total', help: 'Requests served by GET /work.' });
  // A summary: the primary adds up _sum and _count across workers and serves each worker's quantiles with a worker label.
  const workTime = operations.metrics.newSummary({ namespace: 'example', name: 'work_seconds', help: 'Time GET /work took.', quantiles: [0.5, 0.99], maxAgeSeconds: 60 });

  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/work') {
      const started = performance.now();
      res.once('finish', () => workTime.observe((performance.now() - started) / 1000));
      work.add(1);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('done\n');
    } else if (req.method === 'GET' && req.url === '/whoami') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ pid: process.pid, spec: operations.logging.spec() }));
    } else {
      res.writeHead(404).end();
    }
  });
  server.listen(appPort);

  process.on('SIGTERM', () => {
    server.close();
    server.closeAllConnections();
    void operations.close().then(() => process.exit(0));
  });
}
