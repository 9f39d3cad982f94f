// What an operator sees for a wrong --cacert, --version, and what a one-node probe loads at start,
// from the real bin.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:https';
import { describe, expect, it } from 'vitest';
import { createTestPki } from '@fabric-ops/test-kit';
import { runOpsctlBin, startAnswering } from './hostile-kit.ts';

describe('the operator’s own mistakes', () => {
  it('names the --cacert file that does not trust the server, and the label file for a fleet row', async () => {
    const pki = await createTestPki();
    const server = createServer({ cert: pki.server.cert, key: pki.server.key }, (_req, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"Version":"2.5.0","CommitSHA":"abc"}'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = `127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      const wrong = pki.rogueCa.certFile;
      const one = await runOpsctlBin(['--address', address, '--cacert', wrong, 'version'], { killAfterMs: 40_000 });
      expect(one.code).toBe(4);
      expect(one.stderr).toMatch(
        new RegExp(
          `^opsctl: https://${address}: server certificate not trusted by --cacert ${wrong.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(.+\\); is that the CA that signed the operations server's certificate\\?\\n$`,
        ),
      );
      const right = await runOpsctlBin(['--address', address, '--cacert', pki.ca.certFile, 'version'], { killAfterMs: 40_000 });
      expect(right).toMatchObject({ code: 0, stdout: 'Version: 2.5.0\nCommit SHA: abc\n' });
      const fleet = await runOpsctlBin(['--address', address, '--address', '127.0.0.1:1', '--cacert', wrong, 'version', '--json'], { killAfterMs: 40_000 });
      const rows = JSON.parse(fleet.stdout) as { target: string; reason?: string; error?: string }[];
      expect(rows.find((row) => row.target === address)).toMatchObject({ reason: 'untrusted-certificate' });
      expect(rows.find((row) => row.target === address)!.error).toContain(`not trusted by --cacert ${wrong}`);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('prints its own version with --version', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    const run = await runOpsctlBin(['--version'], { killAfterMs: 40_000 });
    expect(run).toMatchObject({ code: 0, stdout: `opsctl ${version}\n`, stderr: '' });
  });

  it('loads the YAML parser only to read a --targets file, not for a one-node probe', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'opsctl-startup-'));
    const node = await startAnswering(() => ({ status: 200, body: '{"Version":"2.5.0","CommitSHA":"abc"}' }));
    try {
      const report = join(dir, 'report-yaml.cjs');
      // Written at exit: whether any module of the yaml package was loaded (ESM loads it as CommonJS).
      writeFileSync(report, "process.on('exit', () => process.stderr.write('yaml-loaded ' + Object.keys(require('node:module')._cache).some((file) => /[\\\\/]yaml[\\\\/]/.test(file)) + '\\n'));\n");
      const probe = await runOpsctlBin(['--address', node.address, 'version'], { nodeArgs: ['--require', report], killAfterMs: 40_000 });
      expect(probe.code).toBe(0);
      expect(probe.stderr).toBe('yaml-loaded false\n');
      const file = join(dir, 'sd.yml');
      writeFileSync(file, `- targets: ["${node.address}"]\n  labels: {role: peer}\n`);
      const fleet = await runOpsctlBin(['--targets', file, 'version'], { nodeArgs: ['--require', report], killAfterMs: 40_000 });
      expect(fleet.code).toBe(0);
      expect(fleet.stderr).toBe('yaml-loaded true\n');
    } finally {
      await node.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
