import { packageProject } from '../../vitest.shared.ts';

export default packageProject('@fabric-ops/go-x509');
