import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from './errors.ts';
import { loadOrdererConfig, loadPeerConfig, parseConfigText, type OrdererConfig, type PeerConfig } from './load.ts';
import { locateConfigFile } from './locate.ts';
import { problemsOf } from './test-problems.ts';

const FIXTURES = new URL('../../test/fixtures/', import.meta.url);
const CORE_YAML = readFileSync(new URL('core.yaml', FIXTURES), 'utf8');
const ORDERER_YAML = readFileSync(new URL('orderer.yaml', FIXTURES), 'utf8');

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ops-config-'));
  made.push(dir);
  return dir;
}

function dirWith(name: string, text: string): string {
  const dir = tempDir();
  writeFileSync(join(dir, name), text);
  return dir;
}

const peer = (text: string, env: NodeJS.ProcessEnv = {}) => parseConfigText('peer', text, { file: '/srv/fabric/core.yaml', env });
const orderer = (text: string, env: NodeJS.ProcessEnv = {}) => parseConfigText('orderer', text, { file: '/srv/fabric/orderer.yaml', env });

describe("Fabric's full sample files", () => {
  it('loads a complete core.yaml as it is, reading only operations, metrics and vm.endpoint', () => {
    const loaded = peer(CORE_YAML);
    expect(loaded.config).toEqual({
      operations: {
        listenAddress: { host: '127.0.0.1', port: 9443 },
        tls: { enabled: false, certFile: '', keyFile: '', clientAuthRequired: false, clientRootCAs: [] },
        health: { checkTimeoutMs: 5_000, cacheTtlMs: 0, backgroundIntervalMs: 0 },
      },
      metrics: { provider: 'disabled' },
      vm: { endpoint: { kind: 'unix', socketPath: '/var/run/docker.sock' } },
    });
    expect(loaded.app).toBe('peer');
    expect(loaded.warnings).toEqual([]);
    expect(loaded.sources['operations.listenAddress']).toEqual({ from: 'file' });
    // written with no value: the sample default, marked as such
    expect(loaded.sources['operations.tls.cert.file']).toEqual({ from: 'default' });
    expect(loaded.sources['metrics.statsd.prefix']).toEqual({ from: 'default' });
  });

  it('loads a complete orderer.yaml as it is, reading only Operations and Metrics', () => {
    const loaded = orderer(ORDERER_YAML);
    expect(loaded.config).toEqual({
      operations: {
        listenAddress: { host: '127.0.0.1', port: 8443 },
        tls: { enabled: false, certFile: '', keyFile: '', clientAuthRequired: false, clientRootCAs: [] },
        health: { checkTimeoutMs: 5_000, cacheTtlMs: 0, backgroundIntervalMs: 0 },
      },
      metrics: { provider: 'disabled' },
    });
    expect(loaded.app).toBe('orderer');
    expect(loaded.sources['Metrics.Statsd.WriteInterval']).toEqual({ from: 'file' });
  });

  it("loads the apps' shipped samples", () => {
    const peerSample = readFileSync(new URL('../../../../apps/peer/sampleconfig/core.yaml', import.meta.url), 'utf8');
    const ordererSample = readFileSync(new URL('../../../../apps/orderer/sampleconfig/orderer.yaml', import.meta.url), 'utf8');
    expect(peer(peerSample).config).toEqual(peer(CORE_YAML).config);
    expect(orderer(ordererSample).config).toEqual(orderer(ORDERER_YAML).config);
  });

  it('gives the sample defaults for an empty file, every source "default"', () => {
    const p = peer('');
    expect(p.config).toEqual(peer(CORE_YAML).config);
    expect(Object.values(p.sources).every((source) => source.from === 'default')).toBe(true);
    expect(Object.keys(p.sources)).toHaveLength(20);
    const o = orderer('# nothing but a comment\n');
    expect(o.config).toEqual(orderer(ORDERER_YAML).config);
    expect(Object.keys(o.sources)).toHaveLength(19);
  });

  it('loads a production-style file: TLS on, statsd, relative paths', () => {
    const text = CORE_YAML.replace(
      /operations:[\s\S]*$/,
      [
        'operations:',
        '  listenAddress: 0.0.0.0:9443',
        '  tls:',
        '    enabled: true',
        '    cert:',
        '      file: tls/ops.crt',
        '    key:',
        '      file: /etc/keys/ops.key',
        '    clientAuthRequired: true',
        '    clientRootCAs:',
        '      files:',
        '        - tls/ops-ca.crt',
        '        - /etc/ca/second.pem',
        'metrics:',
        '  provider: statsd',
        '  statsd:',
        '    network: tcp',
        '    address: statsd.example.com:8125',
        '    writeInterval: 1m30s',
        '    prefix: org1_peer0',
        '',
      ].join('\n'),
    );
    expect(peer(text).config).toEqual({
      operations: {
        listenAddress: { host: '0.0.0.0', port: 9443 },
        tls: {
          enabled: true,
          certFile: '/srv/fabric/tls/ops.crt',
          keyFile: '/etc/keys/ops.key',
          clientAuthRequired: true,
          clientRootCAs: ['/srv/fabric/tls/ops-ca.crt', '/etc/ca/second.pem'],
        },
        health: { checkTimeoutMs: 5_000, cacheTtlMs: 0, backgroundIntervalMs: 0 },
      },
      metrics: { provider: 'statsd', statsd: { network: 'tcp', host: 'statsd.example.com', port: 8125, writeIntervalMs: 90_000, prefix: 'org1_peer0' } },
      vm: { endpoint: { kind: 'unix', socketPath: '/var/run/docker.sock' } },
    });
  });
});

