import { fileURLToPath } from 'node:url';
import type * as OpsConfig from '@fabric-ops/ops-config';
import type { OrdererConfig } from '@fabric-ops/ops-config';
import { runOperationsApp, type AppSystem } from '@fabric-ops/ops-server/app';
import { requireForStartup } from '@fabric-ops/ops-server/heap';
import packageJson from '../package.json' with { type: 'json' };

/** The orderer.yaml this package ships, used when no other is found. */
export const SAMPLE_ORDERER_YAML: string = fileURLToPath(new URL('../sampleconfig/orderer.yaml', import.meta.url));

export interface OrdererRunOptions {
  readonly argv?: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  /** Called once the server is listening (tests use it to find the address). */
  readonly onReady?: (system: AppSystem) => void;
}

/** Runs the orderer's operations server until SIGTERM/SIGINT; resolves the exit code. The orderer registers no health checker. */
export function runOrderer(options: OrdererRunOptions = {}): Promise<number> {
  const env = options.env ?? process.env;
  return runOperationsApp<OrdererConfig>({
    version: packageJson.version,
    loggerName: 'orderer.operations',
    startFailurePrefix: 'failed to start operations subsystem',
    env,
    // Loaded so that it can be released: the configuration step's modules (yaml) are not needed once it has run.
    configure: () =>
      requireForStartup('@fabric-ops/ops-config', import.meta.url, (config: typeof OpsConfig) =>
        config.ordererConfigFromCommandLine({ argv: options.argv ?? process.argv.slice(2), env, sampleFile: SAMPLE_ORDERER_YAML }),
      ),
    ...(options.onReady === undefined ? {} : { onReady: options.onReady }),
  });
}
