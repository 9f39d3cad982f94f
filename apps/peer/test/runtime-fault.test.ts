import { Agent } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configDir, send, spawnApp, startPodmanService, type PodmanService, type RunningApp } from '@fabric-ops/test-kit';

// The container runtime goes away and comes back while the peer is under load: /healthz
// follows it, and nothing else the peer serves is disturbed.

const bin = fileURLToPath(new URL('../dist/bin.cjs', import.meta.url));
let podman: PodmanService;
let app: RunningApp;

beforeAll(async () => {
  podman = await startPodmanService();
  const dir = configDir('core.yaml', `vm:\n  endpoint: "${podman.endpoint}"\noperations:\n  listenAddress: 127.0.0.1:0\nmetrics:\n  provider: prometheus\n`);
  app = await spawnApp(bin, { env: { FABRIC_CFG_PATH: dir } });
}, 120_000);
afterAll(async () => {
  app?.kill();
  await podman?.dispose();
});

async function healthStatus(): Promise<number> {
  return (await send(app.address, '/healthz')).status;
}

async function waitForHealth(status: number, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await healthStatus()) !== status) {
    if (Date.now() > deadline) throw new Error(`/healthz never answered ${status}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('container runtime stopped and restarted under load', () => {
  it('moves /healthz 200 → 503 → 200 while every other request keeps succeeding', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    const others = ['/version', '/logspec', '/metrics', '/livez'];
    const failures: string[] = [];
    let served = 0;
    let running = true;
    const loop = async (offset: number) => {
      for (let i = offset; running; i++) {
        const path = others[i % others.length]!;
        try {
          const reply = await send(app.address, path, { agent });
          if (reply.status !== 200) failures.push(`${path} ${reply.status}`);
          else served++;
        } catch (error) {
          failures.push(`${path} ${(error as Error).message}`);
        }
      }
    };
    const loops = [0, 1, 2, 3, 4, 5].map(loop);

    await waitForHealth(200);
    await podman.stop();
    await waitForHealth(503);
    const down = await send(app.address, '/healthz');
    const body = JSON.parse(down.body) as { status: string; failed_checks: { component: string; reason: string }[] };
    expect(body.status).toBe('Service Unavailable');
    expect(body.failed_checks).toHaveLength(1);
    expect(body.failed_checks[0]!.component).toBe('docker');
    expect(body.failed_checks[0]!.reason).toMatch(/^failed to ping to Docker daemon: /);
    // Liveness must not follow a dependency, or the orchestrator restarts a healthy process.
    expect((await send(app.address, '/livez')).status).toBe(200);

    await podman.start();
    await waitForHealth(200);

    running = false;
    await Promise.all(loops);
    agent.destroy();
    expect(failures).toEqual([]);
    expect(served).toBeGreaterThan(100);
    expect(app.child.exitCode).toBeNull();
  }, 120_000);
});
