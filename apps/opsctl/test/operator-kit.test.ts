// deploy/prometheus's file_sd example: what opsctl reads from it, and promtool's verdict on the
// scrape config that uses it (promtool also parses the file_sd files a config names).
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { prometheusTool } from '@fabric-ops/test-kit';
import { readFileSd } from '../src/targets.ts';

const PROMETHEUS_DIR = fileURLToPath(new URL('../../../deploy/prometheus', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'fabric-ops-kit-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('deploy/prometheus/file_sd', () => {
  it('lists the example network for opsctl, org2 with its own credentials', async () => {
    const targets = await readFileSd(join(PROMETHEUS_DIR, 'file_sd', 'fabric-network.yml'));
    expect(targets.map((t) => `${t.address} ${t.labels['org']}/${t.labels['role']}`)).toEqual([
      'peer0.org1.example.com:9443 org1/peer',
      'peer1.org1.example.com:9443 org1/peer',
      'orderer0.example.com:8443 orderer-org/orderer',
      'orderer1.example.com:8443 orderer-org/orderer',
      'orderer2.example.com:8443 orderer-org/orderer',
      'peer0.org2.example.com:9443 org2/peer',
      'peer1.org2.example.com:9443 org2/peer',
    ]);
    expect(targets.filter((t) => t.credentials !== undefined).map((t) => t.credentials)).toEqual(
      Array(2).fill({ caFile: '/etc/opsctl/org2/ops-ca.pem', certFile: '/etc/opsctl/org2/admin.pem', keyFile: '/etc/opsctl/org2/admin-key.pem' }),
    );
  });

  it('passes promtool check config with the scrape config that discovers it', async () => {
    const dir = join(scratch, 'prometheus');
    cpSync(PROMETHEUS_DIR, dir, { recursive: true });
    mkdirSync(join(dir, 'tls', 'org2'), { recursive: true });
    for (const file of ['ops-ca.pem', 'prometheus.pem', 'prometheus-key.pem']) {
      writeFileSync(join(dir, 'tls', file), '');
      writeFileSync(join(dir, 'tls', 'org2', file), '');
    }
    const { stdout, stderr } = await promisify(execFile)(prometheusTool('promtool'), ['check', 'config', 'prometheus-file-sd.yml'], { cwd: dir, timeout: 60_000 });
    expect(`${stdout}${stderr}`).toContain('SUCCESS: prometheus-file-sd.yml is valid prometheus config file syntax');
  });
});
