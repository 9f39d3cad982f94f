import { packageProject } from '../../vitest.shared.ts';

// Packing, npm installs and tsc runs are slow on a loaded two-core machine.
export default packageProject('@fabric-ops/consumer-test', { testTimeout: 240_000 });
