import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.shared.ts';

// Two entries: the HTTP plumbing, and Go's wording (`./go`) that the other packages share.
export default defineConfig(packageBuild({ index: 'src/index.ts', go: 'src/go.ts' }));
