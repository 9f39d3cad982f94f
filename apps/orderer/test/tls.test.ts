import { fileURLToPath } from 'node:url';
import { describeTlsContract } from '@fabric-ops/test-kit';

describeTlsContract('orderer', {
  bin: fileURLToPath(new URL('../dist/bin.cjs', import.meta.url)),
  configFileName: 'orderer.yaml',
  config: (address, tls) =>
    [
      'Operations:',
      `  ListenAddress: ${JSON.stringify(address)}`,
      '  TLS:',
      `    Enabled: ${tls.enabled}`,
      `    Certificate: ${JSON.stringify(tls.certFile)}`,
      `    PrivateKey: ${JSON.stringify(tls.keyFile)}`,
      `    ClientAuthRequired: ${tls.clientAuthRequired}`,
      `    ClientRootCAs: ${JSON.stringify(tls.clientRootCAs)}`,
      'Metrics:',
      '  Provider: prometheus',
      '',
    ].join('\n'),
  startFailurePrefix: 'failed to start operations subsystem',
  certFileKey: 'Operations.TLS.Certificate',
  keyFileKey: 'Operations.TLS.PrivateKey',
});
