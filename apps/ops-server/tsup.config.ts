import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.shared.ts';

// Two entries: what embedders call, and the apps' start-up sequence (`./app`), which imports
// the first by the package's own name so that both share one copy of the system code.
export default defineConfig(packageBuild({ index: 'src/index.ts', app: 'src/app.ts' }, { external: ['@fabric-ops/ops-server'] }));
