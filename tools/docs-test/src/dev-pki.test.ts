// The README's TLS walkthrough as a newcomer follows it: scripts/dev-pki.sh makes the files, its
// core.yaml lines start a real peer with operations TLS, and its curl commands get the answers
// the README promises (and a client without the certificate gets Fabric's 401).
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { configDir, spawnApp, type RunningApp } from '@fabric-ops/test-kit';
import { PEER_BIN, repoRoot } from './peer.ts';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'fabric-ops-dev-pki-'));
let peer: RunningApp | undefined;

afterAll(() => {
  peer?.kill();
  rmSync(dir, { recursive: true, force: true });
});

describe('scripts/dev-pki.sh', () => {
  it('prints core.yaml lines and curl commands that work against a real peer', async () => {
    const pkiDir = join(dir, 'pki');
    const { stdout } = await run('bash', [join(repoRoot, 'scripts', 'dev-pki.sh'), pkiDir, 'peer0.org1.example.com'], { timeout: 60_000 });
    const lines = stdout.split('\n');
    const yamlStart = lines.findIndex((line) => line.startsWith('operations:'));
    const yamlEnd = lines.indexOf('', yamlStart);
    expect(yamlStart).toBeGreaterThan(0);
    // As printed, on a free port instead of 9443, with the docker check off (no daemon here).
    const coreYaml = lines.slice(yamlStart, yamlEnd).join('\n').replace('listenAddress: 127.0.0.1:9443', 'listenAddress: 127.0.0.1:0');
    expect(coreYaml).toContain(`file: ${pkiDir}/server.pem`);
    peer = await spawnApp(PEER_BIN, { env: { FABRIC_CFG_PATH: configDir('core.yaml', `${coreYaml}\nvm:\n  endpoint: ""\n`) } });

    const curls = lines.filter((line) => line.startsWith('curl '));
    expect(curls).toHaveLength(2);
    const answers: string[] = [];
    for (const line of curls) {
      const args = line.slice('curl '.length).replaceAll('127.0.0.1:9443', peer.address).split(' ');
      const { stdout: body } = await run('curl', ['-sS', '-w', ' %{http_code}', ...args], { timeout: 30_000 });
      answers.push(body);
    }
    expect(answers[0]).toMatch(/^\{"status":"OK","time":"[^"]+"\}\n? 200$/);
    expect(answers[1]).toBe('{"spec":"info"}\n 200');

    // The same /logspec without the client certificate: Fabric's 401.
    const { stdout: refused } = await run('curl', ['-sS', '-w', '%{http_code}', '--cacert', join(pkiDir, 'ca.pem'), `https://${peer.address}/logspec`], { timeout: 30_000 });
    expect(refused).toBe('401');
  });

  it('refuses to overwrite a PKI that is already there', async () => {
    const existing = join(dir, 'existing');
    mkdirSync(existing);
    writeFileSync(join(existing, 'ca.pem'), "an operator's CA\n");
    const again = await run('bash', [join(repoRoot, 'scripts', 'dev-pki.sh'), existing]).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('exists; remove');
    expect(readFileSync(join(existing, 'ca.pem'), 'utf8')).toBe("an operator's CA\n");
  });
});
