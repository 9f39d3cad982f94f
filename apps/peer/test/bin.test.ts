import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeAppContract, listeningFields, useAppHarness, useTestPki } from '@fabric-ops/test-kit';
import { describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../dist/bin.cjs', import.meta.url));

describeAppContract('peer', {
  bin: BIN,
  packageJsonPath: fileURLToPath(new URL('../package.json', import.meta.url)),
  configFileName: 'core.yaml',
  configWithListenAddress: (address) => `vm:\n  endpoint: ""\noperations:\n  listenAddress: "${address}"\n`,
  startFailurePrefix: 'failed to initialize operations subsystem',
});

const { configDir, start, run } = useAppHarness(BIN, 'core.yaml');
const testPki = useTestPki();

describe('peer start-up line', () => {
  it('states plain HTTP, no client certificates, metrics off and no checks', async () => {
    const dir = configDir('vm:\n  endpoint: ""\noperations:\n  listenAddress: 127.0.0.1:0\n');
    const app = await start({ FABRIC_CFG_PATH: dir, FABRIC_LOGGING_FORMAT: 'json' });
    const fields = listeningFields(app.stdout);
    expect(fields).toMatchObject({ address: app.address, scheme: 'http', clientAuth: 'none', metricsProvider: 'disabled', checks: [], config: join(dir, 'core.yaml') });
    expect(fields['statsd']).toBeUndefined();
    expect(fields['msg']).toBe(`Operations server listening on ${app.address} (http; client certificates: none; metrics: disabled; checks: none)`);
  });

  it('states HTTPS, the client-auth mode, the StatsD target and the docker check', async () => {
    const pki = testPki();
    const dir = configDir(
      [
        'vm:',
        '  endpoint: unix:///nonexistent/fabric-ops/docker.sock',
        'operations:',
        '  listenAddress: 127.0.0.1:0',
        '  tls:',
        '    enabled: true',
        `    cert: {file: ${JSON.stringify(pki.server.certFile)}}`,
        `    key: {file: ${JSON.stringify(pki.server.keyFile)}}`,
        '    clientAuthRequired: true',
        `    clientRootCAs: {files: [${JSON.stringify(pki.ca.certFile)}]}`,
        'metrics:',
        '  provider: statsd',
        '  statsd: {network: udp, address: "127.0.0.1:9", writeInterval: 10s}',
        '',
      ].join('\n'),
    );
    const app = await start({ FABRIC_CFG_PATH: dir, FABRIC_LOGGING_FORMAT: 'json' });
    const fields = listeningFields(app.stdout);
    expect(fields).toMatchObject({ scheme: 'https', clientAuth: 'required', metricsProvider: 'statsd', statsd: 'udp://127.0.0.1:9', checks: ['docker'] });
    expect(fields['msg']).toBe(`Operations server listening on ${app.address} (https; client certificates: required; metrics: statsd to udp://127.0.0.1:9; checks: docker)`);
  });

  it('with TLS and optional client certificates, says verify-if-given', async () => {
    const pki = testPki();
    const app = await start({
      FABRIC_CFG_PATH: configDir('vm:\n  endpoint: ""\nmetrics:\n  provider: prometheus\n'),
      FABRIC_LOGGING_FORMAT: 'json',
      CORE_OPERATIONS_LISTENADDRESS: '127.0.0.1:0',
      CORE_OPERATIONS_TLS_ENABLED: 'true',
      CORE_OPERATIONS_TLS_CERT_FILE: pki.server.certFile,
      CORE_OPERATIONS_TLS_KEY_FILE: pki.server.keyFile,
      CORE_OPERATIONS_TLS_CLIENTROOTCAS_FILES: pki.ca.certFile,
    });
    expect(listeningFields(app.stdout)).toMatchObject({ scheme: 'https', clientAuth: 'verify-if-given', metricsProvider: 'prometheus', checks: [] });
  });
});

describe('peer: one verdict for --check-config and a start', () => {
  it('vm.endpoint that is not an endpoint: the same line from both, exit 1', async () => {
    const dir = configDir('vm:\n  endpoint: "docker.sock"\noperations:\n  listenAddress: 127.0.0.1:0\n');
    const line = 'core.yaml: vm.endpoint: expected unix:///path/to/docker.sock or tcp://host:port (or "" for no docker health check), got "docker.sock" (no scheme)\n';
    expect(await run({ FABRIC_CFG_PATH: dir }, ['--check-config'])).toEqual({ code: 1, stdout: '', stderr: line });
    expect(await run({ FABRIC_CFG_PATH: dir }, [])).toEqual({ code: 1, stdout: '', stderr: line });
  });

  it('a TLS file named by an environment variable is named by that variable', async () => {
    const dir = configDir('vm:\n  endpoint: ""\noperations:\n  listenAddress: 127.0.0.1:0\n  tls:\n    enabled: true\n    key:\n      file: key.pem\n');
    const env = { FABRIC_CFG_PATH: dir, CORE_OPERATIONS_TLS_CERT_FILE: '/nonexistent/ops/cert.pem' };
    const expected = {
      code: 1,
      stdout: '',
      stderr: `CORE_OPERATIONS_TLS_CERT_FILE: open /nonexistent/ops/cert.pem: no such file or directory\ncore.yaml: operations.tls.key.file: open ${join(dir, 'key.pem')}: no such file or directory\n`,
    };
    expect(await run(env, ['--check-config'])).toEqual(expected);
    expect(await run(env, [])).toEqual(expected);
  });

  it('a misspelt section warns with the close name; --check-config passes, --check-config --strict fails', async () => {
    const dir = configDir('vm:\n  endpoint: ""\noperation:\n  tls:\n    enabled: true\nmetric:\n  provider: prometheus\n');
    const warnings = 'warning: core.yaml: operation: unknown section, ignored; did you mean operations?\nwarning: core.yaml: metric: unknown section, ignored; did you mean metrics?\n';
    expect(await run({ FABRIC_CFG_PATH: dir }, ['--check-config'])).toEqual({ code: 0, stdout: `configuration OK: ${join(dir, 'core.yaml')}\n`, stderr: warnings });
    expect(await run({ FABRIC_CFG_PATH: dir }, ['--check-config', '--strict'])).toEqual({ code: 1, stdout: '', stderr: `${warnings}--strict: 2 warnings, treated as problems\n` });
  });

  it("an unknown provider warns once, in Fabric's words, naming where it was set", async () => {
    const dir = configDir('vm:\n  endpoint: ""\noperations:\n  listenAddress: 127.0.0.1:0\nmetrics:\n  provider: Prometheus\n');
    const app = await start({ FABRIC_CFG_PATH: dir });
    const unknown = app.stdout.filter((line) => line.includes('Unknown provider type'));
    expect(unknown).toHaveLength(1);
    expect(unknown[0]).toContain('core.yaml: metrics.provider: Unknown provider type: Prometheus; metrics disabled');
  });
});
