import { fileURLToPath } from 'node:url';
import { describeAppContract } from '@fabric-ops/test-kit';

describeAppContract('orderer', {
  bin: fileURLToPath(new URL('../dist/bin.js', import.meta.url)),
  packageJsonPath: fileURLToPath(new URL('../package.json', import.meta.url)),
  configFileName: 'orderer.yaml',
  configWithListenAddress: (address) => `Operations:\n  ListenAddress: "${address}"\n`,
  startFailurePrefix: 'failed to start operations subsystem',
});
