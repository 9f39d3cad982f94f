import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.shared.ts';

// The whole package (no logger library imported: pino is loaded inside createLogging) and one
// entry per logger library, each importing only its own. The grammar alone (`./spec`) is built
// apart with ops-http's small error base inlined, so the built file needs no node_modules at all
// (a config checker, a CLI, a browser build); its errors still pass ops-http's duck check.
export default defineConfig([
  packageBuild({ index: 'src/index.ts', pino: 'src/pino.ts', winston: 'src/winston.ts', bunyan: 'src/bunyan.ts', log4js: 'src/log4js.ts' }),
  packageBuild({ spec: 'src/spec.ts' }, { clean: false, noExternal: ['@fabric-ops/ops-http/errors'] }),
]);
