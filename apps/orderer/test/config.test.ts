import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { effectiveConfigPage, send, useAppHarness, useTestPki } from '@fabric-ops/test-kit';
import { describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../dist/bin.cjs', import.meta.url));

const { configDir, start, run } = useAppHarness(BIN, 'orderer.yaml');
const testPki = useTestPki();

describe('orderer configuration through the bin', () => {
  it('environment overrides take effect, and empty ones are ignored', async () => {
    const dir = configDir('Operations:\n  ListenAddress: 127.0.0.1\n');
    const app = await start({ FABRIC_CFG_PATH: dir, ORDERER_OPERATIONS_LISTENADDRESS: '127.0.0.1:0', ORDERER_OPERATIONS_TLS_ENABLED: '' });
    expect(app.address).toMatch(/^127\.0\.0\.1:\d+$/);
    expect((await send(app.address, '/version')).status).toBe(200);
  });

  it('TLS from ORDERER_OPERATIONS_TLS_* variables, the client CA list written [a, b]', async () => {
    const dir = configDir('Operations:\n  ListenAddress: 127.0.0.1:0\n');
    const app = await start({
      FABRIC_CFG_PATH: dir,
      ORDERER_OPERATIONS_TLS_ENABLED: 'true',
      ORDERER_OPERATIONS_TLS_CERTIFICATE: testPki().server.certFile,
      ORDERER_OPERATIONS_TLS_PRIVATEKEY: testPki().server.keyFile,
      ORDERER_OPERATIONS_TLS_CLIENTROOTCAS: `[${testPki().ca.certFile}, ${testPki().rogueCa.certFile}]`,
    });
    expect((await send(app.address, '/version', { tls: { ca: testPki().ca.cert } })).status).toBe(200);
    // a presented client certificate must chain to a listed CA or the handshake fails: both entries were read
    for (const client of [testPki().clients.good, testPki().clients.rogueCa]) {
      const reply = await send(app.address, '/version', { tls: { ca: testPki().ca.cert, cert: client.cert, key: client.key } });
      expect(reply.status).toBe(200);
    }
  });

  it('uses operations TLS paths as written: a relative path is not joined to the orderer.yaml directory', async () => {
    const dir = configDir('Operations:\n  ListenAddress: 127.0.0.1:0\n  TLS:\n    Enabled: true\n    Certificate: no-such-dir/server.crt\n    PrivateKey: no-such-dir/server.key\n');
    const result = await run({ FABRIC_CFG_PATH: dir }, []);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('open no-such-dir/server.crt: no such file or directory');
    expect(result.stderr).not.toContain(dir);
    // --check-config looks for the files as a start does
    expect(await run({ FABRIC_CFG_PATH: dir }, ['--check-config'])).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'orderer.yaml: Operations.TLS.Certificate: open no-such-dir/server.crt: no such file or directory\n' +
        'orderer.yaml: Operations.TLS.PrivateKey: open no-such-dir/server.key: no such file or directory\n',
    });
    // and a start stops with the same lines
    expect(result.stderr).toBe(
      'orderer.yaml: Operations.TLS.Certificate: open no-such-dir/server.crt: no such file or directory\n' +
        'orderer.yaml: Operations.TLS.PrivateKey: open no-such-dir/server.key: no such file or directory\n',
    );
  });

  it('--print-config prints the effective configuration with each source, and exits 0', async () => {
    const dir = configDir('Operations:\n  ListenAddress: 127.0.0.1:8443\nMetrics:\n  Provider: statsd\n  Statsd:\n    Address: 127.0.0.1:8125\n');
    const result = await run(
      {
        FABRIC_CFG_PATH: dir,
        ORDERER_OPERATIONS_HEALTH_CACHETTL: '60s',
        ORDERER_METRICS_STATSD_WRITEINTERVAL: '1m30s',
        ORDERER_METRICS_STATSD_PREFIX: '',
        ORDERER_OPERATIONS_TLS_CLIENTROOTCAS: '[a.pem, b.pem]',
      },
      ['--print-config'],
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      effectiveConfigPage('orderer', join(dir, 'orderer.yaml'), {
        'Operations.ListenAddress': '"127.0.0.1:8443"  # file',
        'Operations.TLS.ClientRootCAs': '["a.pem", "b.pem"]  # env ORDERER_OPERATIONS_TLS_CLIENTROOTCAS',
        'Operations.Health.CacheTTL': '"1m0s"  # env ORDERER_OPERATIONS_HEALTH_CACHETTL',
        'Metrics.Provider': '"statsd"  # file',
        'Metrics.Statsd.Address': '"127.0.0.1:8125"  # file',
        'Metrics.Statsd.WriteInterval': '"1m30s"  # env ORDERER_METRICS_STATSD_WRITEINTERVAL',
      }),
    );
  });

  it('--check-config prints "configuration OK: <file>" and exits 0', async () => {
    const dir = configDir('Operations:\n  ListenAddress: 127.0.0.1:1\n');
    expect(await run({ FABRIC_CFG_PATH: dir }, ['--check-config'])).toEqual({ code: 0, stdout: `configuration OK: ${join(dir, 'orderer.yaml')}\n`, stderr: '' });
  });

  it('bad values: exit 1 with exactly the problem lines, no stack trace', async () => {
    const dir = configDir('Operations:\n  ListenAddress: 127.0.0.1:0\n  TLS:\n    Enabeld: true\nMetrics:\n  Provider: statsd\n  Statsd:\n    WriteInterval: fast\n');
    const expected = [
      'ORDERER_OPERATIONS_TLS_CLIENTAUTHREQUIRED: expected a boolean, got "yes"',
      'orderer.yaml: Metrics.Statsd.WriteInterval: expected a duration like 30s, got "fast"',
      'orderer.yaml: Operations.TLS.Enabeld: unknown key; did you mean Enabled?; expected one of Enabled, Certificate, PrivateKey, ClientAuthRequired, ClientRootCAs, RootCAs, TLSHandshakeTimeShift, TimeShift',
      '',
    ].join('\n');
    const env = { FABRIC_CFG_PATH: dir, ORDERER_OPERATIONS_TLS_CLIENTAUTHREQUIRED: 'yes' };
    expect(await run(env, [])).toEqual({ code: 1, stdout: '', stderr: expected });
    expect(await run(env, ['--check-config'])).toEqual({ code: 1, stdout: '', stderr: expected });
  });

  it('a bare number for WriteInterval is an error (Go ParseDuration)', async () => {
    const dir = configDir('Metrics:\n  Provider: statsd\n  Statsd:\n    Address: 127.0.0.1:8125\n');
    expect(await run({ FABRIC_CFG_PATH: dir, ORDERER_METRICS_STATSD_WRITEINTERVAL: '30' }, ['--check-config'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'ORDERER_METRICS_STATSD_WRITEINTERVAL: expected a duration like 30s, got "30" (a unit is required: ns, us, ms, s, m or h)\n',
    });
  });

  it('the statsd provider without a statsd section fails at load time', async () => {
    const dir = configDir('Metrics:\n  Provider: statsd\n');
    expect(await run({ FABRIC_CFG_PATH: dir }, [])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'orderer.yaml: Metrics.Statsd: expected a statsd section (network, address, write interval) when Metrics.Provider is statsd\n',
    });
  });

  it('an unknown flag is one line and exit 2', async () => {
    expect(await run({}, ['--config'])).toEqual({ code: 2, stdout: '', stderr: 'fabric-ops-orderer: --config needs a file path: --config <file> (see --help)\n' });
    expect(await run({}, ['--nope'])).toEqual({ code: 2, stdout: '', stderr: 'fabric-ops-orderer: unknown flag "--nope" (see --help)\n' });
  });
});
