// @ts-check
// Instruments a job worker through the operations server's metrics provider. Which system
// receives the metrics (Prometheus scraping /metrics, or a StatsD daemon receiving pushes)
// is the `metrics` section of core.yaml, or its CORE_METRICS_* environment overrides.
// Run it (one job every second until Ctrl-C or SIGTERM):
//   node examples/metrics-by-config/worker.mjs
import { fileURLToPath } from 'node:url';
import { loadPeerConfig } from '@fabric-ops/ops-config';
import { createOperationsSystem } from '@fabric-ops/ops-server';

/**
 * @typedef {object} WorkerOptions
 * @property {string} [configFile] the core.yaml to read; default: this example's
 * @property {NodeJS.ProcessEnv} [env] environment for CORE_* overrides; default process.env
 * @property {string} [listenAddress] overrides operations.listenAddress (tests pass 127.0.0.1:0)
 */

/**
 * @typedef {object} Worker
 * @property {string} provider `prometheus`, `statsd` or `disabled`: what the configuration chose
 * @property {string} operationsAddress
 * @property {import('@fabric-ops/ops-server').OperationsSystem} operations
 * @property {(count: number, failEvery?: number) => void} runJobs runs `count` jobs; every `failEvery`-th one fails
 * @property {() => Promise<void>} stop
 */

/**
 * @param {WorkerOptions} [options]
 * @returns {Promise<Worker>}
 */
export async function startWorker(options = {}) {
  const loaded = loadPeerConfig({
    configFile: options.configFile ?? fileURLToPath(new URL('./core.yaml', import.meta.url)),
    ...(options.env === undefined ? {} : { env: options.env }),
  });
  const { metrics } = loaded.config;
  const operations = createOperationsSystem({
    listenAddress: options.listenAddress ?? loaded.config.operations.listenAddress,
    version: { version: '1.0.0', commitSHA: '' },
    // ops-config's parsed section is what ops-metrics takes
    metrics: metrics.provider === 'statsd' ? { provider: 'statsd', statsd: metrics.statsd } : { provider: metrics.provider },
  });

  // Declared once, against the provider interface: the same code feeds either system.
  const processed = operations.metrics.newCounter({
    namespace: 'worker',
    name: 'jobs_processed',
    help: 'Jobs finished, by outcome.',
    labelNames: ['outcome'],
    statsdFormat: '%{#fqname}.%{outcome}',
  });
  const duration = operations.metrics.newHistogram({
    namespace: 'worker',
    name: 'job_duration_seconds',
    help: 'How long one job took.',
    buckets: [0.001, 0.01, 0.1, 1],
  });
  const queueDepth = operations.metrics.newGauge({ namespace: 'worker', name: 'queue_depth', help: 'Jobs waiting.' });

  await operations.start();

  return {
    provider: operations.metrics.kind,
    operationsAddress: operations.address(),
    operations,
    runJobs(count, failEvery = 0) {
      queueDepth.set(count);
      for (let job = 1; job <= count; job++) {
        const began = process.hrtime.bigint();
        const failed = failEvery > 0 && job % failEvery === 0;
        processed.with('outcome', failed ? 'failed' : 'ok').add(1);
        duration.observe(Number(process.hrtime.bigint() - began) / 1e9);
        queueDepth.add(-1);
      }
    },
    stop: () => operations.stop(),
  };
}

if (process.argv[1] === import.meta.filename) {
  const worker = await startWorker();
  process.stdout.write(`worker: metrics provider ${worker.provider}, operations on http://${worker.operationsAddress}\n`);
  // One job a second; every fourth fails, so both outcomes show.
  let jobs = 0;
  const timer = setInterval(() => worker.runJobs(1, ++jobs % 4 === 0 ? 1 : 0), 1000);
  const stop = () => {
    clearInterval(timer);
    void worker.stop().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
