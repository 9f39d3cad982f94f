import { fileURLToPath } from 'node:url';
import { peerConfigFromCommandLine } from '@fabric-ops/ops-config';
import { createOperationsSystem, resolveCommitSha, runUntilSignalled, type OperationsSystem } from '@fabric-ops/ops-server';
import { DOCKER_COMPONENT, dockerChecker, type Checker } from '@fabric-ops/ops-health';
import { createLoggingFromEnv, isLogspecError, type Logging } from '@fabric-ops/ops-server';
import packageJson from '../package.json' with { type: 'json' };

/** The core.yaml this package ships, used when no other is found. */
export const SAMPLE_CORE_YAML = fileURLToPath(new URL('../sampleconfig/core.yaml', import.meta.url));

export interface PeerRunOptions {
  readonly argv?: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  /** Called once the server is listening (tests use it to find the address). */
  readonly onReady?: (system: OperationsSystem) => void;
}

/** Runs the peer's operations server until SIGTERM/SIGINT; resolves the exit code. */
export async function runPeer(options: PeerRunOptions = {}): Promise<number> {
  const env = options.env ?? process.env;
  // Logging first: an invalid FABRIC_LOGGING_SPEC stops start-up with one line, as Fabric's panic does.
  let logging: Logging;
  try {
    logging = createLoggingFromEnv(env);
  } catch (error) {
    if (!isLogspecError(error)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 1;
  }
  const logger = logging.getLogger('peer.operations');
  // --config, --print-config, --check-config, --help; problems are printed one per line
  const startup = peerConfigFromCommandLine({ argv: options.argv ?? process.argv.slice(2), env, sampleFile: SAMPLE_CORE_YAML });
  if (startup.action === 'exit') return startup.exitCode;
  const loaded = startup.loaded;
  // keys that load but are probably mistakes (a misspelt peer key, an unknown provider)
  for (const warning of loaded.warnings) logger.warn(warning);
  let system: OperationsSystem;
  try {
    system = createOperationsSystem({
      listenAddress: loaded.config.operations.listenAddress,
      tls: loaded.config.operations.tls,
      version: { version: packageJson.version, commitSha: resolveCommitSha(env) },
      logging,
      loggerName: 'peer.operations',
      metrics: loaded.config.metrics,
    });
    // Fabric's peer checks its container runtime only when vm.endpoint is set (cleared for external builders).
    if (loaded.config.vm.endpoint !== '') system.registerChecker(DOCKER_COMPONENT, dockerCheckerFor(loaded.config.vm.endpoint));
    await system.start();
  } catch (error) {
    process.stderr.write(`failed to initialize operations subsystem: ${(error as Error).message}\n`);
    return 1;
  }
  // Arm the signal handlers before announcing readiness: a supervisor may signal as soon as it reads the line.
  const stopped = runUntilSignalled(system, { logger });
  logger.info({ config: loaded.file }, `Operations server listening on ${system.address()}`);
  options.onReady?.(system);
  return stopped;
}

function dockerCheckerFor(endpoint: string): Checker {
  try {
    return dockerChecker(endpoint);
  } catch (error) {
    throw new Error(`vm.endpoint: ${(error as Error).message}`);
  }
}
