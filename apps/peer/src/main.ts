import { fileURLToPath } from 'node:url';
import { peerConfigFromCommandLine, type PeerConfig } from '@fabric-ops/ops-config';
import { DOCKER_COMPONENT, dockerChecker } from '@fabric-ops/ops-health';
import type { OperationsSystem } from '@fabric-ops/ops-server';
import { runOperationsApp } from '@fabric-ops/ops-server/app';
import packageJson from '../package.json' with { type: 'json' };

/** The core.yaml this package ships, used when no other is found. */
export const SAMPLE_CORE_YAML: string = fileURLToPath(new URL('../sampleconfig/core.yaml', import.meta.url));

export interface PeerRunOptions {
  readonly argv?: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  /** Called once the server is listening (tests use it to find the address). */
  readonly onReady?: (system: OperationsSystem) => void;
}

/** Runs the peer's operations server until SIGTERM/SIGINT; resolves the exit code. */
export function runPeer(options: PeerRunOptions = {}): Promise<number> {
  const env = options.env ?? process.env;
  return runOperationsApp<PeerConfig>({
    version: packageJson.version,
    loggerName: 'peer.operations',
    startFailurePrefix: 'failed to initialize operations subsystem',
    env,
    configure: (verify) => peerConfigFromCommandLine({ argv: options.argv ?? process.argv.slice(2), env, sampleFile: SAMPLE_CORE_YAML, verify }),
    register: (system, config) => {
      // Fabric's peer checks its container runtime only when vm.endpoint is set (cleared for external builders).
      if (config.vm.endpoint !== undefined) system.registerChecker(DOCKER_COMPONENT, dockerChecker(config.vm.endpoint));
    },
    ...(options.onReady === undefined ? {} : { onReady: options.onReady }),
  });
}

