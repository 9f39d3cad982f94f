import { fileURLToPath } from 'node:url';
import { describeAppContract } from '@fabric-ops/test-kit';

describeAppContract('peer', {
  bin: fileURLToPath(new URL('../dist/bin.js', import.meta.url)),
  packageJsonPath: fileURLToPath(new URL('../package.json', import.meta.url)),
  configFileName: 'core.yaml',
  configWithListenAddress: (address) => `vm:\n  endpoint: ""\noperations:\n  listenAddress: "${address}"\n`,
  startFailurePrefix: 'failed to initialize operations subsystem',
});
