import { fileURLToPath } from 'node:url';
import { ordererConfigFromCommandLine } from '@fabric-ops/ops-config';
import { createOperationsSystem, ORDERER_TLS_KEY_NAMES, resolveCommitSha, runUntilSignalled, type OperationsSystem } from '@fabric-ops/ops-server';
import { createLoggingFromEnv, isLogspecError, type Logging } from '@fabric-ops/ops-server';
import packageJson from '../package.json' with { type: 'json' };

/** The orderer.yaml this package ships, used when no other is found. */
export const SAMPLE_ORDERER_YAML = fileURLToPath(new URL('../sampleconfig/orderer.yaml', import.meta.url));

export interface OrdererRunOptions {
  readonly argv?: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  /** Called once the server is listening (tests use it to find the address). */
  readonly onReady?: (system: OperationsSystem) => void;
}

/** Runs the orderer's operations server until SIGTERM/SIGINT; resolves the exit code. */
export async function runOrderer(options: OrdererRunOptions = {}): Promise<number> {
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
  const logger = logging.getLogger('orderer.operations');
  // --config, --print-config, --check-config, --help; problems are printed one per line
  const startup = ordererConfigFromCommandLine({ argv: options.argv ?? process.argv.slice(2), env, sampleFile: SAMPLE_ORDERER_YAML });
  if (startup.action === 'exit') return startup.exitCode;
  const loaded = startup.loaded;
  // keys that load but are probably mistakes (a misspelt peer key, an unknown provider)
  for (const warning of loaded.warnings) logger.warn(warning);
  let system: OperationsSystem;
  try {
    system = createOperationsSystem({
      listenAddress: loaded.config.operations.listenAddress,
      tls: loaded.config.operations.tls,
      tlsKeyNames: ORDERER_TLS_KEY_NAMES,
      version: { version: packageJson.version, commitSha: resolveCommitSha(env) },
      logging,
      loggerName: 'orderer.operations',
      metrics: loaded.config.metrics,
    });
    await system.start();
  } catch (error) {
    process.stderr.write(`failed to start operations subsystem: ${(error as Error).message}\n`);
    return 1;
  }
  // Arm the signal handlers before announcing readiness: a supervisor may signal as soon as it reads the line.
  const stopped = runUntilSignalled(system, { logger });
  logger.info({ config: loaded.file }, `Operations server listening on ${system.address()}`);
  options.onReady?.(system);
  return stopped;
}
