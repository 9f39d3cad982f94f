import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.shared.ts';

export default defineConfig([
  packageBuild(),
  // The bin is what `node` runs in containers and under process managers: ESM only.
  // Split, so that the entry and the server's modules are separate chunks.
  { ...packageBuild({ bin: 'src/bin.ts' }), format: ['esm'], dts: false, clean: false, splitting: true },
]);
