import { readFileSync } from 'node:fs';
import { effectiveConfigPage } from '@fabric-ops/test-kit';
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
      effectiveConfigPage('peer', '/etc/hyperledger/fabric/core.yaml', {
        'operations.listenAddress': '"127.0.0.1:9443"  # file',
        'operations.tls.enabled': 'false  # file',
        'operations.tls.clientAuthRequired': 'false  # file',
        'operations.tls.clientRootCAs.files': '["/etc/hyperledger/fabric/ca/one.pem", "/abs/two.pem"]  # env CORE_OPERATIONS_TLS_CLIENTROOTCAS_FILES',
        'operations.health.cacheTTL': '"250ms"  # env CORE_OPERATIONS_HEALTH_CACHETTL',
        'metrics.provider': '"disabled"  # file',
        'metrics.statsd.network': '"udp"  # file',
        'metrics.statsd.address': '"127.0.0.1:8125"  # file',
        'metrics.statsd.writeInterval': '"1m30s"  # env CORE_METRICS_STATSD_WRITEINTERVAL',
        'vm.endpoint': '"unix:///var/run/docker.sock"  # file',
      }),
    );
  });

  it('prints the orderer configuration in orderer.yaml layout', () => {
    const loaded = resolveConfigText('orderer', 'Metrics:\n  Provider: prometheus\n', { file: '/cfg/orderer.yaml', env: { ORDERER_OPERATIONS_LISTENADDRESS: ':8443' } });
    expect(renderEffectiveConfig(loaded)).toBe(
      effectiveConfigPage('orderer', '/cfg/orderer.yaml', {
        'Operations.ListenAddress': '":8443"  # env ORDERER_OPERATIONS_LISTENADDRESS',
        'Metrics.Provider': '"prometheus"  # file',
      }),
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
