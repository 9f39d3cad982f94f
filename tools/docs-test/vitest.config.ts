import { packageProject } from '../../vitest.shared.ts';

// These tests start the peer, the orderer and Prometheus; generous for a loaded two-core machine.
export default packageProject('@fabric-ops/docs-test', { testTimeout: 120_000 });
