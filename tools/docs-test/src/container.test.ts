// The Containerfile and the Kubernetes manifest that runs its image, checked as far as this
// machine goes without a registry: the image's settings (its ENV lines, the sample core.yaml it
// copies, the manifest's env) start a real peer bin whose HTTPS probes answer as the kubelet asks
// them. The image build itself is not run here (no registry for the base image); see the README.
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { createTestPki, spawnApp, type RunningApp, type TestPki } from '@fabric-ops/test-kit';
import { PEER_BIN, repoRoot } from './peer.ts';

const containerfile = readFileSync(join(repoRoot, 'Containerfile'), 'utf8');
const manifest = parseAllDocuments(readFileSync(join(repoRoot, 'deploy', 'kubernetes', 'peer-probes.yaml'), 'utf8')).map((doc) => doc.toJS() as Record<string, unknown>);
const dir = mkdtempSync(join(tmpdir(), 'fabric-ops-container-'));
let pki: TestPki;
let peer: RunningApp | undefined;

beforeAll(async () => {
  pki = await createTestPki();
}, 60_000);
afterAll(async () => {
  peer?.kill();
  await pki?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

/** The runtime stage's ENV, as the image sets it (`ENV A=1 \ B=""`). */
function imageEnv(): Record<string, string> {
  const runtime = containerfile.slice(containerfile.lastIndexOf('\nFROM '));
  const env: Record<string, string> = {};
  for (const [, block] of runtime.matchAll(/^ENV ((?:.*\\\n)*.*)$/gm)) {
    for (const [, name, value] of block!.matchAll(/([A-Z_]+)=("[^"]*"|\S*)/g)) env[name!] = value!.replace(/^"(.*)"$/, '$1');
  }
  return env;
}

interface EnvEntry {
  name: string;
  value: string;
}
function deploymentContainer(): { image: string; env: EnvEntry[] } {
  const deployment = manifest.find((doc) => doc['kind'] === 'Deployment') as { spec: { template: { spec: { containers: { image: string; env: EnvEntry[] }[] } } } };
  return deployment.spec.template.spec.containers[0]!;
}

function kubeletGet(address: string, path: string): Promise<number> {
  const colon = address.lastIndexOf(':');
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ host: address.slice(0, colon), port: Number(address.slice(colon + 1)), path, rejectUnauthorized: false, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.setTimeout(10_000, () => req.destroy(new Error('probe timed out')));
    req.on('error', reject);
    req.end();
  });
}

describe('Containerfile', () => {
  it('builds the image the manifest names, with the peer bin as its entry point and opsctl installed', () => {
    expect(containerfile).toContain('podman build -t registry.example.com/fabric-ops-peer:0.1');
    expect(deploymentContainer().image).toBe('registry.example.com/fabric-ops-peer:0.1');
    const peerBins = Object.keys((JSON.parse(readFileSync(join(repoRoot, 'apps', 'peer', 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin);
    expect(containerfile).toMatch(new RegExp(`^ENTRYPOINT \\["${peerBins[0]}"\\]$`, 'm'));
    // Every packed package is installed globally, apps/opsctl (the exec probes' command) among them.
    expect(containerfile).toContain('pack --pack-destination /tmp/fabric-ops');
    expect(containerfile).toContain("--filter './apps/*'");
    expect(containerfile).toContain('npm install -g /tmp/fabric-ops/*.tgz');
    expect(imageEnv()['CORE_VM_ENDPOINT']).toBe('');
  });

  it('with the image settings and the manifest env, a real peer passes the HTTPS probes without a Docker socket', async () => {
    const env: Record<string, string> = { ...imageEnv() };
    for (const entry of deploymentContainer().env) env[entry.name] = entry.value;
    expect(env['CORE_VM_ENDPOINT'], 'the manifest keeps the readiness probe off the Docker socket').toBe('');
    // The image's sample core.yaml, the secret's files from this run's PKI, a loopback port.
    copyFileSync(join(repoRoot, 'apps', 'peer', 'sampleconfig', 'core.yaml'), join(dir, 'core.yaml'));
    const mounted: Record<string, string> = {
      '/etc/hyperledger/fabric/tls/server.pem': pki.server.certFile,
      '/etc/hyperledger/fabric/tls/server-key.pem': pki.server.keyFile,
      '/etc/hyperledger/fabric/tls/ca.pem': pki.ca.certFile,
    };
    for (const [name, value] of Object.entries(env)) env[name] = mounted[value] ?? value;
    env['FABRIC_CFG_PATH'] = dir;
    env['CORE_OPERATIONS_LISTENADDRESS'] = '127.0.0.1:0';
    peer = await spawnApp(PEER_BIN, { env });
    expect(await kubeletGet(peer.address, '/livez')).toBe(200);
    expect(await kubeletGet(peer.address, '/readyz')).toBe(200);
  });
});
