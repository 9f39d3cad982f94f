import { defineConfig } from 'tsup';
import { packageBuild, sharedFromEntry } from '../../tsup.shared.ts';

// Four entries: the HTTP plumbing, Go's wording (`./go`), the bounded file reader (`./fs`) and the
// error base (`./errors`) that the other packages share. The others load the base from the built
// `./errors`, so that OpsHttpError extends the very FabricOpsError that entry exports.
export default defineConfig(
  packageBuild({ index: 'src/index.ts', go: 'src/go.ts', fs: 'src/fs.ts', errors: 'src/errors.ts' }, { esbuildPlugins: [sharedFromEntry('src/internal/error-base.ts', 'errors', 'src/errors.ts')] }),
);
