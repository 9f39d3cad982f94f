// examples/cluster-service (Prometheus) against what a worker's own code, a frozen worker, a kill at
// the wrong moment and a crash loop can do to the primary. The
// workers load test/fixtures/hostile-worker.mjs, which sends whatever the test writes on SIGUSR2.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { call, hostileWorkerOptions, sleep, useClusterService, workerPids, WORKERS } from './cluster-service.ts';

const dir = mkdtempSync(join(tmpdir(), 'cluster-hostile-'));
const messagesFile = join(dir, 'messages.json');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cluster = useClusterService(() => ({ FABRIC_LOGGING_SPEC: 'info', NODE_OPTIONS: hostileWorkerOptions(), HOSTILE_MESSAGES: messagesFile }));

const TAG = 'fabric-ops/cluster/v1';

function sample(metrics: string, name: string): number {
  const line = new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics);
  return line === null ? 0 : Number(line[1]);
}

async function scrape(): Promise<string> {
  const answer = await call(cluster.opsPort, '/metrics', { timeoutMs: 15_000 });
  expect(answer.status).toBe(200);
  return answer.body;
}

/** Worker pids as the application port sees them (the primary spreads connections over them). */
async function servingPids(): Promise<Set<number>> {
  const pids = new Set<number>();
  for (let i = 0; i < 16; i++) pids.add((JSON.parse((await call(cluster.appPort, '/whoami')).body) as { pid: number }).pid);
  return pids;
}

async function doWork(requests: number): Promise<void> {
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let i = 0; i < requests / 4; i++) expect((await call(cluster.appPort, '/work')).status).toBe(200);
    }),
  );
}

