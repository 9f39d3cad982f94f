import { fileURLToPath } from 'node:url';
import { describeTlsContract } from '@fabric-ops/test-kit';

describeTlsContract('peer', {
  bin: fileURLToPath(new URL('../dist/bin.cjs', import.meta.url)),
  configFileName: 'core.yaml',
  config: (address, tls) =>
    [
      'vm:',
      '  endpoint: ""',
      'operations:',
      `  listenAddress: ${JSON.stringify(address)}`,
      '  tls:',
      `    enabled: ${tls.enabled}`,
      '    cert:',
      `      file: ${JSON.stringify(tls.certFile)}`,
      '    key:',
      `      file: ${JSON.stringify(tls.keyFile)}`,
      `    clientAuthRequired: ${tls.clientAuthRequired}`,
      '    clientRootCAs:',
      `      files: ${JSON.stringify(tls.clientRootCAs)}`,
      'metrics:',
      '  provider: prometheus',
      '',
    ].join('\n'),
  startFailurePrefix: 'failed to initialize operations subsystem',
  certFileKey: 'operations.tls.cert.file',
  keyFileKey: 'operations.tls.key.file',
});
