import { fileURLToPath } from 'node:url';
import { heapLimitsContract } from '@fabric-ops/test-kit';

heapLimitsContract(
  'peer',
  fileURLToPath(new URL('../dist/bin.cjs', import.meta.url)),
  'core.yaml',
  'vm:\n  endpoint: ""\noperations:\n  listenAddress: 127.0.0.1:0\nmetrics:\n  provider: prometheus\n',
);
