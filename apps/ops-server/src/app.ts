import { createLoggingFromEnv, isLogspecError } from '@fabric-ops/ops-logspec';
import type { MetricsSettings } from './metrics.ts';
import type { TlsSettings } from '@fabric-ops/ops-tls-auth';
import type { TlsKeyNames } from './tls.ts';
import { runUntilSignalled } from './run.ts';
import { createOperationsSystem, type OperationsSystem } from './system.ts';
import { resolveCommitSha } from './version.ts';

/** The configuration an operations app runs from (ops-config's PeerConfig and OrdererConfig fit). */
export interface AppConfig {
  readonly operations: { readonly listenAddress: string; readonly tls: TlsSettings };
  readonly metrics: MetricsSettings;
}

/** What reading the command line and the config file decided (ops-config's `*ConfigFromCommandLine`). */
export type AppStartup<C extends AppConfig> =
  | { readonly action: 'run'; readonly loaded: { readonly file: string; readonly config: C; readonly warnings: readonly string[] } }
  | { readonly action: 'exit'; readonly exitCode: number };

export interface OperationsApp<C extends AppConfig> {
  /** Version /version reports (the app's package version). */
  readonly version: string;
  /** The app's own logger, e.g. `peer.operations`. */
  readonly loggerName: string;
  /** Fabric's words before a start-up failure, e.g. `failed to initialize operations subsystem`. */
  readonly startFailurePrefix: string;
  /** Reads the command line and the config; `exit` ends here (help, print/check-config, problems already printed). */
  readonly configure: () => AppStartup<C>;
  /** Config key names for TLS error lines; the peer's by default. */
  readonly tlsKeyNames?: TlsKeyNames;
  /** Registers the app's own health checkers; a throw is a start-up failure. */
  readonly register?: (system: OperationsSystem, config: C) => void;
  readonly env?: NodeJS.ProcessEnv;
  /** Called once the server is listening. */
  readonly onReady?: (system: OperationsSystem) => void;
}

/**
 * Runs an operations app until SIGTERM/SIGINT and resolves its exit code: 0 after a graceful
 * stop, 1 when start-up fails (one line on stderr, no stack trace), 2 for a bad command line.
 */
export async function runOperationsApp<C extends AppConfig>(app: OperationsApp<C>): Promise<number> {
  const env = app.env ?? process.env;
  // The command line first: --help and --check-config must work whatever the logging env says.
  const startup = app.configure();
  if (startup.action === 'exit') return startup.exitCode;
  const { loaded } = startup;

  // An invalid FABRIC_LOGGING_SPEC stops start-up with one line, as Fabric's panic does.
  let logging;
  try {
    logging = createLoggingFromEnv(env);
  } catch (error) {
    if (!isLogspecError(error)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 1;
  }
  const logger = logging.getLogger(app.loggerName);
  // Keys that load but are probably mistakes (a misspelt key, an unknown provider).
  for (const warning of loaded.warnings) logger.warn(warning);

  let system: OperationsSystem;
  try {
    system = createOperationsSystem({
      listenAddress: loaded.config.operations.listenAddress,
      tls: loaded.config.operations.tls,
      ...(app.tlsKeyNames === undefined ? {} : { tlsKeyNames: app.tlsKeyNames }),
      version: { version: app.version, commitSha: resolveCommitSha(env) },
      logging,
      loggerName: app.loggerName,
      metrics: loaded.config.metrics,
    });
    app.register?.(system, loaded.config);
    await system.start();
  } catch (error) {
    process.stderr.write(`${app.startFailurePrefix}: ${(error as Error).message}\n`);
    return 1;
  }
  // Arm the signal handlers before announcing readiness: a supervisor may signal as soon as it reads the line.
  const stopped = runUntilSignalled(system, { logger });
  logger.info({ config: loaded.file }, `Operations server listening on ${system.address()}`);
  app.onReady?.(system);
  return stopped;
}
