import { packageProject } from '../../vitest.shared.ts';

// The integration tests spawn the peer and opsctl bins; generous for a loaded two-core machine.
export default packageProject('@fabric-ops/opsctl', { testTimeout: 60_000 });