describe('values as Fabric reads them', () => {
  it('matches keys without regard to case, as viper does', () => {
    const loaded = peer('OPERATIONS:\n  ListenAddress: 127.0.0.1:1\n  TLS:\n    ClientAuthREQUIRED: true\n');
    expect(loaded.config.operations.listenAddress).toEqual({ host: '127.0.0.1', port: 1 });
    expect(loaded.config.operations.tls.clientAuthRequired).toBe(true);
    expect(orderer('operations:\n  listenaddress: 127.0.0.1:2\n').config.operations.listenAddress).toEqual({ host: '127.0.0.1', port: 2 });
  });

  it('reads booleans with Go ParseBool, including quoted text and 0/1', () => {
    expect(peer('operations:\n  tls:\n    clientAuthRequired: "T"\n').config.operations.tls.clientAuthRequired).toBe(true);
    expect(peer('operations:\n  tls:\n    clientAuthRequired: 1\n').config.operations.tls.clientAuthRequired).toBe(true);
    expect(orderer('Operations:\n  TLS:\n    ClientAuthRequired: "FALSE"\n').config.operations.tls.clientAuthRequired).toBe(false);
  });

  it('reads durations as Go writes them into writeIntervalMs', () => {
    const interval = (text: string) => peer(`metrics:\n  provider: statsd\n  statsd:\n    writeInterval: ${text}\n`).config.metrics.statsd?.writeIntervalMs;
    expect(interval('10s')).toBe(10_000);
    expect(interval('1m30s')).toBe(90_000);
    expect(interval('250ms')).toBe(250);
    // cast.ToDuration: a bare number is nanoseconds
    expect(interval('1500000000')).toBe(1_500);
    expect(orderer('Metrics:\n  Provider: statsd\n  Statsd:\n    WriteInterval: 2h\n').config.metrics.statsd?.writeIntervalMs).toBe(7_200_000);
  });

  it('takes an empty statsd section as the sample values', () => {
    expect(peer('metrics:\n  provider: statsd\n  statsd: {}\n').config.metrics.statsd).toEqual({ network: 'udp', host: '127.0.0.1', port: 8125, writeIntervalMs: 10_000, prefix: '' });
  });

  it('turns scalar strings into text as viper does', () => {
    expect(peer('metrics:\n  provider: statsd\n  statsd:\n    prefix: 123\n').config.metrics.statsd?.prefix).toBe('123');
  });

  it('reads a peer client CA list written as one string with strings.Fields', () => {
    expect(peer('operations:\n  tls:\n    clientRootCAs:\n      files: "/a.pem /b.pem"\n').config.operations.tls.clientRootCAs).toEqual(['/a.pem', '/b.pem']);
  });

  it('resolves relative peer TLS paths against the directory of core.yaml, keeping absolute and empty ones', () => {
    const loaded = parseConfigText('peer', 'operations:\n  tls:\n    cert:\n      file: ./a/../cert.pem\n    key:\n      file: /abs/key.pem\n    clientRootCAs:\n      files: [ca.pem]\n', {
      file: '/opt/peer/config/core.yaml',
      env: { CORE_OPERATIONS_TLS_KEY_FILE: 'keys/k.pem' },
    });
    expect(loaded.config.operations.tls.certFile).toBe('/opt/peer/config/cert.pem');
    expect(loaded.config.operations.tls.keyFile).toBe('/opt/peer/config/keys/k.pem');
    expect(loaded.config.operations.tls.clientRootCAs).toEqual(['/opt/peer/config/ca.pem']);
    expect(peer('').config.operations.tls.certFile).toBe('');
  });

  it('uses orderer operations TLS paths exactly as written', () => {
    const loaded = orderer('Operations:\n  TLS:\n    Certificate: tls/cert.pem\n    PrivateKey: ./key.pem\n    ClientRootCAs: [ca.pem, ../up.pem]\n');
    expect(loaded.config.operations.tls).toMatchObject({ certFile: 'tls/cert.pem', keyFile: './key.pem', clientRootCAs: ['ca.pem', '../up.pem'] });
  });

  it('accepts the TLS keys Fabric ignores for operations in orderer.yaml', () => {
    expect(() => orderer('Operations:\n  TLS:\n    RootCAs: [a.pem]\n    TLSHandshakeTimeShift: 0s\n')).not.toThrow();
  });
});

const PEER_BASE = [
  'operations:',
  '  listenAddress: 127.0.0.1:9443',
  '  tls:',
  '    enabled: true',
  '    cert: { file: file/cert.pem }',
  '    key: { file: file/key.pem }',
  '    clientAuthRequired: false',
  '    clientRootCAs: { files: [file/ca.pem] }',
  '  health: { checkTimeout: 3s, cacheTTL: 0s, checkInterval: 0s }',
  'metrics:',
  '  provider: statsd',
  '  statsd: { network: udp, address: 127.0.0.1:8125, writeInterval: 10s, prefix: file }',
  'vm:',
  '  endpoint: unix:///var/run/docker.sock',
  '',
].join('\n');

const ORDERER_BASE = [
  'Operations:',
  '  ListenAddress: 127.0.0.1:8443',
  '  TLS:',
  '    Enabled: true',
  '    Certificate: file/cert.pem',
  '    PrivateKey: file/key.pem',
  '    ClientAuthRequired: false',
  '    ClientRootCAs: [file/ca.pem]',
  '  Health: { CheckTimeout: 3s, CacheTTL: 0s, CheckInterval: 0s }',
  'Metrics:',
  '  Provider: statsd',
  '  Statsd: { Network: udp, Address: 127.0.0.1:8125, WriteInterval: 30s, Prefix: file }',
  '  OTLP: { Enabled: false, Endpoint: "http://file:4318/v1/metrics", Headers: "", Timeout: 5s, Interval: 30s }',
  '',
].join('\n');

type Pick = (config: PeerConfig | OrdererConfig) => unknown;

const peerMatrix: [string, string, Pick, unknown][] = [
  ['CORE_OPERATIONS_LISTENADDRESS', '[::1]:19443', (c) => c.operations.listenAddress, { host: '::1', port: 19443 }],
  ['CORE_OPERATIONS_TLS_ENABLED', 'f', (c) => c.operations.tls.enabled, false],
  ['CORE_OPERATIONS_TLS_CERT_FILE', 'env/cert.pem', (c) => c.operations.tls.certFile, '/srv/fabric/env/cert.pem'],
  ['CORE_OPERATIONS_TLS_KEY_FILE', '/abs/key.pem', (c) => c.operations.tls.keyFile, '/abs/key.pem'],
  ['CORE_OPERATIONS_TLS_CLIENTAUTHREQUIRED', 'TRUE', (c) => c.operations.tls.clientAuthRequired, true],
  ['CORE_OPERATIONS_TLS_CLIENTROOTCAS_FILES', ' one.pem\t/abs/two.pem  ', (c) => c.operations.tls.clientRootCAs, ['/srv/fabric/one.pem', '/abs/two.pem']],
  ['CORE_METRICS_PROVIDER', 'prometheus', (c) => c.metrics.provider, 'prometheus'],
  ['CORE_METRICS_STATSD_NETWORK', 'tcp', (c) => c.metrics.statsd?.network, 'tcp'],
  ['CORE_METRICS_STATSD_ADDRESS', 'statsd:9125', (c) => c.metrics.statsd && [c.metrics.statsd.host, c.metrics.statsd.port], ['statsd', 9125]],
  ['CORE_METRICS_STATSD_WRITEINTERVAL', '250ms', (c) => c.metrics.statsd?.writeIntervalMs, 250],
  ['CORE_METRICS_STATSD_PREFIX', 'org1_peer0', (c) => c.metrics.statsd?.prefix, 'org1_peer0'],
  ['CORE_OPERATIONS_HEALTH_CHECKTIMEOUT', '2s', (c) => c.operations.health.checkTimeoutMs, 2_000],
  ['CORE_OPERATIONS_HEALTH_CACHETTL', '1500000000', (c) => c.operations.health.cacheTtlMs, 1_500],
  ['CORE_OPERATIONS_HEALTH_CHECKINTERVAL', '15s', (c) => c.operations.health.backgroundIntervalMs, 15_000],
  ['CORE_VM_ENDPOINT', 'tcp://docker:2375', (c) => ('vm' in c ? c.vm.endpoint : undefined), { kind: 'tcp', host: 'docker', port: 2375 }],
];

