import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.shared.ts';

// The provider, and two adapters behind their own entries: request metrics for an application's
// server, and the series merge a multi-process primary uses.
export default defineConfig(packageBuild({ index: 'src/index.ts', 'request-metrics': 'src/request-metrics.ts', cluster: 'src/cluster.ts' }));
