// Instruments a job worker through the operations server's metrics provider. Which system
// receives the metrics (Prometheus scraping /metrics, or a StatsD daemon receiving pushes)
// is the `metrics` section of core.yaml, or its CORE_METRICS_* environment overrides.
import { fileURLToPath } from 'node:url';
import { loadPeerConfig } from '@fabric-ops/ops-config';
import { createOperationsSystem, type OperationsSystem } from '@fabric-ops/ops-server';

export interface WorkerOptions {
  /** The core.yaml to read; default: this example's. */
  readonly configFile?: string;
  /** Environment for CORE_* overrides; default process.env. */
  readonly env?: NodeJS.ProcessEnv;
  /** Overrides operations.listenAddress (tests pass 127.0.0.1:0). */
  readonly listenAddress?: string;
}

export interface Worker {
  /** `prometheus`, `statsd` or `disabled`: what the configuration chose. */
  readonly provider: string;
  readonly operationsAddress: string;
  readonly operations: OperationsSystem;
  /** Runs `count` jobs; every `failEvery`-th one fails. */
  runJobs(count: number, failEvery?: number): void;
  stop(): Promise<void>;
}

export async function startWorker(options: WorkerOptions = {}): Promise<Worker> {
  const loaded = loadPeerConfig({
    configFile: options.configFile ?? fileURLToPath(new URL('./core.yaml', import.meta.url)),
    ...(options.env === undefined ? {} : { env: options.env }),
  });
  const { metrics } = loaded.config;
  const operations = createOperationsSystem({
    listenAddress: options.listenAddress ?? loaded.config.operations.listenAddress,
    version: { version: '1.0.0', commitSha: '' },
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
