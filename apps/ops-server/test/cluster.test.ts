// The multi-process operations endpoint, with real processes: examples/cluster-service started
// with `node` (from the built dist/), workers under load, killed, frozen and respawned.
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { call, sleep, useClusterService, WORKERS } from './cluster-service.ts';

const cluster = useClusterService(() => ({ FABRIC_LOGGING_SPEC: 'info' }));

function workTotal(metrics: string): number {
  const line = /^example_work_total (\S+)$/m.exec(metrics);
  return line === null ? 0 : Number(line[1]);
}

/** Every worker pid with the spec it runs, asked on fresh connections (the primary spreads them). */
async function workerSpecs(): Promise<Map<number, string>> {
  const seen = new Map<number, string>();
  for (let i = 0; i < 24; i++) {
    const answer = await call(cluster.appPort, '/whoami');
    const { pid, spec } = JSON.parse(answer.body) as { pid: number; spec: string };
    seen.set(pid, spec);
  }
  return seen;
}

describe('examples/cluster-service: one operations endpoint for every worker', () => {
  it('counts the work of every worker in one scrape', async () => {
    const before = workTotal((await call(cluster.opsPort, '/metrics')).body);
    const requests = 200;
    const pids = new Set<string>();
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let i = 0; i < requests / 8; i++) expect((await call(cluster.appPort, '/work')).status).toBe(200);
      }),
    );
    for (const pid of (await workerSpecs()).keys()) pids.add(String(pid));
    expect(pids.size).toBe(WORKERS);
    const scrape = await call(cluster.opsPort, '/metrics');
    expect(scrape.status).toBe(200);
    expect(workTotal(scrape.body) - before).toBe(requests);
    expect(scrape.body).toMatch(/^fabric_ops_cluster_workers 2$/m);
    // Fabric's own families are still there, once.
    expect(scrape.body.match(/^# TYPE fabric_version gauge$/gm)).toHaveLength(1);
  }, 60_000);

  it('applies a PUT /logspec to every worker before answering 204, and GET shows it', async () => {
    const put = await call(cluster.opsPort, '/logspec', { method: 'PUT', body: '{"spec":"example=debug:info"}' });
    expect(put.status).toBe(204);
    for (const spec of (await workerSpecs()).values()) expect(spec).toBe('example=debug:info');
    expect(JSON.parse((await call(cluster.opsPort, '/logspec')).body)).toEqual({ spec: 'example=debug:info' });
    const refused = await call(cluster.opsPort, '/logspec', { method: 'PUT', body: '{"spec":"example=nonsense"}' });
    expect(refused.status).toBe(400);
    for (const spec of (await workerSpecs()).values()) expect(spec).toBe('example=debug:info');
  }, 60_000);

  it('ends every worker on the last acknowledged spec after concurrent PUTs', async () => {
    const acknowledged: string[] = [];
    await Promise.all(
      Array.from({ length: 4 }, async (_, client) => {
        for (let i = 0; i < 5; i++) {
          const spec = `client${client}=debug:round${i}=warn:info`;
          const answer = await call(cluster.opsPort, '/logspec', { method: 'PUT', body: JSON.stringify({ spec }) });
          expect(answer.status).toBe(204);
          acknowledged.push(JSON.parse((await call(cluster.opsPort, '/logspec')).body).spec as string);
        }
      }),
    );
    const active = JSON.parse((await call(cluster.opsPort, '/logspec')).body).spec as string;
    for (const spec of (await workerSpecs()).values()) expect(spec).toBe(active);
  }, 60_000);

  it('keeps the sum when a worker is killed mid-load, names it in /healthz, and starts its replacement on the active spec', async () => {
    const victim = [...(await workerSpecs()).keys()][0]!;
    let stopLoad = false;
    const load = (async () => {
      while (!stopLoad) await call(cluster.appPort, '/work').catch(() => undefined);
    })();
    await sleep(300);
    const before = workTotal((await call(cluster.opsPort, '/metrics')).body);
    process.kill(victim, 'SIGKILL');
    let sawDeadWorker = false;
    let last = before;
    const deadline = Date.now() + 15_000;
    // Until the replacement has joined: the sum never goes down, and /healthz names the dead worker.
    for (;;) {
      const health = await call(cluster.opsPort, '/healthz');
      if (health.status === 503 && /"component":"worker-\d+","reason":"worker \d+ killed by SIGKILL"/.test(health.body)) sawDeadWorker = true;
      const total = workTotal((await call(cluster.opsPort, '/metrics')).body);
      expect(total).toBeGreaterThanOrEqual(last);
      last = total;
      const pids = [...(await workerSpecs()).keys()];
      if (pids.length === WORKERS && !pids.includes(victim) && health.status === 200) break;
      if (Date.now() > deadline) throw new Error(`no replacement joined; output:\n${cluster.output()}`);
      await sleep(20);
    }
    stopLoad = true;
    await load;
    expect(sawDeadWorker).toBe(true);
    const active = JSON.parse((await call(cluster.opsPort, '/logspec')).body).spec as string;
    for (const spec of (await workerSpecs()).values()) expect(spec).toBe(active);
    expect(workTotal((await call(cluster.opsPort, '/metrics')).body)).toBeGreaterThanOrEqual(last);
  }, 60_000);

  it('answers scrapes and /healthz within their timeouts while a worker is frozen, naming it', async () => {
    const frozen = [...(await workerSpecs()).keys()][0]!;
    const before = workTotal((await call(cluster.opsPort, '/metrics')).body);
    process.kill(frozen, 'SIGSTOP');
    try {
      const started = Date.now();
      const scrape = await call(cluster.opsPort, '/metrics', { timeoutMs: 8_000 });
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(scrape.status).toBe(200);
      // The frozen worker's counts are its last reported ones, not dropped.
      expect(workTotal(scrape.body)).toBeGreaterThanOrEqual(before);
      expect(Number(/^fabric_ops_cluster_worker_timeouts_total (\S+)$/m.exec(scrape.body)?.[1])).toBeGreaterThan(0);
      const health = await call(cluster.opsPort, '/healthz', { timeoutMs: 8_000 });
      expect(health.status).toBe(503);
      expect(health.body).toMatch(/worker \d+ did not answer within 2000 ms/);
    } finally {
      process.kill(frozen, 'SIGCONT');
    }
    await cluster.waitFor(async () => ((await call(cluster.opsPort, '/healthz')).status === 200 ? true : undefined), 15_000, 'healthy again');
  }, 60_000);

  it('stops every process on SIGTERM and exits 0', async () => {
    cluster.process.kill('SIGTERM');
    const [code] = (await once(cluster.process, 'exit')) as [number | null];
    expect(code).toBe(0);
    await expect(call(cluster.opsPort, '/version', { timeoutMs: 1_000 })).rejects.toThrow();
    await expect(call(cluster.appPort, '/work', { timeoutMs: 1_000 })).rejects.toThrow();
  }, 30_000);
});
