import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.shared.ts';

// Two entries: the health registry and checkers, and `vm.endpoint`'s pure grammar (`./endpoint`) that ops-config validates with.
export default defineConfig(packageBuild({ index: 'src/index.ts', endpoint: 'src/endpoint.ts' }));
