import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { useAppHarness, useTestPki } from '@fabric-ops/test-kit';
import { describe, expect, it } from 'vitest';

// Against the real orderer bin: a FIFO as a TLS file, and the
// logging environment, give --check-config and a start the same verdict and the same line.

const BIN = fileURLToPath(new URL('../dist/bin.cjs', import.meta.url));
const { configDir, emptyDir, run } = useAppHarness(BIN, 'orderer.yaml');
const testPki = useTestPki();

async function sameVerdict(env: NodeJS.ProcessEnv): Promise<string> {
  const checked = await run(env, ['--check-config']);
  const started = await run(env, []);
  expect([checked.code, started.code]).toEqual([1, 1]);
  expect([checked.stdout, started.stdout]).toEqual(['', '']);
  expect(checked.stderr).toBe(started.stderr);
  return checked.stderr;
}

describe('orderer: --check-config and a start agree', () => {
  it('a FIFO as ORDERER_OPERATIONS_TLS_CERTIFICATE is named at once, not waited on', async () => {
    const fifo = join(emptyDir(), 'server.crt');
    execFileSync('mkfifo', [fifo]);
    const env = {
      FABRIC_CFG_PATH: configDir('Operations:\n  ListenAddress: 127.0.0.1:0\n'),
      ORDERER_OPERATIONS_TLS_ENABLED: 'true',
      ORDERER_OPERATIONS_TLS_CERTIFICATE: fifo,
      ORDERER_OPERATIONS_TLS_PRIVATEKEY: testPki().server.keyFile,
    };
    expect(await sameVerdict(env)).toBe(`ORDERER_OPERATIONS_TLS_CERTIFICATE: open ${fifo}: not a regular file (a named pipe (FIFO))\n`);
  }, 60_000);

  it('a symlink to /dev/zero as the private key is refused unread', async () => {
    const dir = emptyDir();
    const zero = join(dir, 'server.key');
    execFileSync('ln', ['-s', '/dev/zero', zero]);
    const env = {
      FABRIC_CFG_PATH: configDir(`Operations:\n  ListenAddress: 127.0.0.1:0\n  TLS:\n    Enabled: true\n    Certificate: ${testPki().server.certFile}\n    PrivateKey: ${zero}\n`),
    };
    expect(await sameVerdict(env)).toBe(`orderer.yaml: Operations.TLS.PrivateKey: open ${zero}: not a regular file (a character device)\n`);
  }, 60_000);

  it('FABRIC_LOGGING_SPEC=bogus fails both with the same line', async () => {
    const env = { FABRIC_CFG_PATH: configDir('Operations:\n  ListenAddress: 127.0.0.1:0\n'), FABRIC_LOGGING_SPEC: 'orderer=bogus' };
    expect(await sameVerdict(env)).toBe("FABRIC_LOGGING_SPEC: invalid logging specification 'orderer=bogus': bad segment 'orderer=bogus'\n");
  }, 60_000);
});
