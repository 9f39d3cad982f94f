import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.shared.ts';

// Four entries: what embedders call; the apps' start-up sequence (`./app`) and the multi-process
// primary and worker (`./cluster`), which import the first by the package's own name so that all
// share one copy of the system code; and `./heap` (requireForStartup, with which the bins read
// their configuration and release it), which imports only node builtins.
// In the CommonJS build a dynamic import() (ops-tls-auth, loaded only with TLS on) becomes a
// require(): an import() would load the package's ES module build next to the CommonJS copies of
// its dependencies (ops-http) that the process already holds.
export default defineConfig(
  packageBuild(
    { index: 'src/index.ts', app: 'src/app.ts', cluster: 'src/cluster.ts', heap: 'src/heap.ts' },
    {
      external: ['@fabric-ops/ops-server'],
      esbuildOptions(options, { format }) {
        if (format === 'cjs') options.supported = { ...options.supported, 'dynamic-import': false };
      },
    },
  ),
);
