import { formatHostPort } from '@fabric-ops/ops-http/go';
import type { LoadedConfig, MetricsSettings, OperationsSettings } from '@fabric-ops/ops-config';
import type { MetricsOptions } from '@fabric-ops/ops-metrics';
import { createLoggingFromEnv, isLogspecError, loggingSettingsFromEnv, type Logging } from '@fabric-ops/ops-logspec';
import { isTlsAuthError, loadTlsCredentials } from '@fabric-ops/ops-tls-auth';
// The package's own entry, by name: this entry point then shares the one copy of the system
// code with it instead of bundling a second.
import { createOperationsSystem, runUntilSignalled, type OperationsSystem } from '@fabric-ops/ops-server';
import { resolveCommitSha } from './version.ts';

/** The configuration an operations app runs from (ops-config's PeerConfig and OrdererConfig). */
export interface AppConfig {
  readonly operations: OperationsSettings;
  readonly metrics: MetricsSettings;
}

/** What reading the command line and the config file decided (ops-config's `*ConfigFromCommandLine`). */
export type AppStartup<C extends AppConfig> = { readonly action: 'run'; readonly loaded: LoadedConfig<C> } | { readonly action: 'exit'; readonly exitCode: number };

/** The checks a start makes beyond ops-config's; `configure` hands them to ops-config so `--check-config` makes them too. */
export type VerifyConfig<C extends AppConfig> = (loaded: LoadedConfig<C>) => readonly string[];

export interface OperationsApp<C extends AppConfig> {
  /** Version /version reports (the app's package version). */
  readonly version: string;
  /** The app's own logger, e.g. `peer.operations`. */
  readonly loggerName: string;
  /** Fabric's words before a start-up failure, e.g. `failed to initialize operations subsystem`. */
  readonly startFailurePrefix: string;
  /**
   * Reads the command line and the config, passing `verify` on as ops-config's `verify` option;
   * `exit` ends here (help, print/check-config, problems already printed).
   */
  readonly configure: (verify: VerifyConfig<C>) => AppStartup<C>;
  /** Registers the app's own health checkers; a throw is a start-up failure. */
  readonly register?: (system: OperationsSystem, config: C) => void;
  readonly env?: NodeJS.ProcessEnv;
  /** Called once the server is listening. */
  readonly onReady?: (system: OperationsSystem) => void;
}

/**
 * The TLS files must hold what the server needs (PEM certificate, matching key, CA
 * certificates), checked by ops-tls-auth's own loader and named by ops-config's labels, so a
 * bad file gives the same line from `--check-config` as from a start.
 */
function verifyTlsFiles(loaded: LoadedConfig<AppConfig>): readonly string[] {
  const { tls } = loaded.config.operations;
  if (!tls.enabled) return [];
  try {
    loadTlsCredentials(tls, { labels: loaded.tlsLabels });
    return [];
  } catch (error) {
    if (isTlsAuthError(error)) return [error.message];
    throw error;
  }
}

/** How much of a quoted value a logging problem line repeats. */
const MAX_SHOWN_VALUE = 80;

/**
 * ops-logspec's line with every quoted value cut short: a 100 KB FABRIC_LOGGING_SPEC must not
 * become a 100 KB line (twice: the spec and its bad segment).
 */
function loggingProblemLine(message: string): string {
  return message.replace(/'([^'\n]*)'/g, (whole, value: string) => (value.length > MAX_SHOWN_VALUE ? `'${value.slice(0, MAX_SHOWN_VALUE)}…'` : whole));
}

/**
 * FABRIC_LOGGING_SPEC and FABRIC_LOGGING_FORMAT, checked as a start reads them, so that
 * `--check-config` refuses what a start refuses, with the same line.
 */
function verifyLoggingEnv(env: NodeJS.ProcessEnv): readonly string[] {
  try {
    loggingSettingsFromEnv(env);
    return [];
  } catch (error) {
    if (isLogspecError(error)) return [loggingProblemLine(error.message)];
    throw error;
  }
}

