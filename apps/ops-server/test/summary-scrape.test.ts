import { createServer } from 'node:http';
import { createMetricsProvider } from '@fabric-ops/ops-metrics';
import { listenOnLoopback, startPrometheus, useCleanup, type PrometheusServer } from '@fabric-ops/test-kit';
import { describe, expect, it } from 'vitest';

const defer = useCleanup();

/** A host server serving an ops-metrics registry with one summary, observed 1..100. */
async function serveSummary(): Promise<string> {
  const metrics = createMetricsProvider({ provider: 'prometheus', runtimeMetrics: false });
  const summary = metrics.newSummary({ name: 'app_payload_bytes', help: 'Payload sizes.', labelNames: ['route'], quantiles: [0.5, 0.9] });
  for (let i = 1; i <= 100; i++) summary.with('route', '/orders').observe(i);
  const port = await listenOnLoopback(
    defer,
    createServer((req, res) => void metrics.handler(req, res)),
  );
  return `127.0.0.1:${port}`;
}

describe.each([
  ['the text format', undefined],
  ['the delimited protobuf', ['PrometheusProto']],
] as const)('Prometheus 3 scraping a summary in %s', (_, scrapeProtocols) => {
  it('stores its quantiles, _sum and _count', async () => {
    const target = await serveSummary();
    const prometheus: PrometheusServer = await startPrometheus({ target, ...(scrapeProtocols === undefined ? {} : { scrapeProtocols }) });
    defer(() => prometheus.stop());
    const count = await prometheus.waitFor('app_payload_bytes_count', (samples) => samples.length > 0, 60_000);
    expect(count.map((s) => [s.metric['route'], s.value[1]])).toEqual([['/orders', '100']]);
    expect((await prometheus.query('app_payload_bytes_sum'))[0]?.value[1]).toBe('5050');
    const quantiles = await prometheus.query('app_payload_bytes');
    const byQuantile = new Map(quantiles.map((s) => [s.metric['quantile'], Number(s.value[1])]));
    expect([...byQuantile.keys()].sort()).toEqual(['0.5', '0.9']);
    expect(Math.abs(byQuantile.get('0.5')! - 50)).toBeLessThanOrEqual(1.5);
    expect(Math.abs(byQuantile.get('0.9')! - 90)).toBeLessThanOrEqual(2);
  }, 120_000);
});