const ordererMatrix: [string, string, Pick, unknown][] = [
  ['ORDERER_OPERATIONS_LISTENADDRESS', '0.0.0.0:18443', (c) => c.operations.listenAddress, { host: '0.0.0.0', port: 18443 }],
  ['ORDERER_OPERATIONS_TLS_ENABLED', 'false', (c) => c.operations.tls.enabled, false],
  ['ORDERER_OPERATIONS_TLS_CERTIFICATE', 'env/cert.pem', (c) => c.operations.tls.certFile, 'env/cert.pem'],
  ['ORDERER_OPERATIONS_TLS_PRIVATEKEY', 'env/key.pem', (c) => c.operations.tls.keyFile, 'env/key.pem'],
  ['ORDERER_OPERATIONS_TLS_CLIENTAUTHREQUIRED', '1', (c) => c.operations.tls.clientAuthRequired, true],
  ['ORDERER_OPERATIONS_TLS_CLIENTROOTCAS', '[one.pem, /abs/two.pem]', (c) => c.operations.tls.clientRootCAs, ['one.pem', '/abs/two.pem']],
  ['ORDERER_METRICS_PROVIDER', 'disabled', (c) => c.metrics.provider, 'disabled'],
  ['ORDERER_METRICS_STATSD_NETWORK', 'tcp', (c) => c.metrics.statsd?.network, 'tcp'],
  ['ORDERER_METRICS_STATSD_ADDRESS', ':9125', (c) => c.metrics.statsd && [c.metrics.statsd.host, c.metrics.statsd.port], ['127.0.0.1', 9125]],
  ['ORDERER_METRICS_STATSD_WRITEINTERVAL', '1m30s', (c) => c.metrics.statsd?.writeIntervalMs, 90_000],
  ['ORDERER_METRICS_STATSD_PREFIX', 'orderer1', (c) => c.metrics.statsd?.prefix, 'orderer1'],
  ['ORDERER_OPERATIONS_HEALTH_CHECKTIMEOUT', '750ms', (c) => c.operations.health.checkTimeoutMs, 750],
  ['ORDERER_OPERATIONS_HEALTH_CACHETTL', '1m', (c) => c.operations.health.cacheTtlMs, 60_000],
  ['ORDERER_OPERATIONS_HEALTH_CHECKINTERVAL', '30s', (c) => c.operations.health.backgroundIntervalMs, 30_000],
];

describe('environment override matrix', () => {
  // The OTLP keys take effect only with the push on and the prometheus provider: their matrix is in otlp.test.ts.
  const withoutOtlp = (keys: string[]) => keys.filter((key) => !key.toLowerCase().startsWith('metrics.otlp.'));
  it('covers every key of both files', () => {
    expect(peerMatrix.map(([name]) => name).sort()).toEqual(
      withoutOtlp(Object.keys(peer('').sources))
        .map((key) => `CORE_${key.replaceAll('.', '_').toUpperCase()}`)
        .sort(),
    );
    expect(ordererMatrix.map(([name]) => name).sort()).toEqual(
      withoutOtlp(Object.keys(orderer('').sources))
        .map((key) => `ORDERER_${key.replaceAll('.', '_').toUpperCase()}`)
        .sort(),
    );
  });

  it.each(peerMatrix)('peer: %s=%j overrides its key and only that key', (name, value, pick, expected) => {
    const before = peer(PEER_BASE);
    const after = peer(PEER_BASE, { [name]: value });
    expect(pick(after.config)).toEqual(expected);
    expect(pick(before.config)).not.toEqual(expected);
    const changed = Object.entries(after.sources).filter(([, source]) => source.from === 'env');
    expect(changed).toEqual([[expect.any(String), { from: 'env', variable: name }]]);
  });

  it.each(ordererMatrix)('orderer: %s=%j overrides its key and only that key', (name, value, pick, expected) => {
    const before = orderer(ORDERER_BASE);
    const after = orderer(ORDERER_BASE, { [name]: value });
    expect(pick(after.config)).toEqual(expected);
    expect(pick(before.config)).not.toEqual(expected);
    const changed = Object.entries(after.sources).filter(([, source]) => source.from === 'env');
    expect(changed).toEqual([[expect.any(String), { from: 'env', variable: name }]]);
  });

  it('applies an override for a key the file does not have', () => {
    expect(peer('metrics:\n  provider: statsd\n  statsd: {}\n', { CORE_METRICS_STATSD_PREFIX: 'p' }).config.metrics.statsd?.prefix).toBe('p');
    expect(orderer('Metrics:\n  Provider: statsd\n  Statsd: {}\n', { ORDERER_METRICS_STATSD_PREFIX: 'o' }).config.metrics.statsd?.prefix).toBe('o');
  });

  it('peer: an empty variable counts, giving the empty value of its type', () => {
    const loaded = peer(PEER_BASE, {
      CORE_OPERATIONS_LISTENADDRESS: '',
      CORE_OPERATIONS_TLS_ENABLED: '',
      CORE_OPERATIONS_TLS_CLIENTROOTCAS_FILES: '',
      CORE_METRICS_STATSD_PREFIX: '',
      CORE_VM_ENDPOINT: '',
    });
    expect(loaded.config.operations.listenAddress).toEqual({ host: '', port: 0 });
    expect(loaded.config.operations.tls.enabled).toBe(false);
    expect(loaded.config.operations.tls.clientRootCAs).toEqual([]);
    expect(loaded.config.metrics.statsd?.prefix).toBe('');
    expect(loaded.config.vm.endpoint).toBeUndefined();
    expect(loaded.sources['vm.endpoint']).toEqual({ from: 'env', variable: 'CORE_VM_ENDPOINT' });
  });

  it('orderer: empty variables are ignored for every key', () => {
    const env = Object.fromEntries(ordererMatrix.map(([name]) => [name, '']));
    const loaded = orderer(ORDERER_BASE, env);
    expect(loaded.config).toEqual(orderer(ORDERER_BASE).config);
    expect(Object.values(loaded.sources).every((source) => source.from === 'file')).toBe(true);
  });

  it('peer: [a,b] is one path, not a list (strings.Fields)', () => {
    expect(peer('', { CORE_OPERATIONS_TLS_CLIENTROOTCAS_FILES: '[/a,/b]' }).config.operations.tls.clientRootCAs).toEqual(['/srv/fabric/[/a,/b]']);
  });

  it('peer: a bare number in the environment is nanoseconds', () => {
    expect(peer('metrics:\n  provider: statsd\n  statsd: {}\n', { CORE_METRICS_STATSD_WRITEINTERVAL: '2000000' }).config.metrics.statsd?.writeIntervalMs).toBe(2);
  });
});

