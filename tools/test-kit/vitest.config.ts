import { packageProject } from '../../vitest.shared.ts';

// openssl makes every certificate; a loaded two-core machine takes seconds for a PKI.
export default packageProject('@fabric-ops/test-kit', { testTimeout: 60_000 });