describe('examples/cluster-service: the primary against hostile workers and bad timing', () => {
  it('survives every message a worker can send that does not fit the protocol, and counts each one dropped', async () => {
    const hostile = [
      { tag: TAG, type: 'statsd-final', statsd: null },
      { tag: TAG, type: 'statsd-final', statsd: {} },
      { tag: TAG, type: 'statsd-final', statsd: { counters: 5 } },
      { tag: TAG, type: 'statsd-final', statsd: { counters: [], gauges: [], timings: [['t', 5]] } },
      { tag: TAG, type: 'statsd-final', statsd: { counters: [['x', -50]], gauges: [], timings: [] } },
      { tag: TAG, type: 'statsd-final' },
      { tag: TAG, type: 'reply', id: 1, ok: true, statsd: null },
      { tag: TAG, type: 'reply', id: 'x', ok: true },
      { tag: TAG, type: 'reply', id: 2, ok: true, health: { healthy: 'yes', failed: 5 } },
      { tag: TAG, type: 'reply', id: 3, ok: true, metrics: 42 },
      { tag: TAG, type: 'reply', id: 4, ok: 'maybe' },
      { tag: TAG, type: 'ready', spec: 5 },
      { tag: TAG, type: 'ready' },
      { tag: TAG, type: 'nonsense' },
      { tag: TAG },
    ];
    writeFileSync(messagesFile, JSON.stringify(hostile));
    const before = await scrape();
    await doWork(40);
    const [pid] = [...(await servingPids())];
    process.kill(pid!, 'SIGUSR2');
    const after = await cluster.waitFor(
      async () => {
        const body = await scrape();
        return sample(body, 'fabric_ops_cluster_messages_dropped_total') >= hostile.length ? body : undefined;
      },
      15_000,
      'every hostile message counted as dropped',
    );
    expect(sample(after, 'fabric_ops_cluster_messages_dropped_total') - sample(before, 'fabric_ops_cluster_messages_dropped_total')).toBe(hostile.length);
    // The primary still serves, the worker that sent them is still joined, and its work is counted.
    expect(sample(after, 'example_work_total') - sample(before, 'example_work_total')).toBe(40);
    expect(sample(after, 'fabric_ops_cluster_workers')).toBe(WORKERS);
    expect((await call(cluster.opsPort, '/healthz')).status).toBe(200);
    expect(cluster.process.exitCode).toBeNull();
    // One warning for the burst, not one per message.
    expect(cluster.output().match(/dropped a worker message that does not fit the cluster protocol/g)?.length ?? 0).toBe(1);
  }, 60_000);

  it('never lets the work counter go down when a worker is killed while a scrape waits for another', async () => {
    await doWork(100);
    const [frozen, victim] = [...(await servingPids())];
    expect(victim).toBeDefined();
    const settled = sample(await scrape(), 'example_work_total');
    process.kill(frozen!, 'SIGSTOP');
    let during: number;
    try {
      // The scrape waits (up to the worker timeout) for the frozen worker; the other dies meanwhile.
      const waiting = scrape();
      await sleep(500);
      process.kill(victim!, 'SIGKILL');
      during = sample(await waiting, 'example_work_total');
    } finally {
      process.kill(frozen!, 'SIGCONT');
    }
    expect(during).toBe(settled);
    const readings = [during];
    for (let i = 0; i < 5; i++) readings.push(sample(await scrape(), 'example_work_total'));
    for (let i = 1; i < readings.length; i++) expect(readings[i]).toBeGreaterThanOrEqual(readings[i - 1]!);
    expect(readings.at(-1)).toBe(settled);
    await cluster.waitFor(async () => ((await call(cluster.opsPort, '/readyz')).status === 200 ? true : undefined), 20_000, 'the replacement joined');
  }, 60_000);

  it('waits for a frozen worker once, not once per PUT, and refuses PUTs beyond its queue with 503', async () => {
    await cluster.waitFor(async () => ((await call(cluster.opsPort, '/healthz')).status === 200 ? true : undefined), 20_000, 'healthy');
    const [frozen] = [...(await servingPids())];
    process.kill(frozen!, 'SIGSTOP');
    let statuses: number[];
    let elapsed: number;
    try {
      const started = Date.now();
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) => call(cluster.opsPort, '/logspec', { method: 'PUT', body: JSON.stringify({ spec: `round${i}=debug:info` }), timeoutMs: 60_000 })),
      );
      elapsed = Date.now() - started;
      statuses = answers.map((answer) => answer.status);
      for (const answer of answers.filter((a) => a.status === 503)) expect(JSON.parse(answer.body)).toHaveProperty('error');
    } finally {
      process.kill(frozen!, 'SIGCONT');
    }
    // One worker timeout (2 s) plus slack, not 20 of them (40 s).
    expect(elapsed).toBeLessThan(8_000);
    expect(statuses.filter((status) => status !== 204 && status !== 503)).toEqual([]);
    expect(statuses.filter((status) => status === 204).length).toBeGreaterThan(0);
    expect(statuses.filter((status) => status === 503).length).toBeGreaterThan(0);
    // Once it answers again, the frozen worker ends on the active spec like the others.
    const active = (JSON.parse((await call(cluster.opsPort, '/logspec')).body) as { spec: string }).spec;
    await cluster.waitFor(
      async () => {
        const specs = new Map<number, string>();
        for (let i = 0; i < 16; i++) {
          const { pid, spec } = JSON.parse((await call(cluster.appPort, '/whoami')).body) as { pid: number; spec: string };
          specs.set(pid, spec);
        }
        return specs.size === WORKERS && [...specs.values()].every((spec) => spec === active) ? true : undefined;
      },
      15_000,
      `every worker on ${active}`,
    );
    // A later change answers without waiting for anyone.
    const started = Date.now();
    expect((await call(cluster.opsPort, '/logspec', { method: 'PUT', body: '{"spec":"info"}' })).status).toBe(204);
    expect(Date.now() - started).toBeLessThan(1_900);
  }, 90_000);

  it('recovers /healthz and /readyz after a crash loop, with a bounded number of departed entries', async () => {
    const primary = cluster.process.pid!;
    let largest = 0;
    const loopUntil = Date.now() + 6_000;
    while (Date.now() < loopUntil) {
      // Every worker, joined or still starting.
      for (const pid of workerPids(primary)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
      const health = await call(cluster.opsPort, '/healthz');
      const entries = (JSON.parse(health.body) as { failed_checks?: unknown[] }).failed_checks?.length ?? 0;
      largest = Math.max(largest, entries);
      await sleep(100);
    }
    // At most 16 departed entries, plus one per live worker and the cluster check.
    expect(largest).toBeGreaterThan(0);
    expect(largest).toBeLessThanOrEqual(16 + WORKERS + 1);
    // Recovery comes from the replacements joining, well before any time bound (60 s).
    await cluster.waitFor(
      async () => ((await call(cluster.opsPort, '/healthz')).status === 200 && (await call(cluster.opsPort, '/readyz')).status === 200 ? true : undefined),
      25_000,
      () => `/healthz and /readyz 200 after the crash loop (last /healthz: ${cluster.output().slice(-300)})`,
    );
    const body = (await call(cluster.opsPort, '/healthz')).body;
    expect(body.length).toBeLessThan(1_000);
  }, 90_000);
});
