import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.shared.ts';

export default defineConfig([
  packageBuild(),
  // The bin is what `node` runs in containers and under process managers: ESM only.
  // Split so that the server's modules load only after bin.ts has set the heap limits (see src/heap-limits.ts).
  { ...packageBuild({ bin: 'src/bin.ts' }), format: ['esm'], dts: false, clean: false, splitting: true },
]);
