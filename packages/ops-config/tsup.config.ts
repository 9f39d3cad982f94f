import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.shared.ts';

// yaml is built into this package's files (README, "Why yaml is inside"): as its own dependency it
// is 72 CommonJS files, and resolving and loading them at every start is what wakes V8's
// optimizing compilers in an otherwise idle server (5-8 MiB of resident memory on Node 24).
// yaml's node build is CommonJS and requires node builtins (`process`); in the ES module build
// those requires need a `require`, which an ES module does not have: the banner makes one.
export default defineConfig(
  packageBuild(undefined, {
    noExternal: ['yaml'],
    banner: ({ format }) => (format === 'esm' ? { js: "import { createRequire as __opsConfigCreateRequire } from 'node:module';\nconst require = __opsConfigCreateRequire(import.meta.url);" } : {}),
  }),
);