describe('problems: one line each, naming file or variable, key and expectation', () => {
  it.each([
    ['peer', 'operations:\n  tls:\n    enabled: yes\n', {}, ['core.yaml: operations.tls.enabled: expected a boolean, got "yes"']],
    ['peer', '', { CORE_OPERATIONS_TLS_ENABLED: 'yes' }, ['CORE_OPERATIONS_TLS_ENABLED: expected a boolean, got "yes"']],
    ['peer', 'operations:\n  tls:\n    clientAuthRequired: 2\n', {}, ['core.yaml: operations.tls.clientAuthRequired: expected a boolean, got 2']],
    ['orderer', 'Metrics:\n  Statsd:\n    WriteInterval: fast\n', {}, ['orderer.yaml: Metrics.Statsd.WriteInterval: expected a duration like 30s, got "fast"']],
    ['orderer', 'Metrics:\n  Statsd:\n    WriteInterval: 30\n', {}, ['orderer.yaml: Metrics.Statsd.WriteInterval: expected a duration like 30s, got 30 (a unit is required: ns, us, ms, s, m or h)']],
    ['orderer', '', { ORDERER_METRICS_STATSD_WRITEINTERVAL: '30' }, ['ORDERER_METRICS_STATSD_WRITEINTERVAL: expected a duration like 30s, got "30" (a unit is required: ns, us, ms, s, m or h)']],
    ['orderer', '', { ORDERER_OPERATIONS_TLS_ENABLED: 'on' }, ['ORDERER_OPERATIONS_TLS_ENABLED: expected a boolean, got "on"']],
    ['peer', 'metrics:\n  statsd:\n    writeInterval: 10 seconds\n', {}, ['core.yaml: metrics.statsd.writeInterval: expected a duration like 10s, got "10 seconds"']],
    ['peer', 'operations:\n  listenAddress:\n    host: 127.0.0.1\n', {}, ['core.yaml: operations.listenAddress: expected a string, got a mapping']],
    ['peer', 'vm:\n  endpoint: [a, b]\n', {}, ['core.yaml: vm.endpoint: expected a string, got a list']],
    [
      'peer',
      'operations:\n  tls:\n    clientRootCAs:\n      files: [ok.pem, {x: 1}, ""]\n',
      {},
      ['core.yaml: operations.tls.clientRootCAs.files[1]: expected a file path, got a mapping', 'core.yaml: operations.tls.clientRootCAs.files[2]: expected a file path, got ""'],
    ],
    ['orderer', 'Operations:\n  TLS:\n    ClientRootCAs: 5\n', {}, ['orderer.yaml: Operations.TLS.ClientRootCAs: expected a list of file paths, got 5']],
    ['peer', 'operations: on\n', {}, ['core.yaml: operations: expected a mapping, got "on"']],
    ['peer', '- a\n- b\n', {}, ['core.yaml: expected a mapping, got a list']],
    ['orderer', 'plain text\n', {}, ['orderer.yaml: expected a mapping, got "plain text"']],
    ['orderer', 'Metrics:\n  Statsd: 8125\n', {}, ['orderer.yaml: Metrics.Statsd: expected a mapping, got 8125']],
    ['orderer', 'Metrics:\n  Provider: statsd\n  Statsd: 8125\n', {}, ['orderer.yaml: Metrics.Statsd: expected a mapping, got 8125']],
    [
      'orderer',
      'Operations:\n  TLS:\n    Enabeld: true\n',
      {},
      [
        'orderer.yaml: Operations.TLS.Enabeld: unknown key; did you mean Enabled?; expected one of Enabled, Certificate, PrivateKey, ClientAuthRequired, ClientRootCAs, RootCAs, TLSHandshakeTimeShift, TimeShift',
      ],
    ],
    [
      'peer',
      'operations:\n  tls:\n    enabled: true\n',
      {},
      [
        'core.yaml: operations.tls.cert.file: expected a PEM certificate file when operations.tls.enabled is true, got ""',
        'core.yaml: operations.tls.key.file: expected a PEM private key file when operations.tls.enabled is true, got ""',
      ],
    ],
    [
      'orderer',
      'Operations:\n  TLS:\n    Enabled: true\n    Certificate: c.pem\n',
      {},
      ['orderer.yaml: Operations.TLS.PrivateKey: expected a PEM private key file when Operations.TLS.Enabled is true, got ""'],
    ],
    [
      'peer',
      'operations:\n  tls:\n    cert: {file: c.pem}\n    key: {file: k.pem}\n',
      { CORE_OPERATIONS_TLS_ENABLED: 'true', CORE_OPERATIONS_TLS_CERT_FILE: '' },
      ['CORE_OPERATIONS_TLS_CERT_FILE: expected a PEM certificate file when operations.tls.enabled is true, got ""'],
    ],
    ['peer', 'metrics:\n  provider: statsd\n', {}, ['core.yaml: metrics.statsd: expected a statsd section (network, address, write interval) when metrics.provider is statsd']],
    [
      'orderer',
      'Metrics:\n  Provider: prometheus\n',
      { ORDERER_METRICS_PROVIDER: 'statsd' },
      ['orderer.yaml: Metrics.Statsd: expected a statsd section (network, address, write interval) when Metrics.Provider is statsd'],
    ],
    [
      'peer',
      'metrics:\n  provider: statsd\n  statsd:\n    network: http\n    address: ""\n    writeInterval: 0s\n',
      {},
      [
        'core.yaml: metrics.statsd.network: expected udp or tcp, got "http"',
        'core.yaml: metrics.statsd.address: expected a host:port address when metrics.provider is statsd, got "" (missing port in address)',
        'core.yaml: metrics.statsd.writeInterval: expected a duration of at least 1ms like 10s when metrics.provider is statsd, got "0s"',
      ],
    ],
    ['peer', 'operations:\n  listenAddress: 127.0.0.1\n', {}, ['core.yaml: operations.listenAddress: expected host:port, got "127.0.0.1" (missing port in address)']],
    ['orderer', '', { ORDERER_OPERATIONS_LISTENADDRESS: '[::1:80' }, ['ORDERER_OPERATIONS_LISTENADDRESS: expected host:port, got "[::1:80" (missing \']\' in address)']],
    ['peer', 'operations:\n  listenAddress: 127.0.0.1:99999\n', {}, ['core.yaml: operations.listenAddress: expected host:port, got "127.0.0.1:99999" (invalid port)']],
    [
      'peer',
      'vm:\n  endpoint: docker.sock\n',
      {},
      ['core.yaml: vm.endpoint: expected unix:///path/to/docker.sock or tcp://host:port (or "" for no docker health check), got "docker.sock" (no scheme)'],
    ],
    [
      'peer',
      '',
      { CORE_VM_ENDPOINT: 'unix://docker.sock' },
      ['CORE_VM_ENDPOINT: expected unix:///path/to/docker.sock or tcp://host:port (or "" for no docker health check), got "unix://docker.sock" (the socket path must be absolute)'],
    ],
    [
      'peer',
      'metrics:\n  provider: statsd\n  statsd:\n    address: statsd\n',
      {},
      ['core.yaml: metrics.statsd.address: expected a host:port address when metrics.provider is statsd, got "statsd" (missing port in address)'],
    ],
    [
      'peer',
      'operations:\n  health:\n    checkTimeout: 0s\n    cacheTTL: -1s\n    checkInterval: -5s\n',
      {},
      [
        'core.yaml: operations.health.checkTimeout: expected a duration of at least 1ms like 10s, got "0s"',
        'core.yaml: operations.health.cacheTTL: expected a duration of 0s (off) or more like 10s, got "-1s"',
        'core.yaml: operations.health.checkInterval: expected a duration of 0s (off) or more like 10s, got "-5s"',
      ],
    ],
    ['orderer', '', { ORDERER_OPERATIONS_HEALTH_CHECKTIMEOUT: '5' }, ['ORDERER_OPERATIONS_HEALTH_CHECKTIMEOUT: expected a duration like 30s, got "5" (a unit is required: ns, us, ms, s, m or h)']],
    [
      'peer',
      'metrics:\n  provider: statsd\n  statsd:\n    writeInterval: 10\n',
      {},
      ['core.yaml: metrics.statsd.writeInterval: expected a duration of at least 1ms like 10s when metrics.provider is statsd, got "10ns" (a bare number means nanoseconds)'],
    ],
    [
      'orderer',
      'Metrics:\n  Provider: statsd\n  Statsd:\n    WriteInterval: -5s\n',
      {},
      ['orderer.yaml: Metrics.Statsd.WriteInterval: expected a duration of at least 1ms like 30s when Metrics.Provider is statsd, got "-5s"'],
    ],
    [
      'peer',
      'metrics:\n  provider: statsd\n  statsd:\n    writeInterval: 1000h\n',
      {},
      ['core.yaml: metrics.statsd.writeInterval: expected a duration of at most 596h (the longest timer Node.js keeps) when metrics.provider is statsd, got "1000h"'],
    ],
    ['peer', 'a: [unclosed\n', {}, ['core.yaml: not valid YAML: Flow sequence in block collection must be sufficiently indented and end with a ] at line 2, column 1']],
    ['peer', 'operations:\n  listenAddress: a\n  listenAddress: b\n', {}, ['core.yaml: not valid YAML: Map keys must be unique at line 3, column 3']],
  ] as const)('%s %j %j', (app, text, env, expected) => {
    const lines = problemsOf(() => (app === 'peer' ? peer(text, env) : orderer(text, env)));
    expect(lines).toEqual(expected);
  });

  it('a mapping or a list as a key is a problem, not text with a warning from Node', () => {
    const warned: string[] = [];
    const onWarning = (warning: Error) => void warned.push(warning.message);
    process.on('warning', onWarning);
    try {
      expect(problemsOf(() => peer('operations:\n  listenAddress: 127.0.0.1:1\n? [a, b]\n: 1\n', {}))).toEqual([
        'core.yaml: not valid YAML: a key must be a scalar (text, a number or a boolean), not a mapping or a list at line 3, column 3',
      ]);
      expect(problemsOf(() => orderer('Operations:\n  {x: 1}: 2\n', {}))).toEqual([
        'orderer.yaml: not valid YAML: a key must be a scalar (text, a number or a boolean), not a mapping or a list at line 2, column 3',
      ]);
    } finally {
      process.off('warning', onWarning);
    }
    expect(warned).toEqual([]);
  });

  it('reports every problem of a file together, in key order', () => {
    const text = 'operations:\n  listenAddress: [1]\n  tls:\n    enabled: yes\nmetrics:\n  provider: statsd\n  statsd:\n    writeInterval: soon\n    network: quic\n';
    expect(problemsOf(() => peer(text, { CORE_OPERATIONS_TLS_CLIENTAUTHREQUIRED: 'maybe' }))).toEqual([
      'core.yaml: operations.listenAddress: expected a string, got a list',
      'core.yaml: operations.tls.enabled: expected a boolean, got "yes"',
      'CORE_OPERATIONS_TLS_CLIENTAUTHREQUIRED: expected a boolean, got "maybe"',
      'core.yaml: metrics.statsd.writeInterval: expected a duration like 10s, got "soon"',
      'core.yaml: metrics.statsd.network: expected udp or tcp, got "quic"',
    ]);
  });

  it('names the file the operator gave, not a fixed name', () => {
    const lines = problemsOf(() => parseConfigText('peer', 'operations:\n  tls:\n    enabled: nope\n', { file: '/x/peer1.yaml', env: {} }));
    expect(lines).toEqual(['peer1.yaml: operations.tls.enabled: expected a boolean, got "nope"']);
  });

  it('keeps every line on one line, even for hostile values', () => {
    const lines = problemsOf(() => peer('operations:\n  tls:\n    enabled: "a\\nb\\u2028c"\n  "x\\ny": 1\n'));
    expect(lines).toEqual(['core.yaml: operations.tls.enabled: expected a boolean, got "a\\nb\u2028c"']);
    const long = problemsOf(() => peer(`operations:\n  tls:\n    enabled: "${'z'.repeat(500)}"\n`));
    expect(long[0]!.length).toBeLessThan(160);
  });

  it('throws a ConfigError with code CONFIG_INVALID', () => {
    try {
      peer('operations:\n  tls:\n    enabled: yes\n');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).code).toBe('CONFIG_INVALID');
      expect((error as ConfigError).message).toBe('core.yaml: operations.tls.enabled: expected a boolean, got "yes"');
    }
  });
});

