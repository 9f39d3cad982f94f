// examples/cluster-service (Prometheus) under a crash loop: the primary's health series for its
// workers (`health_check_status{component="worker-<id>"}`, `health_check_duration_seconds{…}`) end
// with the worker's health entry, so their number stays bounded and /metrics returns to its size
// (otherwise every worker id that ever existed would keep two series, reading 0 forever).
import { describe, expect, it } from 'vitest';
import { DEPARTED_LIMIT } from '../src/cluster/coordinator.ts';
import { call, sleep, useClusterService, workerPids, WORKERS } from './cluster-service.ts';

const cluster = useClusterService(() => ({ FABRIC_LOGGING_SPEC: 'info' }));

const STATUS = /^health_check_status\{component="(worker-[^"]*)"\} (\S+)$/gm;
const DURATION = /^health_check_duration_seconds_count\{component="(worker-[^"]*)"\} \S+$/gm;

async function scrape(): Promise<string> {
  const answer = await call(cluster.opsPort, '/metrics', { timeoutMs: 15_000 });
  expect(answer.status).toBe(200);
  return answer.body;
}

/** The worker components with a health_check_status series, and their values. */
function workerStatus(metrics: string): Map<string, string> {
  return new Map(Array.from(metrics.matchAll(STATUS), (match) => [match[1]!, match[2]!]));
}

function workerDurations(metrics: string): string[] {
  return Array.from(metrics.matchAll(DURATION), (match) => match[1]!);
}

async function healthy(): Promise<true | undefined> {
  return (await call(cluster.opsPort, '/healthz')).status === 200 && (await call(cluster.opsPort, '/readyz')).status === 200 ? true : undefined;
}

describe("examples/cluster-service: departed workers' health series", () => {
  it('stay bounded through a crash loop and are gone once the replacements serve, with /metrics back near its size', async () => {
    // The checks run on a probe; after one, every live worker has its series.
    await cluster.waitFor(healthy, 30_000, '/healthz and /readyz 200 before the crash loop');
    const start = await scrape();
    expect([...workerStatus(start).values()]).toEqual(Array.from({ length: WORKERS }, () => '1'));

    const primary = cluster.process.pid!;
    // A dying worker and its replacement can both be tracked for a moment.
    const bound = DEPARTED_LIMIT + 2 * WORKERS;
    const seen = new Set<string>();
    let kills = 0;
    let largest = 0;
    while (kills < 60) {
      for (const pid of workerPids(primary)) {
        try {
          process.kill(pid, 'SIGKILL');
          kills++;
        } catch {
          // Already gone.
        }
      }
      // A probe runs every registered check, departed workers' included: each gets its series.
      await call(cluster.opsPort, '/healthz');
      const status = workerStatus(await scrape());
      for (const component of status.keys()) seen.add(component);
      largest = Math.max(largest, status.size);
      await sleep(100);
    }
    // More workers came and went than the bound allows to be named at once, so the bound below is real.
    expect(seen.size).toBeGreaterThan(bound);
    expect(largest).toBeGreaterThan(WORKERS);
    expect(largest).toBeLessThanOrEqual(bound);

    await cluster.waitFor(healthy, 30_000, () => `/healthz and /readyz 200 after the crash loop (last output: ${cluster.output().slice(-300)})`);
    // /healthz answered 200, so no departed worker is registered any more: only the live ones have series.
    await call(cluster.opsPort, '/healthz');
    const end = await scrape();
    const status = workerStatus(end);
    expect([...status.values()]).toEqual(Array.from({ length: WORKERS }, () => '1'));
    expect(workerDurations(end).sort()).toEqual([...status.keys()].sort());
    expect([...status.keys()].some((component) => workerStatus(start).has(component))).toBe(false);
    // What may legitimately grow: counters' digits, a new GC kind's histogram, a new status code.
    // Each departed worker whose series stayed would add about 1.2 KB (a gauge and a 14-line histogram).
    expect(end.length).toBeLessThan(start.length + 8_192);
  }, 120_000);
});
