import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.shared.ts';

export default defineConfig([
  packageBuild(),
  // The bin is what `node` runs in containers and under process managers: CommonJS only
  // (dist/bin.cjs), so the bin loads every package through its `require` entry. As an ES module
  // it paid for node's ES module loader and for the namespace of every builtin it imports (an ES
  // import of node:fs, node:util, node:crypto or node:v8 loads each one's lazily loaded parts):
  // measured in the README's "Memory" section.
  { ...packageBuild({ bin: 'src/bin.ts' }), format: ['cjs'], dts: false, clean: false },
]);
