import { fileURLToPath } from 'node:url';
import { describeLogspecContract } from '@fabric-ops/test-kit';

describeLogspecContract('peer', {
  bin: fileURLToPath(new URL('../dist/bin.cjs', import.meta.url)),
  configFileName: 'core.yaml',
  configWithListenAddress: (address) => `vm:\n  endpoint: ""\noperations:\n  listenAddress: "${address}"\n`,
});
