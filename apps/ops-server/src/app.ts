import { hostname } from 'node:os';
import { readRegularFileSync } from '@fabric-ops/ops-http/fs';
import { formatHostPort } from '@fabric-ops/ops-http/go';
import type { LoadedConfig, MetricsSettings, OperationsSettings } from '@fabric-ops/ops-config';
import { createMetricsProvider, isMetricsError, type MetricsOptions } from '@fabric-ops/ops-metrics';
import { createLeanLogging, isLogspecError, loggingSettingsFromEnv, type LeanLogging } from '@fabric-ops/ops-logspec';
import type { TlsCredentials } from '@fabric-ops/ops-tls-auth';
// The system code itself, bundled into this entry rather than taken from the main entry by name:
// the main entry imports ops-tls-auth for embedders, and this one loads it only when TLS is on
// (with TLS off, ops-tls-auth, go-x509, node:tls and node:https are never loaded: ~3 MiB of a
// bin's idle RSS on Node 20). A process runs either this entry or the main one.
import { FORCE_EXIT_AFTER_MS, runUntilSignalled } from './run.ts';
import { createSystem, type OperationsSystem } from './system.ts';
import type { TlsAuthApi } from './tls.ts';
import { resolveCommitSha } from './version.ts';

/** ops-tls-auth as the start-up checks and the system use it. */
type AppTlsAuth = TlsAuthApi & Pick<typeof import('@fabric-ops/ops-tls-auth'), 'isTlsAuthError'>;

/** The configuration an operations app runs from (ops-config's PeerConfig and OrdererConfig). */
export interface AppConfig {
  readonly operations: OperationsSettings;
  readonly metrics: MetricsSettings;
}

/**
 * What reading the command line and the config file decided (ops-config's `*ConfigFromCommandLine`):
 * the loaded configuration for a run or `--check-config`, or an exit (help, `--print-config`,
 * problems in the file: already printed).
 */
export type AppStartup<C extends AppConfig> =
  { readonly action: 'run' | 'check-config'; readonly loaded: LoadedConfig<C>; readonly strict: boolean } | { readonly action: 'exit'; readonly exitCode: number };

/** The system an app runs: its loggers are the lean engine's (pino is never loaded by a bin). */
export type AppSystem = OperationsSystem<LeanLogging>;

