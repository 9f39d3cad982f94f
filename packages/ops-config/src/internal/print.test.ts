import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { resolveConfigText } from './load.ts';
import { renderEffectiveConfig } from './print.ts';

const CORE_YAML = readFileSync(new URL('../../test/fixtures/core.yaml', import.meta.url), 'utf8');
const ORDERER_YAML = readFileSync(new URL('../../test/fixtures/orderer.yaml', import.meta.url), 'utf8');

describe('renderEffectiveConfig', () => {
  it('prints the peer configuration in core.yaml layout with each source', () => {
    const loaded = resolveConfigText('peer', CORE_YAML, {
      file: '/etc/hyperledger/fabric/core.yaml',
      env: { CORE_OPERATIONS_TLS_CLIENTROOTCAS_FILES: 'ca/one.pem /abs/two.pem', CORE_METRICS_STATSD_WRITEINTERVAL: '1m30s', CORE_OPERATIONS_HEALTH_CACHETTL: '250ms' },
    });
    expect(renderEffectiveConfig(loaded)).toBe(
      [
        '# effective peer configuration, read from /etc/hyperledger/fabric/core.yaml',
        '# each value is followed by where it came from: default, file, or env <VARIABLE>',
        'operations:',
        '  listenAddress: "127.0.0.1:9443"  # file',
        '  tls:',
        '    enabled: false  # file',
        '    cert:',
        '      file: ""  # default',
        '    key:',
        '      file: ""  # default',
        '    clientAuthRequired: false  # file',
        '    clientRootCAs:',
        '      files: ["/etc/hyperledger/fabric/ca/one.pem", "/abs/two.pem"]  # env CORE_OPERATIONS_TLS_CLIENTROOTCAS_FILES',
        '  health:',
        '    checkTimeout: "5s"  # default',
        '    cacheTTL: "250ms"  # env CORE_OPERATIONS_HEALTH_CACHETTL',
        '    checkInterval: "0s"  # default',
        'metrics:',
        '  provider: "disabled"  # file',
        '  statsd:',
        '    network: "udp"  # file',
        '    address: "127.0.0.1:8125"  # file',
        '    writeInterval: "1m30s"  # env CORE_METRICS_STATSD_WRITEINTERVAL',
        '    prefix: ""  # default',
        '  otlp:',
        '    enabled: false  # default',
        '    endpoint: "http://localhost:4318/v1/metrics"  # default',
        '    headers: ""  # default',
        '    timeout: "10s"  # default',
        '    interval: "1m0s"  # default',
        'vm:',
        '  endpoint: "unix:///var/run/docker.sock"  # file',
        '',
      ].join('\n'),
    );
  });

  it('prints the orderer configuration in orderer.yaml layout', () => {
    const loaded = resolveConfigText('orderer', 'Metrics:\n  Provider: prometheus\n', { file: '/cfg/orderer.yaml', env: { ORDERER_OPERATIONS_LISTENADDRESS: ':8443' } });
    expect(renderEffectiveConfig(loaded)).toBe(
      [
        '# effective orderer configuration, read from /cfg/orderer.yaml',
        '# each value is followed by where it came from: default, file, or env <VARIABLE>',
        'Operations:',
        '  ListenAddress: ":8443"  # env ORDERER_OPERATIONS_LISTENADDRESS',
        '  TLS:',
        '    Enabled: false  # default',
        '    Certificate: ""  # default',
        '    PrivateKey: ""  # default',
        '    ClientAuthRequired: false  # default',
        '    ClientRootCAs: []  # default',
        '  Health:',
        '    CheckTimeout: "5s"  # default',
        '    CacheTTL: "0s"  # default',
        '    CheckInterval: "0s"  # default',
        'Metrics:',
        '  Provider: "prometheus"  # file',
        '  Statsd:',
        '    Network: "udp"  # default',
        '    Address: "127.0.0.1:8125"  # default',
        '    WriteInterval: "30s"  # default',
        '    Prefix: ""  # default',
        '  OTLP:',
        '    Enabled: false  # default',
        '    Endpoint: "http://localhost:4318/v1/metrics"  # default',
        '    Headers: ""  # default',
        '    Timeout: "10s"  # default',
        '    Interval: "1m0s"  # default',
        '',
      ].join('\n'),
    );
  });

  it('prints YAML that loads back as the same configuration', () => {
    const env = { CORE_METRICS_STATSD_PREFIX: 'a "quoted" \\ prefix', CORE_OPERATIONS_TLS_ENABLED: 'true', CORE_OPERATIONS_TLS_CERT_FILE: 'c.pem', CORE_OPERATIONS_TLS_KEY_FILE: 'k.pem' };
    const first = resolveConfigText('peer', CORE_YAML, { file: '/a/core.yaml', env });
    const again = resolveConfigText('peer', renderEffectiveConfig(first), { file: '/b/core.yaml', env: {} });
    expect(again.loaded.config).toEqual(first.loaded.config);
    const ordererFirst = resolveConfigText('orderer', ORDERER_YAML, { file: '/a/orderer.yaml', env: { ORDERER_OPERATIONS_TLS_CLIENTROOTCAS: '[x.pem, y.pem]' } });
    const ordererAgain = resolveConfigText('orderer', renderEffectiveConfig(ordererFirst), { file: '/b/orderer.yaml', env: {} });
    expect(ordererAgain.loaded.config).toEqual(ordererFirst.loaded.config);
  });
});
