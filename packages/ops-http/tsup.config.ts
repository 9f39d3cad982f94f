import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.shared.ts';

// Four entries: the HTTP plumbing, Go's wording (`./go`), the bounded file reader (`./fs`) and the error base (`./errors`) that the other packages share.
export default defineConfig(packageBuild({ index: 'src/index.ts', go: 'src/go.ts', fs: 'src/fs.ts', errors: 'src/errors.ts' }));
