import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { configDir, freeTcpPort, send, spawnApp, type RunningApp } from '@fabric-ops/test-kit';
import { afterEach, describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../dist/bin.cjs', import.meta.url));
const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

const apps: RunningApp[] = [];
afterEach(() => {
  for (const app of apps.splice(0)) app.kill();
});

async function startOrderer(metrics: string): Promise<RunningApp> {
  const yaml = `Operations:\n  ListenAddress: "127.0.0.1:0"\nMetrics:\n${metrics}\n`;
  const app = await spawnApp(BIN, { env: { FABRIC_CFG_PATH: configDir('orderer.yaml', yaml) }, readyTimeoutMs: 30_000 });
  apps.push(app);
  return app;
}

describe('orderer metrics', () => {
  it('serves /metrics with fabric_version when Metrics.Provider is prometheus', async () => {
    const app = await startOrderer('  Provider: prometheus');
    const reply = await send(app.address, '/metrics');
    expect(reply.status).toBe(200);
    expect(reply.body).toContain(`fabric_version{version="${VERSION}"} 1\n`);
    expect(reply.body).toMatch(/logging_entries_checked\{level="info"\} [1-9]/);
  });

  it('starts even though the StatsD daemon over TCP is unreachable (Fabric would refuse), and keeps serving', async () => {
    const port = await freeTcpPort();
    const app = await startOrderer(`  Provider: statsd\n  Statsd:\n    Network: tcp\n    Address: 127.0.0.1:${port}\n    WriteInterval: 200ms`);
    expect((await send(app.address, '/version')).status).toBe(200);
    expect((await send(app.address, '/metrics')).status).toBe(404);
    const deadline = Date.now() + 10_000;
    while (!app.stdout.some((line) => line.includes(`statsd: cannot reach tcp 127.0.0.1:${port}`)) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(app.stdout.some((line) => line.includes(`statsd: cannot reach tcp 127.0.0.1:${port}`))).toBe(true);
    expect(app.child.exitCode).toBeNull();
  });
});
