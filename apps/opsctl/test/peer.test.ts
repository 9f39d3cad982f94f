import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestPki, peerLauncher, runAppToExit, type PeerSetup, type PeerTlsFiles, type RunningApp, type TestPki } from '@fabric-ops/test-kit';

const OPSCTL = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const PEER = fileURLToPath(new URL('../../peer/dist/bin.cjs', import.meta.url));
const PEER_VERSION = (await import('../../peer/package.json', { with: { type: 'json' } })).default.version;

const peers = peerLauncher(PEER);

async function opsctl(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  // Clear OPSCTL_* so the machine's environment cannot change what a test asks for.
  return runAppToExit(OPSCTL, { args, env: { OPSCTL_ADDRESS: '', OPSCTL_CERT: '', OPSCTL_KEY: '', OPSCTL_CACERT: '' }, readyTimeoutMs: 30_000 });
}

afterAll(() => peers.stopAll());

/** Every peer here reports the same commit, so /version answers are exact. */
const startPeer = (setup: PeerSetup) => peers.start(setup, { FABRIC_OPS_COMMIT_SHA: 'abc1234' });

describe('opsctl against the peer over plain HTTP', () => {
  let peer: RunningApp;
  let sick: RunningApp;
  beforeAll(async () => {
    [peer, sick] = await Promise.all([
      startPeer({}),
      // A container runtime endpoint nobody listens on: the docker checker fails.
      startPeer({ vmEndpoint: 'unix:///nonexistent/opsctl-test/docker.sock' }),
    ]);
  });

  it('prints the version, human and JSON', async () => {
    const human = await opsctl('--address', peer.address, 'version');
    expect(human).toEqual({ code: 0, stdout: `Version: ${PEER_VERSION}\nCommit SHA: abc1234\n`, stderr: '' });
    const json = await opsctl('version', '--json', '--address', peer.address);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ CommitSHA: 'abc1234', Version: PEER_VERSION });
  });

  it('reports a healthy peer with exit 0', async () => {
    const human = await opsctl('--address', peer.address, 'health');
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^OK \(\d{4}-\d\d-\d\dT[^)]+\)\n$/);
    const live = await opsctl('--address', peer.address, 'health', '--live', '--json');
    expect(live.code).toBe(0);
    expect(JSON.parse(live.stdout)).toMatchObject({ status: 'OK' });
    const ready = await opsctl('--address', peer.address, 'health', '--ready', '--verbose');
    expect(ready.code).toBe(0);
    expect(ready.stdout).toContain('readyz check passed');
  });

  it('reports a failing component with its reason and exit 1', async () => {
    const human = await opsctl('--address', sick.address, 'health');
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(/^Service Unavailable \(.+\)\n {2}docker: failed to ping to Docker daemon: .+\n$/);
    const json = await opsctl('--address', sick.address, 'health', '--json');
    expect(json.code).toBe(1);
    const body = JSON.parse(json.stdout) as { status: string; failed_checks: { component: string; reason: string }[] };
    expect(body.status).toBe('Service Unavailable');
    expect(body.failed_checks.map((c) => c.component)).toEqual(['docker']);
    const verbose = await opsctl('--address', sick.address, 'health', '--verbose');
    expect(verbose.code).toBe(1);
    expect(verbose.stdout).toContain('[-]docker failed');
    const one = await opsctl('--address', sick.address, 'health', 'docker', '--json');
    expect(one.code).toBe(1);
    expect(JSON.parse(one.stdout)).toMatchObject({ failed_checks: [{ component: 'docker' }] });
  });

  it('reads and sets the logging spec, printing what the server made of it', async () => {
    const before = await opsctl('--address', peer.address, 'logspec', 'get');
    expect(before).toEqual({ code: 0, stdout: 'info\n', stderr: '' });
    const set = await opsctl('--address', peer.address, 'logspec', 'set', 'b=warn:a=error:info');
    expect(set).toEqual({ code: 0, stdout: 'logging spec is now a=error:b=warn:info\n', stderr: '' });
    const json = await opsctl('--address', peer.address, '--json', 'logspec', 'get');
    expect(JSON.parse(json.stdout)).toEqual({ spec: 'a=error:b=warn:info' });
    const reset = await opsctl('--address', peer.address, 'logspec', 'set', 'info', '--json');
    expect(JSON.parse(reset.stdout)).toEqual({ spec: 'info' });
  });

  it("reports a rejected spec with the server's reason and exit 1, changing nothing", async () => {
    const result = await opsctl('--address', peer.address, 'logspec', 'set', 'bogus');
    expect(result).toEqual({ code: 1, stdout: '', stderr: "opsctl: logspec rejected: invalid logging specification 'bogus': bad segment 'bogus'\n" });
    expect((await opsctl('--address', peer.address, 'logspec', 'get')).stdout).toBe('info\n');
  });

  it('prints the metrics page, or its families as JSON', async () => {
    const text = await opsctl('--address', peer.address, 'metrics');
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`fabric_version{version="${PEER_VERSION}"} 1`);
    const json = await opsctl('--address', peer.address, 'metrics', '--json');
    const families = JSON.parse(json.stdout) as { name: string; type: string; samples: { labels: Record<string, string>; value: string }[] }[];
    const version = families.find((family) => family.name === 'fabric_version');
    expect(version).toEqual({ name: 'fabric_version', type: 'gauge', help: 'The active version of Fabric.', samples: [{ name: 'fabric_version', labels: { version: PEER_VERSION }, value: '1' }] });
  });

  it('says "not found" with exit 5 for a component that does not exist', async () => {
    const result = await opsctl('--address', peer.address, 'health', 'nosuchcheck');
    expect(result.code).toBe(5);
    expect(result.stderr).toBe(`opsctl: http://${peer.address}/healthz/nosuchcheck: not found (404)\n`);
  });

  it('fails with one line and exit 3 when nothing listens', async () => {
    const blocker = createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => blocker.once('listening', resolve));
    const port = (blocker.address() as { port: number }).port;
    await new Promise((resolve) => blocker.close(resolve));
    const result = await opsctl('--address', `127.0.0.1:${port}`, 'version');
    expect(result).toEqual({ code: 3, stdout: '', stderr: `opsctl: http://127.0.0.1:${port}: connection refused (is the operations server running on that address?)\n` });
    const json = await opsctl('--address', `127.0.0.1:${port}`, '--json', 'health');
    expect(json.code).toBe(3);
    expect(JSON.parse(json.stdout)).toEqual({ error: `http://127.0.0.1:${port}: connection refused (is the operations server running on that address?)`, code: 'UNREACHABLE' });
  });

  it('fails with exit 2 on a bad command line, before connecting', async () => {
    const result = await opsctl('logspec', 'frob');
    expect(result).toEqual({ code: 2, stdout: '', stderr: "opsctl: 'logspec' takes 'get' or 'set <spec>', not 'frob'\n" });
    const missing = await opsctl('--cacert', '/nonexistent/ca.pem', '--address', peer.address, 'version');
    expect(missing).toEqual({ code: 2, stdout: '', stderr: 'opsctl: cannot read --cacert file /nonexistent/ca.pem: no such file or directory\n' });
  });
});

