import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.shared.ts';

export default defineConfig([
  packageBuild(),
  // The bin runs under plain node: ESM only, with its shebang kept.
  { ...packageBuild({ bin: 'src/bin.ts' }), format: ['esm'], dts: false, clean: false },
]);
