import { packageProject } from '../../vitest.shared.ts';

// Building the Go programs and generating the corpus take seconds on a loaded two-core machine.
export default packageProject('@fabric-ops/x509-oracle', { testTimeout: 120_000 });
