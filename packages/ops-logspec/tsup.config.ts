import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.shared.ts';

// Two entries: the whole package, and the pino-free grammar (`./spec`).
export default defineConfig(packageBuild({ index: 'src/index.ts', spec: 'src/spec.ts' }));
