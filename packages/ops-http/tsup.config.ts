import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.shared.ts';

// Three entries: the HTTP plumbing, Go's wording (`./go`) and the bounded file reader (`./fs`) that the other packages share.
export default defineConfig(packageBuild({ index: 'src/index.ts', go: 'src/go.ts', fs: 'src/fs.ts' }));