describe('warnings: loads, but probably not what was meant', () => {
  it('names an unknown metrics provider (Fabric disables metrics with a warning)', () => {
    expect(peer('metrics:\n  provider: Prometheus\n').warnings).toEqual(['core.yaml: metrics.provider: Unknown provider type: Prometheus; metrics disabled (expected prometheus, statsd or disabled)']);
    expect(orderer('', { ORDERER_METRICS_PROVIDER: 'graphite' }).warnings).toEqual([
      'ORDERER_METRICS_PROVIDER: Unknown provider type: graphite; metrics disabled (expected prometheus, statsd or disabled)',
    ]);
    // the provider the packages receive: one warning here, none later
    expect(peer('metrics:\n  provider: Prometheus\n').config.metrics).toEqual({ provider: 'disabled' });
  });

  it('names TLS without client CA files (Fabric starts, but every client is refused on secure routes)', () => {
    expect(orderer('Operations:\n  TLS:\n    Enabled: true\n    Certificate: c.pem\n    PrivateKey: k.pem\n').warnings).toEqual([
      'orderer.yaml: Operations.TLS.ClientRootCAs: no client CA files while Operations.TLS.Enabled is true; /logspec and /metrics will refuse every client',
    ]);
    expect(peer('operations:\n  tls:\n    enabled: true\n    cert: {file: c.pem}\n    key: {file: k.pem}\n    clientRootCAs: {files: [ca.pem]}\n').warnings).toEqual([]);
  });

  it('names unknown keys in the peer operations and metrics sections (viper ignores them)', () => {
    const loaded = peer('operations:\n  tls:\n    enable: true\nmetrics:\n  statsd:\n    interval: 5s\n');
    expect(loaded.config.operations.tls.enabled).toBe(false);
    expect(loaded.warnings).toEqual(['core.yaml: operations.tls.enable: unknown key, ignored; did you mean enabled?', 'core.yaml: metrics.statsd.interval: unknown key, ignored']);
  });

  it('names a misspelt top-level section, suggesting the close name; other Fabric sections pass', () => {
    const loaded = peer('operation:\n  listenAddress: 0.0.0.0:1\nMetric:\n  provider: prometheus\npeer: {id: p0}\nledger: {}\nchaincode: {}\nunrelated: 1\n');
    expect(loaded.warnings).toEqual(['core.yaml: operation: unknown section, ignored; did you mean operations?', 'core.yaml: Metric: unknown section, ignored; did you mean metrics?']);
    expect(loaded.config.operations.listenAddress).toEqual({ host: '127.0.0.1', port: 9443 });
    // the orderer refuses unknown keys, as Fabric's orderer does
    expect(problemsOf(() => orderer('Operation:\n  ListenAddress: 0.0.0.0:1\nGeneral: {}\nConsensus: {}\n'))).toEqual(['orderer.yaml: Operation: unknown section; did you mean Operations?']);
  });
});