/** ops-config's parsed `metrics` section is already what ops-metrics takes; only its shape differs. */
function metricsOptionsFor(metrics: MetricsSettings): MetricsOptions {
  if (metrics.provider === 'statsd') return { provider: 'statsd', statsd: metrics.statsd };
  return metrics.provider === 'prometheus' && metrics.otlp !== undefined ? { provider: 'prometheus', otlp: metrics.otlp } : { provider: metrics.provider };
}

/** The facts an operator checks first, as fields and as one readable message. */
function readyLine(config: AppConfig, address: string, checks: readonly string[]): { fields: Record<string, unknown>; message: string } {
  const { tls } = config.operations;
  const scheme = tls.enabled ? 'https' : 'http';
  const clientAuth = !tls.enabled ? 'none' : tls.clientAuthRequired ? 'required' : 'verify-if-given';
  const { metrics } = config;
  const statsd = metrics.provider === 'statsd' ? `${metrics.statsd.network}://${formatHostPort(metrics.statsd.host, metrics.statsd.port)}` : undefined;
  const otlp = metrics.provider === 'statsd' ? undefined : metrics.otlp?.endpoint;
  const fields = { address, scheme, clientAuth, metricsProvider: metrics.provider, ...(statsd === undefined ? {} : { statsd }), ...(otlp === undefined ? {} : { otlp }), checks };
  const metricsText = statsd !== undefined ? `statsd to ${statsd}` : otlp !== undefined ? `${metrics.provider}, OTLP push to ${otlp}` : metrics.provider;
  const checksText = checks.length === 0 ? 'none' : checks.join(', ');
  return {
    fields,
    message: `Operations server listening on ${address} (${scheme}; client certificates: ${clientAuth}; metrics: ${metricsText}; checks: ${checksText})`,
  };
}

/**
 * Runs an operations app until SIGTERM/SIGINT and resolves its exit code: 0 after a graceful
 * stop, 1 when start-up fails (one line on stderr, no stack trace), 2 for a bad command line.
 */
export async function runOperationsApp<C extends AppConfig>(app: OperationsApp<C>): Promise<number> {
  const env = app.env ?? process.env;
  // The command line first: --help must work whatever the logging env says. --check-config
  // and a start check the logging env with the configuration, and print the same line.
  const startup = app.configure((loaded) => [...verifyLoggingEnv(env), ...verifyTlsFiles(loaded)]);
  if (startup.action === 'exit') return startup.exitCode;
  const { loaded } = startup;
  const { config } = loaded;

  // FABRIC_LOGGING_SPEC and FABRIC_LOGGING_FORMAT are read here, once, and the registry is
  // handed to the system; an invalid spec stops start-up with one line, as Fabric's panic does.
  let logging: Logging;
  try {
    logging = createLoggingFromEnv(env);
  } catch (error) {
    if (!isLogspecError(error)) throw error;
    process.stderr.write(`${loggingProblemLine(error.message)}\n`);
    return 1;
  }
  const logger = logging.getLogger(app.loggerName);
  // Keys that load but are probably mistakes (a misspelt key or section, an unknown provider).
  for (const warning of loaded.warnings) logger.warn(warning);

  let system: OperationsSystem;
  const checks: string[] = [];
  try {
    system = createOperationsSystem({
      listenAddress: config.operations.listenAddress,
      tls: config.operations.tls,
      tlsLabels: loaded.tlsLabels,
      health: config.operations.health,
      version: { version: app.version, commitSha: resolveCommitSha(env) },
      logging,
      loggerName: app.loggerName,
      metrics: metricsOptionsFor(config.metrics),
    });
    const registering: OperationsSystem = {
      ...system,
      registerChecker: (component, checker, options) => {
        system.registerChecker(component, checker, options);
        checks.push(component);
      },
    };
    app.register?.(registering, config);
    await system.start();
  } catch (error) {
    process.stderr.write(`${app.startFailurePrefix}: ${(error as Error).message}\n`);
    return 1;
  }
  // Arm the signal handlers before announcing readiness: a supervisor may signal as soon as it reads the line.
  const stopped = runUntilSignalled(system, { logger });
  const ready = readyLine(config, system.address(), checks.sort());
  logger.info({ config: loaded.file, ...ready.fields }, ready.message);
  app.onReady?.(system);
  return stopped;
}
