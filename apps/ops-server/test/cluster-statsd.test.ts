// The multi-process service pushing StatsD: examples/cluster-service started with `node` (from the
// built dist/) and STATSD_ADDRESS set, against a UDP daemon this test owns on loopback. The
// primary must send one aggregated push per interval, the workers none, and every /work counted
// exactly once, across a worker killed and respawned, a frozen worker, and the final stop.
import { spawn, type ChildProcess } from 'node:child_process';
import { createSocket, type Socket } from 'node:dgram';
import { once } from 'node:events';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freeTcpPort, send } from '@fabric-ops/test-kit';

const repoRoot = resolve(import.meta.dirname, '../../..');
const EXAMPLE = join(repoRoot, 'examples', 'cluster-service', 'index.mjs');
const WORKERS = 2;
const INTERVAL_MS = 1_000;
const PREFIX = 'cluster_test';

interface Datagram {
  readonly at: number;
  readonly fromPort: number;
  readonly lines: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let daemon: Socket;
const datagrams: Datagram[] = [];
let service: ChildProcess;
let opsPort = 0;
let appPort = 0;
let output = '';

function call(port: number, path: string, options: { method?: string; body?: string; timeoutMs?: number } = {}): Promise<{ status: number; body: string }> {
  return send(`127.0.0.1:${port}`, path, options);
}

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

async function waitFor<T>(probe: () => Promise<T | undefined> | T | undefined, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await Promise.resolve(probe()).catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} not seen within ${timeoutMs} ms (counted ${workCounted()}); output:\n${output}`);
    await sleep(50);
  }
}

async function doWork(requests: number): Promise<void> {
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let i = 0; i < requests / 4; i++) expect((await call(appPort, '/work')).status).toBe(200);
    }),
  );
}

/** Waits until `expected` /work are counted, then for two more intervals to show none is counted twice. */
async function expectCounted(expected: number): Promise<void> {
  await waitFor(() => (workCounted() >= expected ? true : undefined), 15_000, `${expected} units of work pushed`);
  await sleep(INTERVAL_MS * 2.5);
  expect(workCounted()).toBe(expected);
}

async function workerPids(): Promise<Set<number>> {
  const pids = new Set<number>();
  for (let i = 0; i < 16; i++) pids.add((JSON.parse((await call(appPort, '/whoami')).body) as { pid: number }).pid);
  return pids;
}

beforeAll(async () => {
  daemon = createSocket('udp4');
  daemon.on('message', (message, from) => datagrams.push({ at: Date.now(), fromPort: from.port, lines: message.toString().split('\n').filter(Boolean) }));
  await new Promise<void>((ready) => daemon.bind(0, '127.0.0.1', ready));
  opsPort = await freeTcpPort();
  appPort = await freeTcpPort();
  service = spawn(process.execPath, [EXAMPLE], {
    cwd: repoRoot,
    env: {
      ...process.env,
      OPS_ADDRESS: `127.0.0.1:${opsPort}`,
      APP_PORT: String(appPort),
      WORKERS: String(WORKERS),
      STATSD_ADDRESS: `127.0.0.1:${daemon.address().port}`,
      STATSD_WRITE_INTERVAL_MS: String(INTERVAL_MS),
      STATSD_PREFIX: PREFIX,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  service.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  service.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await waitFor(async () => ((await call(opsPort, '/readyz')).status === 200 ? true : undefined), 30_000, 'every worker ready');
}, 60_000);

afterEach((context) => {
  if (context.task.result?.state === 'fail') process.stderr.write(`examples/cluster-service output so far:\n${output}\n`);
});

afterAll(async () => {
  if (service.exitCode === null) {
    service.kill('SIGKILL');
    await once(service, 'exit');
  }
  daemon.close();
});

let expected = 0;

describe('examples/cluster-service with StatsD: one aggregated push from the primary', () => {
  it('pushes the sum of every worker’s work once per interval, from one socket, with the prefix', async () => {
    expect((await call(opsPort, '/metrics')).status).toBe(404);
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
    const seen = pushes().slice(1, -1);
    expect(seen.length).toBeGreaterThan(0);
    for (const push of seen) {
      expect(push.filter((line) => line === `${PREFIX}.fabric_ops.cluster.workers:2.000000|g`)).toHaveLength(1);
      expect(push.filter((line) => line.startsWith(`${PREFIX}.example.work_total:`)).length).toBeLessThanOrEqual(1);
      expect(push.filter((line) => line.startsWith(`${PREFIX}.nodejs.mem.rss_bytes:`))).toHaveLength(1);
    }
    // No more pushes than intervals went by (one push per flush, not one per worker).
    expect(pushes(before).length).toBeLessThanOrEqual(Math.ceil(elapsed / INTERVAL_MS) + 1);
  }, 60_000);

  it('neither loses nor double counts when a worker is killed and respawned', async () => {
    const victim = [...(await workerPids())][0]!;
    process.kill(victim, 'SIGKILL');
    await waitFor(async () => {
      if ((await call(opsPort, '/readyz')).status !== 200) return undefined;
      const pids = await workerPids();
      return pids.size === WORKERS && !pids.has(victim) ? true : undefined;
    }, 20_000, 'a replacement worker');
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
      await waitFor(() => (pushes(during).some((push) => push.some((line) => line.startsWith(timeoutsLine))) ? true : undefined), 15_000, 'a push counting the frozen worker');
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
    service.kill('SIGTERM');
    const [code] = (await once(service, 'exit')) as [number | null];
    expect(code).toBe(0);
    await sleep(200);
    expect(workCounted()).toBe(expected);
  }, 30_000);
});