describe('parsed values', () => {
  it('parses vm.endpoint into the endpoint the docker checker dials', () => {
    const endpoint = (text: string) => peer(`vm:\n  endpoint: ${JSON.stringify(text)}\n`).config.vm.endpoint;
    expect(endpoint('unix:///run/podman/podman.sock')).toEqual({ kind: 'unix', socketPath: '/run/podman/podman.sock' });
    expect(endpoint('tcp://[::1]:2375')).toEqual({ kind: 'tcp', host: '::1', port: 2375 });
    expect(endpoint('http://docker:2375/')).toEqual({ kind: 'tcp', host: 'docker', port: 2375 });
    expect(endpoint('')).toBeUndefined();
    expect(problemsOf(() => endpoint('tcp://docker'))[0]).toContain('(missing port in address)');
    expect(problemsOf(() => endpoint('tcp://docker:2375/v1.41'))[0]).toContain('(only host and port may be given)');
  });

  it('parses the listen address with IPv6 brackets; an empty one means every interface and a free port', () => {
    expect(peer('operations:\n  listenAddress: "[::]:9443"\n').config.operations.listenAddress).toEqual({ host: '::', port: 9443 });
    expect(peer('operations:\n  listenAddress: ":9443"\n').config.operations.listenAddress).toEqual({ host: '', port: 9443 });
    expect(peer('operations:\n  listenAddress: ""\n').config.operations.listenAddress).toEqual({ host: '', port: 0 });
    expect(peer('', { CORE_OPERATIONS_LISTENADDRESS: '' }).config.operations.listenAddress).toEqual({ host: '', port: 0 });
  });

  it('reads the health check timeout and cache lifetime (ours) as Go durations', () => {
    expect(peer('operations:\n  health:\n    checkTimeout: 1m\n    cacheTTL: 1500ms\n').config.operations.health).toEqual({ checkTimeoutMs: 60_000, cacheTtlMs: 1_500, backgroundIntervalMs: 0 });
    expect(orderer('Operations:\n  Health:\n    CheckTimeout: 2s\n    CheckInterval: 10s\n').config.operations.health).toEqual({ checkTimeoutMs: 2_000, cacheTtlMs: 0, backgroundIntervalMs: 10_000 });
    expect(peer('operations:\n  health:\n    checkTimout: 1s\n').warnings).toEqual(['core.yaml: operations.health.checkTimout: unknown key, ignored; did you mean checkTimeout?']);
  });

  it('names each TLS file by what the operator wrote: the variable, or the file and key', () => {
    const loaded = peer('operations:\n  tls:\n    cert: {file: c.pem}\n', { CORE_OPERATIONS_TLS_KEY_FILE: '/k.pem' });
    expect(loaded.tlsLabels).toEqual({
      certFile: 'core.yaml: operations.tls.cert.file',
      keyFile: 'CORE_OPERATIONS_TLS_KEY_FILE',
      clientRootCAs: 'core.yaml: operations.tls.clientRootCAs.files',
    });
    expect(orderer('', { ORDERER_OPERATIONS_TLS_CERTIFICATE: 'c.pem' }).tlsLabels.certFile).toBe('ORDERER_OPERATIONS_TLS_CERTIFICATE');
  });
});

