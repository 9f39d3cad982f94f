import { fileURLToPath } from 'node:url';
import { configDir, send, spawnApp, type RunningApp } from '@fabric-ops/test-kit';
import { afterEach, describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../dist/bin.cjs', import.meta.url));
const apps: RunningApp[] = [];
afterEach(() => {
  for (const app of apps.splice(0)) app.kill();
});

describe('orderer /healthz', () => {
  it('is 200 {"status":"OK","time":...}: the orderer registers no checker', async () => {
    const dir = configDir('orderer.yaml', 'Operations:\n  ListenAddress: "127.0.0.1:0"\n');
    const app = await spawnApp(BIN, { env: { FABRIC_CFG_PATH: dir } });
    apps.push(app);
    const reply = await send(app.address, '/healthz');
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('application/json');
    expect(reply.body).toMatch(/^\{"status":"OK","time":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?(Z|[+-]\d\d:\d\d)"\}$/);
    // Fabric's /healthz ignores the query; the per-check text is on the additive paths.
    expect((await send(app.address, '/healthz?verbose')).body).toMatch(/^\{"status":"OK","time":"[^"]+"\}$/);
    expect((await send(app.address, '/readyz?verbose')).body).toBe('readyz check passed\n');
    expect((await send(app.address, '/readyz')).status).toBe(200);
    expect((await send(app.address, '/healthz', { method: 'HEAD' })).status).toBe(405);
  }, 60_000);
});
