import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.shared.ts';

// The whole package (no logger library imported: pino is loaded inside createLogging), the
// grammar alone (`./spec`), and one entry per logger library, each importing only its own.
// ops-http's error base stays external (`@fabric-ops/ops-http/errors`, a dependency, so always
// installed): a copy inlined here would make `instanceof FabricOpsError` false for LogspecError.
export default defineConfig(packageBuild({ index: 'src/index.ts', spec: 'src/spec.ts', pino: 'src/pino.ts', winston: 'src/winston.ts', bunyan: 'src/bunyan.ts', log4js: 'src/log4js.ts' }));
