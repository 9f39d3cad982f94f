import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.shared.ts';

// The whole package (no logger library imported: pino is loaded inside createLogging), the
// grammar alone (`./spec`), and one entry per logger library, each importing only its own.
// ops-http's small error base is inlined, so the built `./spec` needs no node_modules at all (a
// config checker, a CLI, a browser build); errors still pass ops-http's duck check (errorGuard).
export default defineConfig(
  packageBuild(
    { index: 'src/index.ts', spec: 'src/spec.ts', pino: 'src/pino.ts', winston: 'src/winston.ts', bunyan: 'src/bunyan.ts', log4js: 'src/log4js.ts' },
    { noExternal: ['@fabric-ops/ops-http/errors'] },
  ),
);
