// examples/cluster-service with workers that disagree about the logging spec:
// one whose logging reports the spec in another spelling, one that refuses the primary's spec
// (test/fixtures/hostile-worker.mjs rewrites their `ready` messages). Either must end in a defined
// state after a handful of messages: joined, or failed once and named in /healthz.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { call, hostileWorkerOptions, sleep, useClusterService } from './cluster-service.ts';

const respellDir = mkdtempSync(join(tmpdir(), 'cluster-respell-'));
const refuseDir = mkdtempSync(join(tmpdir(), 'cluster-refuse-'));
afterAll(() => {
  rmSync(respellDir, { recursive: true, force: true });
  rmSync(refuseDir, { recursive: true, force: true });
});

/** `ready` messages each worker has sent, by pid. */
function readyCounts(dir: string): Map<string, number> {
  return new Map(readdirSync(dir).map((file) => [file, Number(readFileSync(join(dir, file), 'utf8'))]));
}

/** CPU time (user + system, in clock ticks) the process has used. */
function cpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

// Every worker reports `INFO` for `info`: the same spec, spelled otherwise. Started waiting for
// /readyz, so it only starts if they join.
const respelling = useClusterService(() => ({
  WORKERS: '1',
  FABRIC_LOGGING_SPEC: 'info',
  NODE_OPTIONS: hostileWorkerOptions(),
  HOSTILE_READY: 'respell',
  HOSTILE_COUNT_DIR: respellDir,
}));

// Worker 1 reports `warn` whatever it is told; worker 2 is well behaved.
const refusing = useClusterService(
  () => ({ WORKERS: '2', FABRIC_LOGGING_SPEC: 'info', NODE_OPTIONS: hostileWorkerOptions(), HOSTILE_READY: 'refuse', HOSTILE_WORKER: '1', HOSTILE_COUNT_DIR: refuseDir }),
  { waitUntil: 'listening' },
);

describe('examples/cluster-service: spec disagreements end after a few messages', () => {
  it('joins a worker that reports the active spec in another spelling, without a greeting storm', async () => {
    const metrics = await call(respelling.opsPort, '/metrics');
    expect(metrics.body).toMatch(/^fabric_ops_cluster_workers 1$/m);
    const counts = readyCounts(respellDir);
    expect(counts.size).toBe(1);
    await sleep(1_000);
    const later = readyCounts(respellDir);
    for (const [pid, count] of later) {
      expect(count).toBeLessThanOrEqual(4);
      expect(count).toBe(counts.get(pid));
    }
  }, 30_000);

  it('fails a worker that refuses the spec once, names it in /healthz, and exchanges no more greetings', async () => {
    const health = await refusing.waitFor(
      async () => {
        const answer = await call(refusing.opsPort, '/healthz');
        return /"component":"worker-1","reason":"worker 1 refused the logging spec: it runs \\"warn\\"/.test(answer.body) ? answer : undefined;
      },
      20_000,
      'worker 1 named as refusing the spec',
    );
    expect(health.status).toBe(503);
    // The other worker joined; the refusing one did not, so /readyz (minWorkers 2) fails: defined, not flapping.
    await refusing.waitFor(async () => (/^fabric_ops_cluster_workers 1$/m.test((await call(refusing.opsPort, '/metrics')).body) ? true : undefined), 20_000, 'the good worker joined');
    expect((await call(refusing.opsPort, '/readyz')).status).toBe(503);
    const counts = readyCounts(refuseDir);
    const ticks = cpuTicks(refusing.process.pid!);
    await sleep(2_000);
    const later = readyCounts(refuseDir);
    expect(later.size).toBe(2);
    for (const [pid, count] of later) {
      expect(count).toBeLessThanOrEqual(5);
      expect(count).toBe(counts.get(pid));
    }
    // An idle primary: well under a tenth of a core over 2 s (the ping-pong took ~40 %).
    expect(cpuTicks(refusing.process.pid!) - ticks).toBeLessThan(20);
    // The warning is written once.
    expect(refusing.output().match(/a worker will not join the operations endpoint/g)).toHaveLength(1);
  }, 60_000);
});
