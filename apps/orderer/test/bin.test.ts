import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeAppContract, listeningFields, ordererYaml, useAppHarness, useTestPki } from '@fabric-ops/test-kit';
import { describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../dist/bin.cjs', import.meta.url));

describeAppContract('orderer', {
  bin: BIN,
  packageJsonPath: fileURLToPath(new URL('../package.json', import.meta.url)),
  configFileName: 'orderer.yaml',
  configWithListenAddress: (address) => `Operations:\n  ListenAddress: "${address}"\n`,
  startFailurePrefix: 'failed to start operations subsystem',
});

const { configDir, start, run } = useAppHarness(BIN, 'orderer.yaml');
const testPki = useTestPki();

describe('orderer start-up line', () => {
  it('states HTTPS with optional client certificates, prometheus, and no checks', async () => {
    const pki = testPki();
    const dir = configDir(ordererYaml({ tls: { certFile: pki.server.certFile, keyFile: pki.server.keyFile, clientAuthRequired: false, clientRootCAs: [pki.ca.certFile] } }));
    const app = await start({ FABRIC_CFG_PATH: dir, FABRIC_LOGGING_FORMAT: 'json' });
    const fields = listeningFields(app.stdout);
    expect(fields).toMatchObject({ name: 'orderer.operations', scheme: 'https', clientAuth: 'verify-if-given', metricsProvider: 'prometheus', checks: [] });
    expect(fields['msg']).toBe(`Operations server listening on ${app.address} (https; client certificates: verify-if-given; metrics: prometheus; checks: none)`);
  });
});

describe('orderer: misspelt sections and --strict', () => {
  it('a misspelt top-level section is an error, as every unknown orderer key is, from --check-config and a start', async () => {
    const dir = configDir('Operation:\n  ListenAddress: 127.0.0.1:0\n');
    const expected = { code: 1, stdout: '', stderr: 'orderer.yaml: Operation: unknown section; did you mean Operations?\n' };
    expect(await run({ FABRIC_CFG_PATH: dir }, ['--check-config'])).toEqual(expected);
    expect(await run({ FABRIC_CFG_PATH: dir }, [])).toEqual(expected);
  });

  it('--check-config passes with a warning; --strict fails on it', async () => {
    const dir = configDir('Operations:\n  ListenAddress: 127.0.0.1:0\n');
    const env = { FABRIC_CFG_PATH: dir, ORDERER_METRICS_PROVIDER: 'graphite' };
    const warning = 'warning: ORDERER_METRICS_PROVIDER: Unknown provider type: graphite; metrics disabled (expected prometheus, statsd or disabled)\n';
    expect(await run(env, ['--check-config'])).toEqual({ code: 0, stdout: `configuration OK: ${join(dir, 'orderer.yaml')}\n`, stderr: warning });
    expect(await run(env, ['--check-config', '--strict'])).toEqual({ code: 1, stdout: '', stderr: `${warning}--strict: 1 warning, treated as problems\n` });
    expect(await run(env, ['--strict'])).toEqual({ code: 1, stdout: '', stderr: `${warning}--strict: 1 warning, treated as problems\n` });
  });
});
