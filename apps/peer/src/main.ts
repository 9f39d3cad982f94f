import { fileURLToPath } from 'node:url';
import type * as OpsConfig from '@fabric-ops/ops-config';
import type { PeerConfig } from '@fabric-ops/ops-config';
import { DOCKER_COMPONENT, dockerChecker } from '@fabric-ops/ops-health';
import { runOperationsApp, type AppSystem } from '@fabric-ops/ops-server/app';
import { requireForStartup } from '@fabric-ops/ops-server/heap';
import packageJson from '../package.json' with { type: 'json' };

/** The core.yaml this package ships, used when no other is found. */
export const SAMPLE_CORE_YAML: string = fileURLToPath(new URL('../sampleconfig/core.yaml', import.meta.url));

export interface PeerRunOptions {
  readonly argv?: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  /** Called once the server is listening (tests use it to find the address). */
  readonly onReady?: (system: AppSystem) => void;
}

/** Runs the peer's operations server until SIGTERM/SIGINT; resolves the exit code. */
export function runPeer(options: PeerRunOptions = {}): Promise<number> {
  const env = options.env ?? process.env;
  return runOperationsApp<PeerConfig>({
    version: packageJson.version,
    loggerName: 'peer.operations',
    startFailurePrefix: 'failed to initialize operations subsystem',
    env,
    // Loaded so that it can be released: the configuration step's modules (yaml) are not needed once it has run.
    configure: () =>
      requireForStartup('@fabric-ops/ops-config', import.meta.url, (config: typeof OpsConfig) =>
        config.peerConfigFromCommandLine({ argv: options.argv ?? process.argv.slice(2), env, sampleFile: SAMPLE_CORE_YAML }),
      ),
    register: (system, config) => {
      // Fabric's peer checks its container runtime only when vm.endpoint is set (cleared for external builders).
      if (config.vm.endpoint !== undefined) system.registerChecker(DOCKER_COMPONENT, dockerChecker(config.vm.endpoint));
    },
    ...(options.onReady === undefined ? {} : { onReady: options.onReady }),
  });
}