export interface OperationsApp<C extends AppConfig> {
  /** Version /version reports (the app's package version). */
  readonly version: string;
  /** The app's own logger, e.g. `peer.operations`. */
  readonly loggerName: string;
  /** Fabric's words before a start-up failure, e.g. `failed to initialize operations subsystem`. */
  readonly startFailurePrefix: string;
  /** Reads the command line and the config file; returns plain data (nothing of the configuration step is kept). */
  readonly configure: () => AppStartup<C>;
  /** Registers the app's own health checkers; a throw is a start-up failure. */
  readonly register?: (system: AppSystem, config: C) => void;
  readonly env?: NodeJS.ProcessEnv;
  /** Called once the server is listening. */
  readonly onReady?: (system: AppSystem) => void;
  /** Where the verdict of the checks and start-up failures are written. Default process.stdout / process.stderr. */
  readonly stdout?: (text: string) => void;
  readonly stderr?: (text: string) => void;
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

/** FABRIC_LOGGING_SPEC and FABRIC_LOGGING_FORMAT, parsed once: the settings the logging is built from, or the problem. */
function loggingSettings(env: NodeJS.ProcessEnv): { readonly settings?: ReturnType<typeof loggingSettingsFromEnv>; readonly problems: readonly string[] } {
  try {
    return { settings: loggingSettingsFromEnv(env), problems: [] };
  } catch (error) {
    if (isLogspecError(error)) return { problems: [loggingProblemLine(error.message)] };
    throw error;
  }
}

/** Set to `off`, hands OpenSSL the real client CAs instead of stand-ins (same verdicts, slower handshakes): the benches' "before". */
export const CLIENT_CA_STAND_INS_ENV = 'FABRIC_OPS_TLS_CA_STAND_INS';

/** FABRIC_OPS_TLS_CA_STAND_INS, parsed once: unset, empty or `on` keeps the stand-ins, `off` drops them, anything else is a problem. */
function clientCaStandIns(env: NodeJS.ProcessEnv): { readonly enabled: boolean; readonly problems: readonly string[] } {
  const text = env[CLIENT_CA_STAND_INS_ENV];
  if (text === undefined || text === '' || text === 'on') return { enabled: true, problems: [] };
  if (text === 'off') return { enabled: false, problems: [] };
  const shown = text.length > MAX_SHOWN_VALUE ? `${text.slice(0, MAX_SHOWN_VALUE)}…` : text;
  // A problem stops the start before the value is used.
  return { enabled: true, problems: [`${CLIENT_CA_STAND_INS_ENV}: expected "on" or "off", got ${JSON.stringify(shown)}`] };
}

/** As ops-tls-auth reads a TLS file: far above any PEM bundle, so a wrong path cannot fill memory. */
const MAX_TLS_FILE_BYTES = 4 * 1024 * 1024;

/**
 * The TLS credentials, loaded once: each file is read once (a file named twice, once), every
 * unreadable one is named, then ops-tls-auth checks the texts (PEM, matching key, CA
 * certificates) and the system is handed the result, so start() reads nothing again.
 */
function tlsCredentials(loaded: LoadedConfig<AppConfig>, tlsAuth: AppTlsAuth | undefined): { readonly credentials?: TlsCredentials; readonly problems: readonly string[] } {
  const { tls } = loaded.config.operations;
  if (!tls.enabled || tlsAuth === undefined) return { problems: [] };
  const { isTlsAuthError, loadTlsCredentials } = tlsAuth;
  const labels = loaded.tlsLabels;
  const files: [label: string, path: string][] = [
    [labels.certFile, tls.certFile],
    [labels.keyFile, tls.keyFile],
    ...tls.clientRootCAs.map((path, index): [string, string] => [`${labels.clientRootCAs}[${index}]`, path]),
  ];
  const texts = new Map<string, string>();
  const problems: string[] = [];
  for (const [label, path] of files) {
    if (texts.has(path)) continue;
    const result = readRegularFileSync(path, { maxBytes: MAX_TLS_FILE_BYTES });
    if (result.ok) texts.set(path, result.bytes.toString('utf8'));
    else problems.push(`${label}: ${result.message}`);
  }
  if (problems.length > 0) return { problems };
  try {
    return { credentials: loadTlsCredentials(tls, { labels, read: (path) => texts.get(path)! }), problems: [] };
  } catch (error) {
    if (isTlsAuthError(error)) return { problems: [error.message] };
    throw error;
  }
}

/** What the checks decided: text to print and an exit code, or `undefined` exit code to go on and start. */
interface Verdict {
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number | undefined;
}

function linesOf(texts: readonly string[], prefix = ''): string {
  return texts.map((line) => `${prefix}${line}\n`).join('');
}

/**
 * The one verdict `--check-config` and a start share, so both print the same lines: problems
 * stop either (exit 1); with `--strict` so do warnings; `--check-config` then says OK; a start
 * goes on (its warnings are logged once logging exists).
 */
function verdictOf(startup: { readonly action: 'run' | 'check-config'; readonly loaded: LoadedConfig<AppConfig>; readonly strict: boolean }, problems: readonly string[]): Verdict {
  const { warnings, file } = startup.loaded;
  if (problems.length > 0) return { stdout: '', stderr: linesOf(problems), exitCode: 1 };
  if (startup.strict && warnings.length > 0) {
    const count = warnings.length;
    return { stdout: '', stderr: `${linesOf(warnings, 'warning: ')}--strict: ${count} warning${count === 1 ? '' : 's'}, treated as problems\n`, exitCode: 1 };
  }
  if (startup.action === 'check-config') return { stdout: `configuration OK: ${file}\n`, stderr: linesOf(warnings, 'warning: '), exitCode: 0 };
  return { stdout: '', stderr: '', exitCode: undefined };
}

/**
 * ops-config's parsed `metrics` section is already what ops-metrics takes; only its shape differs.
 * An OTLP push names the node `<host name>:<bound port>` (`instance` in Prometheus), read at the
 * first push, once the server listens: two nodes on one host are two instances.
 */
function metricsOptionsFor(metrics: MetricsSettings, boundAddress: () => string = () => ''): MetricsOptions {
  if (metrics.provider === 'statsd') return { provider: 'statsd', statsd: metrics.statsd };
  if (metrics.provider !== 'prometheus' || metrics.otlp === undefined) return { provider: metrics.provider };
  const resourceAttributes = () => {
    const port = /:(\d+)$/.exec(boundAddress())?.[1];
    return { 'service.instance.id': port === undefined ? hostname() : `${hostname()}:${port}` };
  };
  return { provider: 'prometheus', otlp: { ...metrics.otlp, resourceAttributes } };
}

/**
 * What the metrics provider's start needs beyond its settings: with OTLP push, OpenTelemetry's
 * packages (optional peers of ops-metrics, loaded at start). The check starts and stops a
 * provider built from the same options, so the packages are loaded by the code the start runs,
 * resolved from the same place; nothing is pushed (the first push waits an interval).
 */
async function metricsProblems(metrics: MetricsSettings): Promise<readonly string[]> {
  const options = metricsOptionsFor(metrics);
  if (options.provider !== 'prometheus' || options.otlp === undefined) return [];
  const provider = createMetricsProvider(options);
  try {
    await provider.start();
    return [];
  } catch (error) {
    if (isMetricsError(error)) return [error.message];
    throw error;
  } finally {
    await provider.stop();
  }
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
 * One direction, each step using what the one before produced: command line and config file →
 * checks (logging settings, TLS credentials, what the metrics start loads) → the verdict, printed for `--check-config` →
 * logging from the parsed settings → the system, handed the loaded credentials → listen.
 */
export async function runOperationsApp<C extends AppConfig>(app: OperationsApp<C>): Promise<number> {
  const env = app.env ?? process.env;
  const stdout = app.stdout ?? ((text: string) => void process.stdout.write(text));
  const stderr = app.stderr ?? ((text: string) => void process.stderr.write(text));
  // The command line first: --help must work whatever the logging env says.
  const startup = app.configure();
  if (startup.action === 'exit') return startup.exitCode;
  const { loaded } = startup;
  const { config } = loaded;

  const logged = loggingSettings(env);
  // Loaded only when TLS is on (see the imports).
  const tlsAuth: AppTlsAuth | undefined = config.operations.tls.enabled ? await import('@fabric-ops/ops-tls-auth') : undefined;
  const tls = tlsCredentials(loaded, tlsAuth);
  const standIns = clientCaStandIns(env);
  const metrics = await metricsProblems(config.metrics);
  const verdict = verdictOf(startup, [...logged.problems, ...standIns.problems, ...tls.problems, ...metrics]);
  if (verdict.stderr !== '') stderr(verdict.stderr);
  if (verdict.stdout !== '') stdout(verdict.stdout);
  if (verdict.exitCode !== undefined) return verdict.exitCode;

  // The registry is built from the settings checked above and handed to the system. The lean
  // engine writes pino's lines without pino (about 6 MiB of a bin's idle RSS).
  const logging: LeanLogging = createLeanLogging({ spec: logged.settings!.spec, format: logged.settings!.format });
  const logger = logging.getLogger(app.loggerName);
  // Keys that load but are probably mistakes (a misspelt key or section, an unknown provider).
  for (const warning of loaded.warnings) logger.warn(warning);

  let system: AppSystem;
  const checks: string[] = [];
  try {
    system = createSystem(
      {
        listenAddress: config.operations.listenAddress,
        tls: config.operations.tls,
        tlsLabels: loaded.tlsLabels,
        ...(tls.credentials === undefined ? {} : { tlsCredentials: tls.credentials }),
        tlsClientCaStandIns: standIns.enabled,
        health: config.operations.health,
        version: { version: app.version, commitSHA: resolveCommitSha(env) },
        logging,
        loggerName: app.loggerName,
        metrics: metricsOptionsFor(config.metrics, () => system.address()),
      },
      tlsAuth === undefined ? {} : { tlsAuth },
    );
    const registering: AppSystem = {
      ...system,
      registerChecker: (component, checker, options) => {
        system.registerChecker(component, checker, options);
        checks.push(component);
      },
    };
    app.register?.(registering, config);
    await system.start();
  } catch (error) {
    stderr(`${app.startFailurePrefix}: ${(error as Error).message}\n`);
    return 1;
  }
  // Arm the signal handlers before announcing readiness: a supervisor may signal as soon as it reads the line.
  const stopped = runUntilSignalled(system, { logger, forceExitAfterMs: FORCE_EXIT_AFTER_MS });
  const ready = readyLine(config, system.address(), checks.sort());
  logger.info({ config: loaded.file, ...ready.fields }, ready.message);
  app.onReady?.(system);
  return stopped;
}

/** What `runBin` uses of `process` (tests hand in their own). */
export interface BinProcess {
  exitCode?: number | string | null | undefined;
  exit(code: number): void;
  once(signal: NodeJS.Signals, listener: () => void): unknown;
  readonly stderr: { write(text: string): unknown };
}

/**
 * A bin's whole life: runs `run` (a `runOperationsApp` call) and exits with its code. Anything
 * still holding the loop open a second after a graceful stop does not keep the process alive, and
 * a stop signal in that second exits at once with the stop's code (not by the signal's default
 * action, which a shell reports as 130 or 143 after a clean stop). A failure before the app could
 * report one is printed as one line (no stack) and exits 1.
 */
export function runBin(run: () => Promise<number>, proc: BinProcess = process): void {
  run().then(
    (code) => {
      proc.exitCode = code;
      // Signal listeners do not hold Node's loop open: a process with nothing else left still exits now.
      for (const signal of ['SIGINT', 'SIGTERM'] as const) proc.once(signal, () => proc.exit(code));
      setTimeout(() => proc.exit(code), 1_000).unref();
    },
    (error: unknown) => {
      proc.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      proc.exit(1);
    },
  );
}
