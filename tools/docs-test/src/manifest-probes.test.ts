// Every container of deploy/kubernetes/peer-probes.yaml, run as the kubelet would run it: the real
// peer bin with the image's ENV (Containerfile) and exactly that container's env, its volume
// mounts mapped into a temp dir holding this run's PKI (openssl), and then each of its probes —
// httpGet as the kubelet sends it (no client certificate, no verification), exec commands as
// written — against that peer. A file the env or a probe names must sit under one of the
// container's volumeMounts, and each file gets the PKI part its setting or option asks for.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestPki, runAppToExit, spawnApp, type RunningApp, type TestPki } from '@fabric-ops/test-kit';
import { containersOf, imageEnv, manifestDocuments, nameOf, type ManifestContainer, type ManifestProbe } from './kit-files.ts';
import { OPSCTL_BIN, PEER_BIN, repoRoot } from './peer.ts';

type PkiPart = 'server-cert' | 'server-key' | 'ca' | 'client-cert' | 'client-key';
/** The peer's settings that name files, and what each file must hold. */
const ENV_FILES: Record<string, PkiPart> = {
  CORE_OPERATIONS_TLS_CERT_FILE: 'server-cert',
  CORE_OPERATIONS_TLS_KEY_FILE: 'server-key',
  CORE_OPERATIONS_TLS_CLIENTROOTCAS_FILES: 'ca',
};
/** opsctl's options that name files. */
const OPTION_FILES: Record<string, PkiPart> = { '--cacert': 'ca', '--cert': 'client-cert', '--key': 'client-key' };

let pki: TestPki;
const scratch: string[] = [];
const peers: RunningApp[] = [];

beforeAll(async () => {
  pki = await createTestPki();
}, 60_000);
afterAll(async () => {
  for (const peer of peers) peer.kill();
  await pki?.cleanup();
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

function pem(part: PkiPart): string {
  switch (part) {
    case 'server-cert':
      return pki.server.cert;
    case 'server-key':
      return pki.server.key;
    case 'ca':
      return pki.ca.cert;
    case 'client-cert':
      return pki.clients.good.cert;
    case 'client-key':
      return pki.clients.good.key;
  }
}

/** Maps the container's absolute file paths into `root`, through its volume mounts; writes each file's PKI part once. */
class MountedFiles {
  private readonly written = new Map<string, PkiPart>();
  constructor(
    private readonly container: ManifestContainer,
    private readonly root: string,
  ) {}

  place(path: string, part: PkiPart, where: string): string {
    const mount = (this.container.volumeMounts ?? []).find((m) => path.startsWith(`${m.mountPath.replace(/\/$/, '')}/`));
    if (mount === undefined) throw new Error(`${where}: ${path} is under none of the container's volumeMounts (${(this.container.volumeMounts ?? []).map((m) => m.mountPath).join(', ') || 'none'})`);
    const local = join(this.root, mount.name, relative(mount.mountPath, path));
    const before = this.written.get(local);
    if (before !== undefined && before !== part) throw new Error(`${where}: ${path} must hold the ${part}, but another setting wants the ${before} there`);
    if (before === undefined) {
      mkdirSync(dirname(local), { recursive: true });
      writeFileSync(local, pem(part));
      this.written.set(local, part);
    }
    return local;
  }
}

/** An HTTP(S) GET as the kubelet sends it: no client certificate, serving certificate not verified. */
function kubeletGet(scheme: string, address: string, path: string): Promise<number> {
  const colon = address.lastIndexOf(':');
  const options = { host: address.slice(0, colon), port: Number(address.slice(colon + 1)), path, agent: false };
  return new Promise((resolve, reject) => {
    const onResponse = (res: import('node:http').IncomingMessage) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    };
    const req = scheme === 'HTTPS' ? httpsRequest({ ...options, rejectUnauthorized: false }, onResponse) : httpRequest(options, onResponse);
    req.setTimeout(10_000, () => req.destroy(new Error('probe timed out')));
    req.on('error', reject);
    req.end();
  });
}

interface Prepared {
  readonly env: Record<string, string>;
  readonly files: MountedFiles;
  readonly port: number;
}

function prepare(docName: string, container: ManifestContainer): Prepared {
  const root = mkdtempSync(join(tmpdir(), 'fabric-ops-manifest-'));
  scratch.push(root);
  const files = new MountedFiles(container, join(root, 'mounts'));
  const env: Record<string, string> = { ...imageEnv() };
  for (const entry of container.env ?? []) env[entry.name] = entry.value;
  for (const [name, part] of Object.entries(ENV_FILES)) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    env[name] = value
      .split(/\s+/)
      .filter((file) => file !== '')
      .map((file) => files.place(file, part, `${docName} env ${name}`))
      .join(' ');
  }
  const listen = env['CORE_OPERATIONS_LISTENADDRESS'] ?? '';
  const port = Number(listen.slice(listen.lastIndexOf(':') + 1));
  expect(
    container.ports?.map((p) => p.containerPort),
    `${docName}: the operations port is a container port`,
  ).toContain(port);
  // The image's sample core.yaml at FABRIC_CFG_PATH, a loopback port instead of the pod's.
  const config = join(root, 'config');
  mkdirSync(config);
  copyFileSync(join(repoRoot, 'apps', 'peer', 'sampleconfig', 'core.yaml'), join(config, 'core.yaml'));
  env['FABRIC_CFG_PATH'] = config;
  env['CORE_OPERATIONS_LISTENADDRESS'] = '127.0.0.1:0';
  return { env, files, port };
}

