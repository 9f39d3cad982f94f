// Runs the examples under examples/ from the workspace, against real Prometheus-format scrapes
// and a real StatsD daemon (Etsy's statsd from npm): in process (to reach inside them), spawned
// with `node` as examples/README.md tells a newcomer to run them, and type-checked.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { send, useStatsd } from '@fabric-ops/test-kit';
import type { OperationsSystem } from '@fabric-ops/ops-server';
import { repoRoot } from './peer.ts';
import { importExample, runExample } from './run-example.ts';

// What the tests rely on of examples/embedding/service.mjs and examples/metrics-by-config/worker.mjs
// (plain JavaScript, whose JSDoc types examples/tsconfig.json checks).
interface RunningService {
  readonly url: string;
  readonly operationsAddress: string;
  readonly operations: OperationsSystem;
  setDatabaseReachable(reachable: boolean): void;
  stop(): Promise<void>;
}
interface Worker {
  readonly provider: string;
  readonly operationsAddress: string;
  runJobs(count: number, failEvery?: number): void;
  stop(): Promise<void>;
}
const { startService } = await importExample<{ startService(): Promise<RunningService> }>('embedding/service.mjs');
const { startWorker } = await importExample<{ startWorker(options: { env: NodeJS.ProcessEnv; listenAddress: string }): Promise<Worker> }>('metrics-by-config/worker.mjs');

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('examples/embedding', () => {
  let service: RunningService;
  beforeAll(async () => {
    service = await startService();
  });
  afterAll(async () => {
    await service?.stop();
  });

  it('serves its own traffic and the operations endpoints on separate ports', async () => {
    const own = await fetch(`${service.url}/orders`);
    expect(own.status).toBe(200);
    expect(await own.json()).toEqual({ orders: [] });
    expect(service.operationsAddress).not.toBe(new URL(service.url).host);
    const version = await send(service.operationsAddress, '/version');
    expect(version.body).toBe('{"CommitSHA":"example","Version":"1.0.0"}');
  });

  it('reports its custom checker in /healthz, passing and failing', async () => {
    const ok = await send(service.operationsAddress, '/healthz');
    expect(ok.status).toBe(200);
    service.setDatabaseReachable(false);
    try {
      const failing = await send(service.operationsAddress, '/healthz');
      expect(failing.status).toBe(503);
      expect(JSON.parse(failing.body)).toMatchObject({ failed_checks: [{ component: 'orders-db', reason: 'orders database unreachable' }] });
      const one = await send(service.operationsAddress, '/healthz/orders-db');
      expect(one.status).toBe(503);
    } finally {
      service.setDatabaseReachable(true);
    }
  });

  it('counts its requests in /metrics and follows PUT /logspec', async () => {
    await fetch(`${service.url}/orders`);
    await fetch(`${service.url}/nope`);
    const metrics = await send(service.operationsAddress, '/metrics');
    expect(metrics.body).toMatch(/^orders_requests_served\{outcome="ok"\} [1-9]\d*$/m);
    expect(metrics.body).toContain('orders_requests_served{outcome="not_found"} 1');
    const put = await send(service.operationsAddress, '/logspec', { method: 'PUT', body: '{"spec":"orders=debug:info"}' });
    expect(put.status).toBe(204);
    expect(service.operations.logging.levelOf('orders.http')).toBe('debug');
  });
});