describe('opsctl against the peer over mutual TLS', () => {
  let pki: TestPki;
  let optional: RunningApp;
  let required: RunningApp;
  beforeAll(async () => {
    pki = await createTestPki();
    const tls = (clientAuthRequired: boolean): PeerTlsFiles => ({ certFile: pki.server.certFile, keyFile: pki.server.keyFile, clientAuthRequired, clientRootCAs: [pki.ca.certFile] });
    [optional, required] = await Promise.all([startPeer({ tls: tls(false) }), startPeer({ tls: tls(true) })]);
  }, 120_000);
  afterAll(async () => {
    await pki?.cleanup();
  });

  const withClient = (address: string, client: { certFile: string; keyFile: string }) => ['--address', address, '--cacert', pki.ca.certFile, '--cert', client.certFile, '--key', client.keyFile];

  it('reads the version with a good client certificate, whichever clientAuthRequired says', async () => {
    for (const peer of [optional, required]) {
      const result = await opsctl(...withClient(peer.address, pki.clients.good), 'version', '--json');
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({ CommitSHA: 'abc1234', Version: PEER_VERSION });
    }
  });

  it('uses /logspec and /metrics with a good client certificate', async () => {
    const spec = await opsctl(...withClient(optional.address, pki.clients.good), 'logspec', 'set', 'gossip=debug:info');
    expect(spec).toEqual({ code: 0, stdout: 'logging spec is now gossip=debug:info\n', stderr: '' });
    const metrics = await opsctl(...withClient(required.address, pki.clients.good), 'metrics');
    expect(metrics.code).toBe(0);
    expect(metrics.stdout).toContain('# TYPE fabric_version gauge');
  });

  it('says "client certificate required" with exit 4 when /logspec or /metrics answers 401', async () => {
    for (const command of [['logspec', 'get'], ['metrics']]) {
      const result = await opsctl('--address', optional.address, '--cacert', pki.ca.certFile, ...command);
      expect(result.code).toBe(4);
      expect(result.stderr).toBe(`opsctl: https://${optional.address}/${command[0]}: client certificate required (the server answered 401; pass --cert and --key signed by its client CA)\n`);
    }
  });

  it('runs health without a client certificate when clientAuthRequired is false', async () => {
    const result = await opsctl('--address', optional.address, '--cacert', pki.ca.certFile, 'health');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^OK /);
  });

  it('says "client certificate required" with exit 4 when the TLS layer demands one', async () => {
    const result = await opsctl('--address', required.address, '--cacert', pki.ca.certFile, 'version');
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/^opsctl: https:\/\/127\.0\.0\.1:\d+: client certificate required/);
    expect(result.stderr.split('\n')).toHaveLength(2);
  });

  it('names the rejected client certificate with exit 4', async () => {
    for (const [client, why] of [
      [pki.clients.rogueCa, /unknown certificate authority|rejected the client certificate/],
      [pki.clients.expired, /certificate expired|rejected the client certificate/],
    ] as const) {
      const result = await opsctl(...withClient(optional.address, client), 'version');
      expect(result.code).toBe(4);
      expect(result.stderr).toMatch(why);
      expect(result.stderr.split('\n')).toHaveLength(2);
    }
  });

  it('refuses a server certificate it cannot verify, with exit 4', async () => {
    const result = await opsctl('--address', optional.address, '--tls', 'version');
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/server certificate not trusted \(.+\); pass the operations CA with --cacert\n$/);
  });

  it('hints at TLS when plain HTTP reaches a TLS server', async () => {
    const result = await opsctl('--address', optional.address, 'version');
    expect([3, 4]).toContain(result.code);
    expect(result.stderr).toMatch(/TLS|--cacert/);
    expect(result.stderr.split('\n')).toHaveLength(2);
  });

  it('hints that the server speaks plain HTTP when TLS reaches it', async () => {
    const plain = await startPeer({});
    const result = await opsctl('--address', plain.address, '--cacert', pki.ca.certFile, 'version');
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('the server does not speak TLS');
  });
});
