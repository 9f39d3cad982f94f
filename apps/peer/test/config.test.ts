import { copyFileSync, mkdirSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { effectiveConfigPage, send, useAppHarness, useTestPki } from '@fabric-ops/test-kit';
import { describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../dist/bin.cjs', import.meta.url));

const { configDir, emptyDir, start, run } = useAppHarness(BIN, 'core.yaml');
const testPki = useTestPki();

describe('peer configuration through the bin', () => {
  it('environment overrides take effect: CORE_OPERATIONS_LISTENADDRESS, and an empty CORE_VM_ENDPOINT drops the docker check', async () => {
    // the file alone could not start (no port) and would fail /healthz (no docker daemon at that socket)
    const dir = configDir('operations:\n  listenAddress: 127.0.0.1\nvm:\n  endpoint: unix:///nonexistent/docker.sock\n');
    const app = await start({ FABRIC_CFG_PATH: dir, CORE_OPERATIONS_LISTENADDRESS: '127.0.0.1:0', CORE_VM_ENDPOINT: '' });
    expect(app.address).toMatch(/^127\.0\.0\.1:\d+$/);
    const health = await send(app.address, '/healthz');
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body)).toMatchObject({ status: 'OK' });
  });

  it('logs a warning for a misspelt key, which Fabric would silently ignore', async () => {
    const dir = configDir('vm:\n  endpoint: ""\noperations:\n  listenAddress: 127.0.0.1:0\n  tls:\n    enable: true\n');
    const app = await start({ FABRIC_CFG_PATH: dir });
    expect(app.stdout.some((line) => line.includes('core.yaml: operations.tls.enable: unknown key, ignored; did you mean enabled?'))).toBe(true);
    expect((await send(app.address, '/version')).status).toBe(200);
  });

  it('operations.health.checkTimeout reaches the health checks: a hung docker daemon fails within it, named', async () => {
    const silent = createServer((socket) => socket.on('error', () => {}));
    const socketPath = join(emptyDir(), 'docker.sock');
    await new Promise<void>((resolve) => silent.listen(socketPath, resolve));
    try {
      const dir = configDir(`vm:\n  endpoint: unix://${socketPath}\noperations:\n  listenAddress: 127.0.0.1:0\n  health:\n    checkTimeout: 300ms\n`);
      const app = await start({ FABRIC_CFG_PATH: dir });
      const health = await send(app.address, '/healthz');
      expect(health.status).toBe(503);
      expect(health.body).toContain('health check timed out after 300ms');
    } finally {
      silent.close();
    }
  });

  it('CORE_OPERATIONS_HEALTH_CACHETTL reuses a result: the daemon is asked once for two requests', async () => {
    let pings = 0;
    const daemon = createHttpServer((_req, res) => {
      pings += 1;
      res.end('OK');
    });
    const socketPath = join(emptyDir(), 'docker.sock');
    await new Promise<void>((resolve) => daemon.listen(socketPath, resolve));
    try {
      const dir = configDir(`vm:\n  endpoint: unix://${socketPath}\noperations:\n  listenAddress: 127.0.0.1:0\n`);
      const app = await start({ FABRIC_CFG_PATH: dir, CORE_OPERATIONS_HEALTH_CACHETTL: '1h' });
      expect((await send(app.address, '/healthz')).status).toBe(200);
      expect((await send(app.address, '/healthz')).status).toBe(200);
      expect(pings).toBe(1);
    } finally {
      daemon.close();
    }
  });

  it('--config <file> wins over FABRIC_CFG_PATH', async () => {
    const dir = configDir('vm:\n  endpoint: ""\noperations:\n  listenAddress: 127.0.0.1:0\n');
    const app = await start({ FABRIC_CFG_PATH: '/nonexistent/fabric-cfg' }, ['--config', join(dir, 'core.yaml')]);
    expect((await send(app.address, '/version')).status).toBe(200);
  });

  it('resolves relative TLS paths against the directory of core.yaml and serves HTTPS with them', async () => {
    const dir = configDir(
      [
        'vm:',
        '  endpoint: ""',
        'operations:',
        '  listenAddress: 127.0.0.1:0',
        '  tls:',
        '    enabled: true',
        '    cert:',
        '      file: tls/server.crt',
        '    key:',
        '      file: tls/server.key',
        '    clientRootCAs:',
        '      files: [tls/ca.crt]',
        '',
      ].join('\n'),
    );
    mkdirSync(join(dir, 'tls'));
    copyFileSync(testPki().server.certFile, join(dir, 'tls', 'server.crt'));
    copyFileSync(testPki().server.keyFile, join(dir, 'tls', 'server.key'));
    copyFileSync(testPki().ca.certFile, join(dir, 'tls', 'ca.crt'));
    const app = await start({ FABRIC_CFG_PATH: dir });
    const reply = await send(app.address, '/version', { tls: { ca: testPki().ca.cert } });
    expect(reply.status).toBe(200);
  });

  it('--print-config prints the effective configuration with each source, and exits 0', async () => {
    const dir = configDir('operations:\n  listenAddress: 127.0.0.1:9443\n  health:\n    checkTimeout: 2s\nmetrics:\n  provider: prometheus\n');
    const result = await run({ FABRIC_CFG_PATH: dir, CORE_METRICS_STATSD_PREFIX: 'org1_peer0', CORE_OPERATIONS_TLS_CLIENTROOTCAS_FILES: 'a.pem /abs/b.pem' }, ['--print-config']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      effectiveConfigPage('peer', join(dir, 'core.yaml'), {
        'operations.listenAddress': '"127.0.0.1:9443"  # file',
        'operations.tls.clientRootCAs.files': `["${join(dir, 'a.pem')}", "/abs/b.pem"]  # env CORE_OPERATIONS_TLS_CLIENTROOTCAS_FILES`,
        'operations.health.checkTimeout': '"2s"  # file',
        'metrics.provider': '"prometheus"  # file',
        'metrics.statsd.prefix': '"org1_peer0"  # env CORE_METRICS_STATSD_PREFIX',
      }),
    );
  });

  it('--check-config prints "configuration OK: <file>" and exits 0 without starting a server', async () => {
    const dir = configDir('operations:\n  listenAddress: 127.0.0.1:1\n');
    const result = await run({ FABRIC_CFG_PATH: dir }, ['--check-config']);
    expect(result).toEqual({ code: 0, stdout: `configuration OK: ${join(dir, 'core.yaml')}\n`, stderr: '' });
  });

  it('bad values: exit 1 with exactly the problem lines, from the file and the environment, no stack trace', async () => {
    const dir = configDir('operations:\n  listenAddress: 127.0.0.1:0\n  tls:\n    enabled: yes\nmetrics:\n  provider: statsd\n');
    const expected = [
      'core.yaml: operations.tls.enabled: expected a boolean, got "yes"',
      'CORE_METRICS_STATSD_WRITEINTERVAL: expected a duration like 10s, got "fast"',
      'CORE_METRICS_STATSD_NETWORK: expected udp or tcp, got "quic"',
      '',
    ].join('\n');
    const env = { FABRIC_CFG_PATH: dir, CORE_METRICS_STATSD_WRITEINTERVAL: 'fast', CORE_METRICS_STATSD_NETWORK: 'quic' };
    expect(await run(env, [])).toEqual({ code: 1, stdout: '', stderr: expected });
    expect(await run(env, ['--check-config'])).toEqual({ code: 1, stdout: '', stderr: expected });
  });

  it('TLS enabled without certificate and key files fails at load time', async () => {
    const dir = configDir('operations:\n  listenAddress: 127.0.0.1:0\n');
    const result = await run({ FABRIC_CFG_PATH: dir, CORE_OPERATIONS_TLS_ENABLED: 'true' }, []);
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'core.yaml: operations.tls.cert.file: expected a PEM certificate file when operations.tls.enabled is true, got ""\n' +
        'core.yaml: operations.tls.key.file: expected a PEM private key file when operations.tls.enabled is true, got ""\n',
    });
  });

  it('names the place searched when the file is missing', async () => {
    const missing = await run({ FABRIC_CFG_PATH: '' }, ['--config', '/nonexistent/core.yaml']);
    expect(missing).toEqual({ code: 1, stdout: '', stderr: '--config /nonexistent/core.yaml: /nonexistent/core.yaml does not exist\n' });
    const empty = emptyDir();
    expect(await run({ FABRIC_CFG_PATH: empty }, [])).toEqual({
      code: 1,
      stdout: '',
      stderr: `core.yaml not found; searched ${join(empty, 'core.yaml')} (from FABRIC_CFG_PATH)\n`,
    });
  });

  it('an unknown flag is one line and exit 2; --help exits 0', async () => {
    expect(await run({}, ['--verbose'])).toEqual({ code: 2, stdout: '', stderr: 'fabric-ops-peer: unknown flag "--verbose" (see --help)\n' });
    const help = await run({}, ['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('usage: fabric-ops-peer [--config <file>] [--print-config | --check-config]');
  });
});
