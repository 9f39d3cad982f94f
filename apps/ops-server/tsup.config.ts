import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.shared.ts';

// Four entries: what embedders call; the apps' start-up sequence (`./app`) and the multi-process
// primary and worker (`./cluster`), which import the first by the package's own name so that all
// share one copy of the system code; and `./heap` (requireForStartup, with which the bins read
// their configuration and release it), which imports only node builtins.
export default defineConfig(packageBuild({ index: 'src/index.ts', app: 'src/app.ts', cluster: 'src/cluster.ts', heap: 'src/heap.ts' }, { external: ['@fabric-ops/ops-server'] }));
