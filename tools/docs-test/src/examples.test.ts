// Runs the examples under examples/ from the workspace, against real Prometheus-format scrapes
// and a real StatsD daemon (Etsy's statsd from npm).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { send, startStatsd, type StatsdDaemon } from '@fabric-ops/test-kit';
import { startService, type RunningService } from '../../../examples/embedding/service.ts';
import { startWorker, type Worker } from '../../../examples/metrics-by-config/worker.ts';

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
  let statsd: StatsdDaemon;
  beforeAll(async () => {
    statsd = await startStatsd();
  }, 60_000);
  afterAll(async () => {
    await statsd?.cleanup();
  });

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
    statsd.clear();
    const worker = await start({
      CORE_METRICS_PROVIDER: 'statsd',
      CORE_METRICS_STATSD_NETWORK: 'udp',
      CORE_METRICS_STATSD_ADDRESS: statsd.udpAddress,
      CORE_METRICS_STATSD_WRITEINTERVAL: '200ms',
      CORE_METRICS_STATSD_PREFIX: 'worker1',
    });
    expect(worker.provider).toBe('statsd');
    worker.runJobs(4, 4);
    const received = await statsd.waitFor((r) => r.counters['worker1.worker.jobs_processed.ok'] === 3 && r.counters['worker1.worker.jobs_processed.failed'] === 1, 20_000);
    expect(received.timers['worker1.worker.job_duration_seconds']).toHaveLength(4);
    expect((await send(worker.operationsAddress, '/metrics')).status).toBe(404);
  });
});
