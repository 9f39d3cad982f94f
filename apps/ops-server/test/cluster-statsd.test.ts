// The multi-process service pushing StatsD: examples/cluster-service started with `node` (from the
// built dist/) and STATSD_ADDRESS set, against a UDP daemon this test owns on loopback. The
// primary must send one aggregated push per interval, the workers none, and every /work counted
// exactly once, across a worker killed and respawned, a frozen worker, and the final stop.
import { createSocket, type Socket } from 'node:dgram';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, sleep, useClusterService, WORKERS } from './cluster-service.ts';

const INTERVAL_MS = 1_000;
const PREFIX = 'cluster_test';

interface Datagram {
  readonly at: number;
  readonly fromPort: number;
  readonly lines: string[];
}

let daemon: Socket;
const datagrams: Datagram[] = [];

// Registered before the service's hooks, so the daemon listens before the service starts.
beforeAll(async () => {
  daemon = createSocket('udp4');
  daemon.on('message', (message, from) => datagrams.push({ at: Date.now(), fromPort: from.port, lines: message.toString().split('\n').filter(Boolean) }));
  await new Promise<void>((ready) => daemon.bind(0, '127.0.0.1', ready));
});

afterAll(() => {
  daemon.close();
});

const cluster = useClusterService(() => ({
  STATSD_ADDRESS: `127.0.0.1:${daemon.address().port}`,
  STATSD_WRITE_INTERVAL_MS: String(INTERVAL_MS),
  STATSD_PREFIX: PREFIX,
}));

/** Datagrams (from index `from`) grouped into pushes: the lines of one flush leave together, pushes are an interval apart. */
function pushes(from = 0): string[][] {
  const groups: string[][] = [];
  let lastAt = -Infinity;
  for (const datagram of datagrams.slice(from)) {
    if (datagram.at - lastAt > INTERVAL_MS / 4) groups.push([]);
    groups.at(-1)!.push(...datagram.lines);
    lastAt = datagram.at;
  }
  return groups;
}

/** The sum of every `example.work_total` counter delta received. */
function workCounted(): number {
  let total = 0;
  for (const { lines } of datagrams) {
    for (const line of lines) {
      const match = new RegExp(`^${PREFIX}\\.example\\.work_total:([0-9.]+)\\|c$`).exec(line);
      if (match !== null) total += Number(match[1]);
    }
  }
  return total;
}

async function doWork(requests: number): Promise<void> {
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let i = 0; i < requests / 4; i++) expect((await call(cluster.appPort, '/work')).status).toBe(200);
    }),
  );
}

/** Waits until `expected` /work are counted, then for two more intervals to show none is counted twice. */
async function expectCounted(expected: number): Promise<void> {
  await cluster.waitFor(
    () => (workCounted() >= expected ? true : undefined),
    15_000,
    () => `${expected} units of work pushed (counted ${workCounted()})`,
  );
  await sleep(INTERVAL_MS * 2.5);
  expect(workCounted()).toBe(expected);
}

async function workerPids(): Promise<Set<number>> {
  const pids = new Set<number>();
  for (let i = 0; i < 16; i++) pids.add((JSON.parse((await call(cluster.appPort, '/whoami')).body) as { pid: number }).pid);
  return pids;
}

let expected = 0;

describe('examples/cluster-service with StatsD: one aggregated push from the primary', () => {
  it('pushes the sum of every worker’s work once per interval, from one socket, with the prefix', async () => {
    expect((await call(cluster.opsPort, '/metrics')).status).toBe(404);
    const started = Date.now();
    const before = datagrams.length;
    await doWork(200);
    expect((await workerPids()).size).toBe(WORKERS);
    expected += 200;
    await expectCounted(expected);
    const elapsed = Date.now() - started;

    // One sender: the primary. A worker pushing for itself would come from a socket of its own.
    expect(new Set(datagrams.map((datagram) => datagram.fromPort)).size).toBe(1);
    for (const line of datagrams.flatMap((datagram) => datagram.lines)) expect(line.startsWith(`${PREFIX}.`)).toBe(true);
    // Each push carries the cluster's gauges once, and example_work_total at most once (the sum).
    // Pushes since the service was ready (before it, under load, more than one may show fewer workers).
    const seen = pushes(before).slice(1, -1);
    expect(seen.length).toBeGreaterThan(0);
    for (const push of seen) {
      expect(
        push.filter((line) => line === `${PREFIX}.fabric_ops.cluster.workers:2.000000|g`),
        push.join(' '),
      ).toHaveLength(1);
      expect(push.filter((line) => line.startsWith(`${PREFIX}.example.work_total:`)).length).toBeLessThanOrEqual(1);
      expect(push.filter((line) => line.startsWith(`${PREFIX}.nodejs.mem.rss_bytes:`))).toHaveLength(1);
    }
    // No more pushes than intervals went by (one push per flush, not one per worker).
    expect(pushes(before).length).toBeLessThanOrEqual(Math.ceil(elapsed / INTERVAL_MS) + 1);
  }, 60_000);

  it('neither loses nor double counts when a worker is killed and respawned', async () => {
    const victim = [...(await workerPids())][0]!;
    process.kill(victim, 'SIGKILL');
    await cluster.waitFor(
      async () => {
        if ((await call(cluster.opsPort, '/readyz')).status !== 200) return undefined;
        const pids = await workerPids();
        return pids.size === WORKERS && !pids.has(victim) ? true : undefined;
      },
      20_000,
      'a replacement worker',
    );
    await doWork(100);
    expected += 100;
    await expectCounted(expected);
  }, 60_000);

  it('keeps pushing while a worker is frozen, counts it as a timeout, and pushes its counts once it answers', async () => {
    await doWork(100);
    expected += 100;
    const frozen = [...(await workerPids())][0]!;
    process.kill(frozen, 'SIGSTOP');
    const during = datagrams.length;
    try {
      // Pushes go on without the frozen worker, naming the left-out requests.
      const timeoutsLine = `${PREFIX}.fabric_ops.cluster.worker_timeouts_total:`;
      await cluster.waitFor(() => (pushes(during).some((push) => push.some((line) => line.startsWith(timeoutsLine))) ? true : undefined), 15_000, 'a push counting the frozen worker');
      const pushesSoFar = pushes(during).length;
      await sleep(INTERVAL_MS * 3);
      // Pushes go on: the frozen worker, owing its answer, is not waited for again.
      expect(pushes(during).length).toBeGreaterThan(pushesSoFar);
    } finally {
      process.kill(frozen, 'SIGCONT');
    }
    await expectCounted(expected);
  }, 60_000);

  it('pushes the last counts on SIGTERM and exits 0', async () => {
    await doWork(40);
    expected += 40;
    cluster.process.kill('SIGTERM');
    const [code] = (await once(cluster.process, 'exit')) as [number | null];
    expect(code).toBe(0);
    await sleep(200);
    expect(workCounted()).toBe(expected);
  }, 30_000);
});
