// A summary declared in the workers of examples/cluster-service (Prometheus): the primary's
// /metrics adds up its _sum and _count across workers and serves each worker's quantiles with a
// `worker` label, in a body promtool accepts.
import { promtoolCheckMetrics } from '@fabric-ops/test-kit';
import { describe, expect, it } from 'vitest';
import { call, useClusterService, WORKERS } from './cluster-service.ts';

const cluster = useClusterService(() => ({ FABRIC_LOGGING_SPEC: 'info' }));

describe('examples/cluster-service: a summary across workers', () => {
  it('sums _count and _sum, keeps quantiles per worker', async () => {
    const requests = 40;
    // New connections each time, so the workers share the requests.
    for (let i = 0; i < requests; i++) expect((await call(cluster.appPort, '/work')).status).toBe(200);
    const body = await cluster.waitFor(
      async () => {
        const answer = await call(cluster.opsPort, '/metrics', { timeoutMs: 15_000 });
        return answer.body.includes(`example_work_seconds_count ${requests}\n`) ? answer.body : undefined;
      },
      30_000,
      `example_work_seconds_count ${requests} on the primary's /metrics`,
    );
    expect(body).toContain('# TYPE example_work_seconds summary\n');
    expect(body).toMatch(/^example_work_seconds_sum \S+$/m);
    const workers = new Set(Array.from(body.matchAll(/^example_work_seconds\{quantile="0\.5",worker="([^"]+)"\} \S+$/gm), (match) => match[1]));
    expect(workers.size).toBeGreaterThanOrEqual(1);
    expect(workers.size).toBeLessThanOrEqual(WORKERS);
    const check = await promtoolCheckMetrics(body);
    expect(check.output.split('\n').filter((line) => line.includes('example_work_seconds'))).toEqual([]);
  }, 120_000);
});
