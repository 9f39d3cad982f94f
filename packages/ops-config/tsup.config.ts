import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.shared.ts';

// yaml is built into this package's files (README, "Why yaml is inside"): as its own dependency it
// is 72 CommonJS files, and resolving and loading them at every start is what wakes V8's
// optimizing compilers in an otherwise idle server (5-8 MiB of resident memory on Node 24).
export default defineConfig(packageBuild(undefined, { noExternal: ['yaml'] }));