async function runProbe(docName: string, container: ManifestContainer, probe: ManifestProbe, prepared: Prepared, address: string): Promise<void> {
  if (probe.httpGet !== undefined) {
    const { port, path, scheme } = probe.httpGet;
    const number = typeof port === 'number' ? port : container.ports?.find((p) => p.name === port)?.containerPort;
    expect(number, `${docName}: httpGet port ${port}`).toBe(prepared.port);
    const status = await kubeletGet(scheme ?? 'HTTP', address, path);
    // The kubelet counts 200-399 as success.
    expect(status >= 200 && status < 400, `${docName}: ${scheme ?? 'HTTP'} GET ${path} answered ${status}`).toBe(true);
    return;
  }
  const command = probe.exec?.command ?? [];
  expect(command[0], `${docName}: exec probes run opsctl`).toBe('opsctl');
  const args = command.slice(1).map((arg, i, all) => {
    const option = all[i - 1];
    if (option !== undefined && OPTION_FILES[option] !== undefined) return prepared.files.place(arg, OPTION_FILES[option], `${docName} probe ${option}`);
    if (option === '--address') {
      expect(arg, `${docName}: the probe dials the pod's own operations port`).toBe(`127.0.0.1:${prepared.port}`);
      return address;
    }
    return arg;
  });
  const result = await runAppToExit(OPSCTL_BIN, { args });
  expect({ code: result.code, stderr: result.stderr }, `${docName}: ${command.join(' ')}`).toEqual({ code: 0, stderr: '' });
}

describe('deploy/kubernetes/peer-probes.yaml, each container as shipped', () => {
  const cases = manifestDocuments.flatMap((doc) => containersOf(doc).map((container) => ({ docName: `${nameOf(doc)}/${container.name}`, container })));

  it('has containers with probes in every document', () => {
    expect(cases.length).toBe(manifestDocuments.length);
    for (const { container } of cases) expect(container.livenessProbe ?? container.readinessProbe).toBeDefined();
  });

  it.each(cases)('$docName: every probe passes against a peer started with its env and mounts', async ({ docName, container }) => {
    const prepared = prepare(docName, container);
    const probes = [container.startupProbe, container.livenessProbe, container.readinessProbe].filter((p): p is ManifestProbe => p !== undefined);
    // Files the exec probes name are placed before the peer starts, as a mounted secret is.
    for (const probe of probes) {
      const command = probe.exec?.command ?? [];
      command.forEach((arg, i) => {
        const part = OPTION_FILES[command[i - 1] ?? ''];
        if (part !== undefined) prepared.files.place(arg, part, `${docName} probe ${command[i - 1]}`);
      });
    }
    const peer = await spawnApp(PEER_BIN, { env: prepared.env });
    peers.push(peer);
    for (const probe of probes) await runProbe(docName, container, probe, prepared, peer.address);
  });
});