describe('examples/metrics-by-config', () => {
  const statsdOf = useStatsd();

  const start = async (env: NodeJS.ProcessEnv): Promise<Worker> => {
    const worker = await startWorker({ env, listenAddress: '127.0.0.1:0' });
    cleanups.push(() => worker.stop());
    return worker;
  };

  it('with core.yaml as shipped (prometheus), serves the worker metrics on /metrics', async () => {
    const worker = await start({});
    expect(worker.provider).toBe('prometheus');
    worker.runJobs(4, 4);
    const page = await send(worker.operationsAddress, '/metrics');
    expect(page.status).toBe(200);
    expect(page.body).toContain('worker_jobs_processed{outcome="ok"} 3');
    expect(page.body).toContain('worker_jobs_processed{outcome="failed"} 1');
    expect(page.body).toContain('worker_job_duration_seconds_count 4');
    expect(page.body).toMatch(/^worker_queue_depth 0$/m);
  });

  it('with CORE_METRICS_PROVIDER=statsd, pushes the same metrics to a real statsd daemon and serves no /metrics', async () => {
    statsdOf().clear();
    const worker = await start({
      CORE_METRICS_PROVIDER: 'statsd',
      CORE_METRICS_STATSD_NETWORK: 'udp',
      CORE_METRICS_STATSD_ADDRESS: statsdOf().udpAddress,
      CORE_METRICS_STATSD_WRITEINTERVAL: '200ms',
      CORE_METRICS_STATSD_PREFIX: 'worker1',
    });
    expect(worker.provider).toBe('statsd');
    worker.runJobs(4, 4);
    const received = await statsdOf().waitFor((r) => r.counters['worker1.worker.jobs_processed.ok'] === 3 && r.counters['worker1.worker.jobs_processed.failed'] === 1, 20_000);
    expect(received.timers['worker1.worker.job_duration_seconds']).toHaveLength(4);
    expect((await send(worker.operationsAddress, '/metrics')).status).toBe(404);
  });
});

describe('node examples/embedding/main.mjs', () => {
  it('prints both addresses, serves its traffic and the operations endpoints, and exits 0 on SIGTERM', async () => {
    const running = await runExample('embedding/main.mjs', /^orders service on (http:\/\/\S+), operations on http:\/\/(\S+)\n/m, { PORT: '0', OPERATIONS_ADDRESS: '127.0.0.1:0' });
    let stopped = false;
    try {
      const [, service, operations] = running.match as unknown as [string, string, string];
      expect((await fetch(`${service}/orders`)).status).toBe(200);
      expect((await send(operations, '/healthz')).status).toBe(200);
      expect((await send(operations, '/metrics')).body).toContain('orders_requests_served{outcome="ok"} 1');
      expect((await send(operations, '/logspec', { method: 'PUT', body: '{"spec":"orders=debug:info"}' })).status).toBe(204);
      stopped = true;
      expect(await running.stop()).toBe(0);
    } finally {
      if (!stopped) await running.stop();
    }
  });
});

describe('node examples/metrics-by-config/worker.mjs', () => {
  const statsdOf = useStatsd();
  const READY = /^worker: metrics provider (\S+), operations on http:\/\/(\S+)\n/m;

  it('as shipped (core.yaml: prometheus), runs jobs and serves them on /metrics; exits 0 on SIGTERM', async () => {
    const running = await runExample('metrics-by-config/worker.mjs', READY, { CORE_OPERATIONS_LISTENADDRESS: '127.0.0.1:0' });
    let stopped = false;
    try {
      const [, provider, operations] = running.match as unknown as [string, string, string];
      expect(provider).toBe('prometheus');
      await expect.poll(async () => (await send(operations, '/metrics')).body, { timeout: 20_000, interval: 500 }).toMatch(/^worker_jobs_processed\{outcome="ok"\} [1-9]/m);
      stopped = true;
      expect(await running.stop()).toBe(0);
    } finally {
      if (!stopped) await running.stop();
    }
  });

  it('with CORE_METRICS_PROVIDER=statsd, pushes the same counters to a statsd daemon', async () => {
    statsdOf().clear();
    const running = await runExample('metrics-by-config/worker.mjs', READY, {
      CORE_OPERATIONS_LISTENADDRESS: '127.0.0.1:0',
      CORE_METRICS_PROVIDER: 'statsd',
      CORE_METRICS_STATSD_ADDRESS: statsdOf().udpAddress,
      CORE_METRICS_STATSD_WRITEINTERVAL: '200ms',
    });
    try {
      expect(running.match[1]).toBe('statsd');
      await statsdOf().waitFor((r) => (r.counters['worker1.worker.jobs_processed.ok'] ?? 0) >= 1, 20_000);
    } finally {
      expect(await running.stop()).toBe(0);
    }
  });
});

describe('examples/ as plain JavaScript', () => {
  it('type-checks (// @ts-check and JSDoc) against the workspace packages: tsc -p examples', async () => {
    const tsc = join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = await promisify(execFile)(process.execPath, [tsc, '-p', 'examples'], { cwd: repoRoot, timeout: 200_000 }).then(
      () => '',
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );
    expect(result).toBe('');
  });
});
