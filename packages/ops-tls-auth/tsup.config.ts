import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.shared.ts';

// The client-certificate verifier runs in a worker thread, which needs a file of its own
// (dist/verify-worker.js for the ESM build, .cjs for the CommonJS one); it has no types to ship.
export default defineConfig(packageBuild({ index: 'src/index.ts', 'verify-worker': 'src/internal/verify-worker.ts' }, { dts: { entry: { index: 'src/index.ts' } } }));
