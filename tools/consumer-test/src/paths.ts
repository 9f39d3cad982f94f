import { fileURLToPath } from 'node:url';

/** The repository root (this file is tools/consumer-test/src/paths.ts). */
export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
