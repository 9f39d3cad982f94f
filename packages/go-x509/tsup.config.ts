import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.shared.ts';

// The `./verifier` entry and its worker script (a file of its own, dist/verifier-worker.js and
// .cjs, with no types to ship) import the main entry by the package's own name, so a process
// holds one copy of the x509 code whichever entries it loads.
export default defineConfig(
  packageBuild(
    { index: 'src/index.ts', verifier: 'src/verifier.ts', 'verifier-worker': 'src/internal/verifier/worker.ts' },
    { dts: { entry: { index: 'src/index.ts', verifier: 'src/verifier.ts' } }, external: ['@fabric-ops/go-x509'] },
  ),
);
