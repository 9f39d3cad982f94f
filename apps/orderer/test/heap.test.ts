import { fileURLToPath } from 'node:url';
import { heapLimitsContract } from '@fabric-ops/test-kit';

heapLimitsContract('orderer', fileURLToPath(new URL('../dist/bin.cjs', import.meta.url)), 'orderer.yaml', 'Operations:\n  ListenAddress: "127.0.0.1:0"\nMetrics:\n  Provider: prometheus\n');
