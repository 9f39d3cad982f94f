import { fileURLToPath } from 'node:url';
import { request } from 'node:http';
import {
  configDir,
  runAppToExit,
  send,
  spawnApp,
  startPingCountingProxy,
  startPodmanService,
  startSilentSocket,
  type PingCountingProxy,
  type PodmanService,
  type RunningApp,
} from '@fabric-ops/test-kit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../dist/bin.cjs', import.meta.url));
const TIME = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d{1,9})?(Z|[+-]\\d\\d:\\d\\d)';
const OK_BODY = new RegExp(`^\\{"status":"OK","time":"${TIME}"\\}$`);

let podman: PodmanService;
let proxy: PingCountingProxy;
const apps: RunningApp[] = [];

beforeAll(async () => {
  podman = await startPodmanService();
  proxy = await startPingCountingProxy(podman.socketPath);
}, 120_000);

afterAll(async () => {
  await proxy?.close();
  await podman?.dispose();
});

afterEach(() => {
  for (const app of apps.splice(0)) app.kill();
});

async function peerWith(endpoint: string): Promise<RunningApp> {
  const dir = configDir('core.yaml', `vm:\n  endpoint: "${endpoint}"\noperations:\n  listenAddress: "127.0.0.1:0"\n`);
  const app = await spawnApp(BIN, { env: { FABRIC_CFG_PATH: dir } });
  apps.push(app);
  return app;
}

interface FailedBody {
  status: string;
  time: string;
  failed_checks: { component: string; reason: string }[];
}

describe('peer /healthz against a real container runtime (podman Docker API)', () => {
  it('goes 200 → 503 → 200 as the runtime stops and starts again', async () => {
    const app = await peerWith(podman.endpoint);
    const up = await send(app.address, '/healthz');
    expect(up.status).toBe(200);
    expect(up.body).toMatch(OK_BODY);
    expect(up.headers['content-type']).toBe('application/json');

    await podman.stop();
    try {
      const down = await send(app.address, '/healthz', { timeoutMs: 20_000 });
      expect(down.status).toBe(503);
      expect(down.body).toMatch(new RegExp(`^\\{"status":"Service Unavailable","time":"${TIME}","failed_checks":\\[`));
      const body = JSON.parse(down.body) as FailedBody;
      expect(body.failed_checks).toHaveLength(1);
      expect(body.failed_checks[0]!.component).toBe('docker');
      expect(body.failed_checks[0]!.reason).toBe(`failed to ping to Docker daemon: Get "http://unix.sock/_ping": dial unix ${podman.socketPath}: connect: no such file or directory`);
    } finally {
      await podman.start();
    }

    const back = await send(app.address, '/healthz');
    expect(back.status).toBe(200);
    expect(back.body).toMatch(OK_BODY);
  }, 120_000);

  it('answers a named failure within the check timeout when the runtime hangs', async () => {
    const hung = await startSilentSocket();
    try {
      const app = await peerWith(hung.endpoint);
      // The client waits far longer than the 5 s check timeout and well under the 30 s deadline.
      const reply = await send(app.address, '/healthz', { timeoutMs: 25_000 });
      expect(reply.status).toBe(503);
      expect((JSON.parse(reply.body) as FailedBody).failed_checks).toEqual([{ component: 'docker', reason: 'health check timed out after 5s' }]);
      expect(hung.connections()).toBe(1);
    } finally {
      await hung.close();
    }
  }, 60_000);

  it('makes 100 concurrent probes cost one runtime ping', async () => {
    const app = await peerWith(proxy.endpoint);
    expect((await send(app.address, '/healthz')).status).toBe(200);
    const before = proxy.pings();
    expect(before).toBe(1);

    proxy.hold();
    const port = Number(app.address.slice(app.address.lastIndexOf(':') + 1));
    let written = 0;
    const probes = Array.from(
      { length: 100 },
      () =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          const req = request({ host: '127.0.0.1', port, path: '/healthz', agent: false }, (res) => {
            let body = '';
            res.setEncoding('utf8').on('data', (c: string) => (body += c));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          });
          req.on('finish', () => written++);
          req.setTimeout(30_000, () => req.destroy(new Error('probe timed out')));
          req.on('error', reject);
          req.end();
        }),
    );
    // Every probe is on the wire and the server has read them (a later round trip came back)
    // before the one ping the runtime got is allowed to answer.
    while (written < 100) await new Promise((r) => setTimeout(r, 10));
    expect((await send(app.address, '/livez')).status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    proxy.release();
    const replies = await Promise.all(probes);
    expect(replies.every((r) => r.status === 200 && OK_BODY.test(r.body))).toBe(true);
    expect(proxy.pings() - before).toBe(1);
  }, 60_000);

  it('serves the additive endpoints and keeps the Fabric-shaped answers unchanged', async () => {
    const app = await peerWith(podman.endpoint);
    const healthz = await send(app.address, '/healthz');
    expect(healthz.headers['cache-control']).toBeUndefined();
    for (const method of ['HEAD', 'POST', 'PUT']) {
      const reply = await send(app.address, '/healthz', { method });
      expect(reply.status).toBe(405);
      expect(reply.body).toBe('');
      expect(reply.headers['content-type']).toBeUndefined();
    }
    const slash = await send(app.address, '/healthz/');
    expect(slash.status).toBe(404);
    expect(slash.body).toBe('404 page not found\n');

    for (const path of ['/livez', '/readyz', '/healthz/docker']) {
      const reply = await send(app.address, path);
      expect(reply.status).toBe(200);
      expect(reply.body).toMatch(OK_BODY);
      expect(reply.headers['cache-control']).toBe('no-store');
    }
    // Fabric's /healthz ignores the query: ?verbose changes nothing there.
    const verbose = await send(app.address, '/healthz?verbose');
    expect(verbose.status).toBe(200);
    expect(verbose.body).toMatch(OK_BODY);
    expect(verbose.headers['content-type']).toBe('application/json');
    expect(verbose.headers['cache-control']).toBeUndefined();
    const ready = await send(app.address, '/readyz?verbose');
    expect(ready.body).toMatch(/^\[\+\]docker ok \([\d.]+(ns|µs|ms|s)\)\nreadyz check passed\n$/);
    const one = await send(app.address, '/healthz/docker?verbose');
    expect(one.body).toMatch(/^\[\+\]docker ok \(.+\)\nhealthz\/docker check passed\n$/);
    expect((await send(app.address, '/healthz/couchdb')).status).toBe(404);
  }, 60_000);

  it('registers no checker when vm.endpoint is empty', async () => {
    const app = await peerWith('');
    expect((await send(app.address, '/healthz/docker')).status).toBe(404);
    expect((await send(app.address, '/readyz?verbose')).body).toBe('readyz check passed\n');
  }, 60_000);

  it('refuses a malformed vm.endpoint at start-up with one line', async () => {
    const dir = configDir('core.yaml', 'vm:\n  endpoint: "docker.sock"\noperations:\n  listenAddress: "127.0.0.1:0"\n');
    const result = await runAppToExit(BIN, { env: { FABRIC_CFG_PATH: dir } });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('core.yaml: vm.endpoint: expected unix:///path/to/docker.sock or tcp://host:port (or "" for no docker health check), got "docker.sock" (no scheme)\n');
  }, 60_000);
});