describe('finding the file', () => {
  it('reads $FABRIC_CFG_PATH/core.yaml and records the file', () => {
    const dir = dirWith('core.yaml', 'operations:\n  listenAddress: 127.0.0.1:19443\n');
    const loaded = loadPeerConfig({ env: { FABRIC_CFG_PATH: dir } });
    expect(loaded.file).toBe(join(dir, 'core.yaml'));
    expect(loaded.config.operations.listenAddress).toEqual({ host: '127.0.0.1', port: 19443 });
  });

  it('names FABRIC_CFG_PATH when it does not exist', () => {
    expect(problemsOf(() => loadPeerConfig({ env: { FABRIC_CFG_PATH: '/nonexistent/dir' } }))).toEqual(['FABRIC_CFG_PATH /nonexistent/dir does not exist']);
  });

  it('searches only FABRIC_CFG_PATH when it is set, even with a sample available', () => {
    const dir = tempDir();
    const sample = join(dirWith('orderer.yaml', ''), 'orderer.yaml');
    expect(problemsOf(() => loadOrdererConfig({ env: { FABRIC_CFG_PATH: dir }, sampleFile: sample }))).toEqual([
      `orderer.yaml not found; searched ${join(dir, 'orderer.yaml')} (from FABRIC_CFG_PATH)`,
    ]);
  });

  it('falls back from ./ to the system directory to the shipped sample, in that order', () => {
    const cwd = tempDir();
    const system = tempDir();
    const sample = join(dirWith('core.yaml', 'operations:\n  listenAddress: sample:1\n'), 'core.yaml');
    const options = { env: {}, cwd, systemConfigDir: system, sampleFile: sample };
    expect(loadPeerConfig(options).config.operations.listenAddress).toEqual({ host: 'sample', port: 1 });
    writeFileSync(join(system, 'core.yaml'), 'operations:\n  listenAddress: system:1\n');
    expect(loadPeerConfig(options).config.operations.listenAddress).toEqual({ host: 'system', port: 1 });
    writeFileSync(join(cwd, 'core.yaml'), 'operations:\n  listenAddress: cwd:1\n');
    expect(loadPeerConfig(options).config.operations.listenAddress).toEqual({ host: 'cwd', port: 1 });
  });

  it('lists every place searched when nothing is found', () => {
    const cwd = tempDir();
    const system = tempDir();
    expect(problemsOf(() => loadPeerConfig({ env: {}, cwd, systemConfigDir: system, sampleFile: '/missing/sample/core.yaml' }))).toEqual([
      `core.yaml not found; searched ${join(cwd, 'core.yaml')}, ${join(system, 'core.yaml')}, /missing/sample/core.yaml; set FABRIC_CFG_PATH or pass --config <file>`,
    ]);
  });

  it('lets an explicit file win over FABRIC_CFG_PATH, relative to the working directory', () => {
    const cwd = tempDir();
    mkdirSync(join(cwd, 'conf'));
    writeFileSync(join(cwd, 'conf', 'mine.yaml'), 'Operations:\n  ListenAddress: explicit:1\n');
    const loaded = loadOrdererConfig({ env: { FABRIC_CFG_PATH: '/nonexistent' }, cwd, configFile: 'conf/mine.yaml' });
    expect(loaded.file).toBe(join(cwd, 'conf', 'mine.yaml'));
    expect(loaded.config.operations.listenAddress).toEqual({ host: 'explicit', port: 1 });
    expect(locateConfigFile('orderer.yaml', { cwd, configFile: join(cwd, 'conf', 'mine.yaml') })).toBe(join(cwd, 'conf', 'mine.yaml'));
  });

  it('accepts a directory for --config and names a missing explicit file', () => {
    const dir = dirWith('core.yaml', '');
    expect(locateConfigFile('core.yaml', { configFile: dir })).toBe(join(dir, 'core.yaml'));
    expect(problemsOf(() => loadPeerConfig({ env: {}, cwd: '/tmp', configFile: 'no/such.yaml' }))).toEqual(['--config no/such.yaml: /tmp/no/such.yaml does not exist']);
  });

  it('resolves the peer TLS paths against the directory of the file found', () => {
    const dir = dirWith('core.yaml', 'operations:\n  tls:\n    cert:\n      file: tls/cert.pem\n');
    expect(loadPeerConfig({ env: { FABRIC_CFG_PATH: dir } }).config.operations.tls.certFile).toBe(join(dir, 'tls', 'cert.pem'));
  });

  it('refuses a file too large to be a config file', () => {
    const dir = dirWith('core.yaml', `# ${'x'.repeat(5 * 1024 * 1024)}\n`);
    const lines = problemsOf(() => loadPeerConfig({ env: { FABRIC_CFG_PATH: dir } }));
    expect(lines).toEqual([`core.yaml: cannot be read: read ${join(dir, 'core.yaml')}: larger than 4194304 bytes`]);
  });

  it('--config or FABRIC_CFG_PATH naming a FIFO, /dev/zero or a symlink loop says what it is, at once', () => {
    const dir = tempDir();
    const fifo = join(dir, 'core.yaml');
    execFileSync('mkfifo', [fifo]);
    const loop = join(dir, 'loop.yaml');
    symlinkSync(loop, loop);
    expect(problemsOf(() => loadPeerConfig({ env: {}, configFile: fifo }))).toEqual([`--config ${fifo}: ${fifo} is a named pipe (FIFO), not a regular file`]);
    expect(problemsOf(() => loadPeerConfig({ env: {}, configFile: dir }))).toEqual([`--config ${dir}: ${fifo} is a named pipe (FIFO), not a regular file`]);
    expect(problemsOf(() => loadPeerConfig({ env: {}, configFile: '/dev/zero' }))).toEqual(['--config /dev/zero: /dev/zero is a character device, not a regular file']);
    expect(problemsOf(() => loadPeerConfig({ env: {}, configFile: loop }))).toEqual([`--config ${loop}: ${loop} cannot be read: too many levels of symbolic links`]);
    expect(problemsOf(() => loadPeerConfig({ env: { FABRIC_CFG_PATH: dir } }))).toEqual([`${fifo} (from FABRIC_CFG_PATH) is a named pipe (FIFO), not a regular file`]);
    expect(problemsOf(() => loadPeerConfig({ env: { FABRIC_CFG_PATH: '/dev/zero' } }))).toEqual(['FABRIC_CFG_PATH /dev/zero is a character device, not a regular file']);
    expect(problemsOf(() => loadPeerConfig({ env: { FABRIC_CFG_PATH: loop } }))).toEqual([`FABRIC_CFG_PATH ${loop} cannot be read: too many levels of symbolic links`]);
  });

  it('a /proc file (size 0, not empty) is read whole: its text is judged, not taken as empty', () => {
    // /proc/self/maps is one line of text per mapping, not a mapping of settings: refused for what it holds
    const lines = problemsOf(() => loadPeerConfig({ env: {}, configFile: '/proc/self/maps' }));
    expect(lines).toEqual([expect.stringMatching(/^maps: expected a mapping, got "[0-9a-f]+-[0-9a-f]+ /)]);
  });
});

describe('duplicate keys, checked in time linear in the file', () => {
  /** What yaml's own (quadratic) check reports, as this package words it. */
  function yamlsOwn(text: string): string[] {
    return parseDocument(text, { merge: true, uniqueKeys: true, prettyErrors: true }).errors.map((error) => `core.yaml: not valid YAML: ${error.message.split('\n')[0]!.replace(/:$/, '')}`);
  }

  it.each([
    'a: 1\na: 2\n',
    'a: 1\n"a": 2\n',
    "a: 1\n'a': 2\nb: {x: 1, x: 2}\n",
    '1: a\n"1": b\n',
    '1: a\n1: b\n0x1: c\n',
    'true: a\nTrue: b\n',
    '~: a\nnull: b\n',
    '? a\n: 1\n? a\n: 2\n',
    '!!str a: 1\na: 2\n',
    'x: &k a\ny:\n  *k : 1\n  a: 2\n',
    'base: &b {a: 1}\nm:\n  <<: *b\n  <<: *b\n',
    'l:\n  - {p: 1, p: 2}\n  - [q: 1, q: 2]\n',
    '.nan: a\n.NaN: b\n',
    'a:\n  b: 1\n  c:\n    d: 1\n    d: 2\n  b: 3\n',
    'a: [unclosed\nb: 1\nb: 2\n',
  ])("reports what yaml's own check reports for %j", (text) => {
    const ours = (() => {
      try {
        return [...problemsOf(() => peer(text))];
      } catch {
        return [];
      }
    })();
    const expected = yamlsOwn(text);
    expect(ours.filter((line) => line.includes('not valid YAML'))).toEqual(expected);
  });

  it('a 4 MiB core.yaml, one map of ~160,000 keys with a duplicate near its end, is checked in seconds and the duplicate named', () => {
    const lines = ['operations:\n  listenAddress: 127.0.0.1:9443\nledger:\n'];
    let size = lines[0]!.length;
    for (let index = 0; ; index += 1) {
      const line = `  key${String(index).padStart(7, '0')}: value${index}\n`;
      if (size + line.length > 4 * 1024 * 1024 - 64) break;
      lines.push(line);
      size += line.length;
    }
    lines.push('  key0000001: again\n');
    const dir = dirWith('core.yaml', lines.join(''));
    expect(readFileSync(join(dir, 'core.yaml')).length).toBeGreaterThan(4 * 1024 * 1024 - 100);
    const began = Date.now();
    expect(problemsOf(() => loadPeerConfig({ env: { FABRIC_CFG_PATH: dir } }))).toEqual([`core.yaml: not valid YAML: Map keys must be unique at line ${lines.length + 2}, column 3`]);
    // yaml's own check needed ~15 minutes for this; only a sanity bound, generous for a loaded machine
    expect(Date.now() - began).toBeLessThan(120_000);
  }, 300_000);
});

describe('long values: bounded where Fabric cannot use them, cut where echoed', () => {
  it('a bad duration of 100 KB gives a short line', () => {
    const lines = problemsOf(() => peer('', { CORE_OPERATIONS_HEALTH_CHECKTIMEOUT: '0s'.repeat(50_000) }));
    expect(lines).toEqual([`CORE_OPERATIONS_HEALTH_CHECKTIMEOUT: expected a duration of at least 1ms like 10s, got "${'0s'.repeat(40)}…"`]);
    const unparsable = problemsOf(() => orderer('', { ORDERER_OPERATIONS_HEALTH_CHECKTIMEOUT: 'x'.repeat(100_000) }));
    expect(unparsable).toHaveLength(1);
    expect(unparsable[0]!.length).toBeLessThan(300);
  });

  it('a StatsD prefix over 1024 bytes is refused with its size, one at the bound loads', () => {
    const statsd = 'metrics:\n  provider: statsd\n  statsd:\n    address: 127.0.0.1:8125\n';
    expect(problemsOf(() => peer(statsd, { CORE_METRICS_STATSD_PREFIX: 'p'.repeat(70_000) }))).toEqual([
      `CORE_METRICS_STATSD_PREFIX: expected a prefix of at most 1024 bytes (every StatsD line carries it) when metrics.provider is statsd, got "${'p'.repeat(80)}…" (70000 bytes)`,
    ]);
    expect(problemsOf(() => orderer('Metrics:\n  Provider: statsd\n  Statsd:\n    Address: 127.0.0.1:8125\n', { ORDERER_METRICS_STATSD_PREFIX: 'é'.repeat(513) }))).toEqual([
      `ORDERER_METRICS_STATSD_PREFIX: expected a prefix of at most 1024 bytes (every StatsD line carries it) when Metrics.Provider is statsd, got "${'é'.repeat(80)}…" (1026 bytes)`,
    ]);
    const atBound = peer(statsd, { CORE_METRICS_STATSD_PREFIX: 'p'.repeat(1024) });
    expect(atBound.config.metrics.statsd?.prefix).toHaveLength(1024);
    // not used without StatsD, so not judged
    expect(peer('', { CORE_METRICS_STATSD_PREFIX: 'p'.repeat(70_000) }).config.metrics.provider).toBe('disabled');
  });
});
