// examples/cluster-service pushing StatsD while worker 1 answers every StatsD request with a
// malformed interval (test/fixtures/hostile-worker.mjs) and sends bad `statsd-final` messages
// the primary stays up, and only worker 1's intervals are lost;
// the other worker's counts are pushed, and the drops are counted.
import { createSocket, type Socket } from 'node:dgram';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, hostileWorkerOptions, useClusterService } from './cluster-service.ts';

const INTERVAL_MS = 500;
const PREFIX = 'hostile';
const TAG = 'fabric-ops/cluster/v1';

const dir = mkdtempSync(join(tmpdir(), 'cluster-statsd-hostile-'));
const messagesFile = join(dir, 'messages.json');

let daemon: Socket;
const lines: string[] = [];

beforeAll(async () => {
  daemon = createSocket('udp4');
  daemon.on('message', (message) => lines.push(...message.toString().split('\n').filter(Boolean)));
  await new Promise<void>((ready) => daemon.bind(0, '127.0.0.1', ready));
});

afterAll(() => {
  daemon.close();
  rmSync(dir, { recursive: true, force: true });
});

const cluster = useClusterService(() => ({
  STATSD_ADDRESS: `127.0.0.1:${daemon.address().port}`,
  STATSD_WRITE_INTERVAL_MS: String(INTERVAL_MS),
  STATSD_PREFIX: PREFIX,
  NODE_OPTIONS: hostileWorkerOptions(),
  HOSTILE_WORKER: '1',
  HOSTILE_STATSD: JSON.stringify({ counters: 5 }),
  HOSTILE_MESSAGES: messagesFile,
}));

/** The sum of every delta pushed for `bucket` (a counter). */
function counted(bucket: string): number {
  let total = 0;
  for (const line of lines) {
    if (line.startsWith(`${PREFIX}.${bucket}:`) && line.endsWith('|c')) total += Number(line.slice(PREFIX.length + bucket.length + 2, -2));
  }
  return total;
}

describe('examples/cluster-service with StatsD and a worker sending malformed intervals', () => {
  it('pushes the healthy worker’s counts, drops and counts the bad ones, and survives bad closing messages', async () => {
    // The primary's round robin splits the work between the two workers.
    const requests = 100;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let i = 0; i < requests / 4; i++) expect((await call(cluster.appPort, '/work')).status).toBe(200);
      }),
    );
    await cluster.waitFor(
      () => (counted('example.work_total') > 0 && counted('fabric_ops.cluster.messages_dropped_total') > 0 ? true : undefined),
      15_000,
      () => `work and drops pushed (lines: ${lines.slice(-20).join(' ')})`,
    );
    // Worker 1's share is lost (its intervals are malformed), worker 2's is pushed in full.
    expect(counted('example.work_total')).toBeLessThan(requests);

    // Closing messages of every bad shape, from every worker: the primary stays up and pushes on.
    writeFileSync(
      messagesFile,
      JSON.stringify([
        { tag: TAG, type: 'statsd-final', statsd: null },
        { tag: TAG, type: 'statsd-final', statsd: {} },
        { tag: TAG, type: 'statsd-final', statsd: { counters: 5 } },
        { tag: TAG, type: 'statsd-final', statsd: { counters: [['hostile.example.work_total', -1000]], gauges: [], timings: [] } },
        { tag: TAG, type: 'statsd-final', statsd: { counters: [], gauges: [], timings: 'x' } },
      ]),
    );
    const pids = new Set<number>();
    for (let i = 0; i < 8; i++) pids.add((JSON.parse((await call(cluster.appPort, '/whoami')).body) as { pid: number }).pid);
    const dropped = counted('fabric_ops.cluster.messages_dropped_total');
    for (const pid of pids) process.kill(pid, 'SIGUSR2');
    await cluster.waitFor(() => (counted('fabric_ops.cluster.messages_dropped_total') >= dropped + 5 * pids.size ? true : undefined), 15_000, 'the closing messages counted as dropped');
    const before = counted('example.work_total');
    for (let i = 0; i < 40; i++) expect((await call(cluster.appPort, '/work')).status).toBe(200);
    await cluster.waitFor(() => (counted('example.work_total') > before ? true : undefined), 15_000, 'more work pushed after the bad messages');
    // Never a negative delta pushed, and the primary is still up.
    expect(lines.filter((line) => line.startsWith(`${PREFIX}.example.work_total:-`))).toEqual([]);
    expect(cluster.process.exitCode).toBeNull();
    expect((await call(cluster.opsPort, '/healthz')).status).toBe(200);
  }, 60_000);
});
