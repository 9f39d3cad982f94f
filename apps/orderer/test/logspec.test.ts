import { fileURLToPath } from 'node:url';
import { describeLogspecContract } from '@fabric-ops/test-kit';

describeLogspecContract('orderer', {
  bin: fileURLToPath(new URL('../dist/bin.cjs', import.meta.url)),
  configFileName: 'orderer.yaml',
  configWithListenAddress: (address) => `Operations:\n  ListenAddress: "${address}"\n`,
});
