import { isConfigError } from './errors.ts';
import { dialectFor, type AppKind } from './keys.ts';
import { resolveConfigFile, type LoadedConfig, type OrdererConfig, type PeerConfig, type ResolvedConfig } from './load.ts';
import { renderEffectiveConfig } from './print.ts';

export type CommandLineAction = 'run' | 'print-config' | 'check-config' | 'help';

export type ParsedCommandLine = { readonly ok: true; readonly action: CommandLineAction; readonly configFile?: string; readonly strict?: true } | { readonly ok: false; readonly message: string };

/**
 * The flags both apps take: `--config <file>` (or `--config=<file>`), `--print-config`,
 * `--check-config`, `--strict` (a warning is a problem), `--help` / `-h`. Pure; nothing is printed.
 */
export function parseCommandLine(argv: readonly string[]): ParsedCommandLine {
  const flags = new Set<'print-config' | 'check-config' | 'help' | 'strict'>();
  let configFile: string | undefined;
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index]!;
    if (arg === '--config' || arg.startsWith('--config=')) {
      const value = arg === '--config' ? argv[++index] : arg.slice('--config='.length);
      if (value === undefined || value === '' || (arg === '--config' && value.startsWith('--'))) {
        return { ok: false, message: '--config needs a file path: --config <file>' };
      }
      if (configFile !== undefined) return { ok: false, message: '--config given more than once' };
      configFile = value;
    } else if (arg === '--print-config') flags.add('print-config');
    else if (arg === '--check-config') flags.add('check-config');
    else if (arg === '--strict') flags.add('strict');
    else if (arg === '--help' || arg === '-h') flags.add('help');
    else if (arg.startsWith('-')) return { ok: false, message: `unknown flag ${JSON.stringify(arg)}` };
    else return { ok: false, message: `unexpected argument ${JSON.stringify(arg)}` };
  }
  if (!flags.has('help')) {
    if (flags.has('print-config') && flags.has('check-config')) return { ok: false, message: '--print-config and --check-config cannot be combined' };
    if (flags.has('print-config') && flags.has('strict')) return { ok: false, message: '--strict applies to --check-config and to a run, not to --print-config' };
  }
  const action: CommandLineAction = flags.has('help') ? 'help' : flags.has('print-config') ? 'print-config' : flags.has('check-config') ? 'check-config' : 'run';
  return {
    ok: true,
    action,
    ...(configFile === undefined ? {} : { configFile }),
    ...(flags.has('strict') && action !== 'help' ? { strict: true as const } : {}),
  };
}

export interface CommandLineOptions {
  /** Arguments after the script name. Default `process.argv.slice(2)`. */
  readonly argv?: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  /** The sample config the app ships, the last place searched. */
  readonly sampleFile?: string;
  /** The program name shown in help and errors. Default `fabric-ops-<app>`. */
  readonly program?: string;
  readonly stdout?: (text: string) => void;
  readonly stderr?: (text: string) => void;
}

/**
 * Either the loaded configuration, for a run or for `--check-config` (the caller makes its
 * own checks, the same for both, then prints the verdict or starts), or the exit code the app
 * should stop with (help, a bad command line, `--print-config`, problems in the file: printed).
 */
export type CommandLineOutcome<T> = { readonly action: 'run' | 'check-config'; readonly loaded: LoadedConfig<T>; readonly strict: boolean } | { readonly action: 'exit'; readonly exitCode: number };

/** Exit status for a command line that cannot be understood (as Go's flag package uses). */
export const USAGE_EXIT_CODE = 2;

function helpText(app: AppKind, program: string): string {
  const dialect = dialectFor(app);
  const envPrefix = app === 'peer' ? 'CORE_' : 'ORDERER_';
  return [
    `usage: ${program} [--config <file>] [--print-config | --check-config] [--strict]`,
    '',
    `Runs the ${app}'s operations service (/healthz, /logspec, /version, /metrics) from ${dialect.fileName}.`,
    '',
    'options:',
    `  --config <file>   read this ${dialect.fileName} instead of searching for one`,
    '  --print-config    print the effective configuration and where each value came from, then exit',
    '  --check-config    validate the configuration, print "configuration OK: <file>" or the problems, then exit',
    '  --strict          treat every warning (a misspelt key or section, an unknown provider) as a problem',
    '  -h, --help        print this help and exit',
    '',
    `${dialect.fileName} is searched in $FABRIC_CFG_PATH, else ./, else /etc/hyperledger/fabric, else the shipped sample.`,
    `Every key can be overridden by an environment variable: ${dialect.keys[0]!.key} -> ${dialect.keys[0]!.envVar} (prefix ${envPrefix}).`,
    '',
  ].join('\n');
}

function outcomeFor<T>(app: AppKind, options: CommandLineOptions, load: (configFile: string | undefined) => ResolvedConfig<T>): CommandLineOutcome<T> {
  const program = options.program ?? `fabric-ops-${app}`;
  const stdout = options.stdout ?? ((text: string) => void process.stdout.write(text));
  const stderr = options.stderr ?? ((text: string) => void process.stderr.write(text));
  const parsed = parseCommandLine(options.argv ?? process.argv.slice(2));
  if (!parsed.ok) {
    stderr(`${program}: ${parsed.message} (see --help)\n`);
    return { action: 'exit', exitCode: USAGE_EXIT_CODE };
  }
  if (parsed.action === 'help') {
    stdout(helpText(app, program));
    return { action: 'exit', exitCode: 0 };
  }
  const lines = (texts: readonly string[], prefix = '') => texts.map((line) => `${prefix}${line}\n`).join('');
  let resolved: ResolvedConfig<T>;
  try {
    resolved = load(parsed.configFile);
  } catch (error) {
    if (!isConfigError(error)) throw error;
    stderr(lines(error.problems));
    return { action: 'exit', exitCode: 1 };
  }
  const { loaded } = resolved;
  if (parsed.action === 'print-config') {
    if (loaded.warnings.length > 0) stderr(lines(loaded.warnings, 'warning: '));
    stdout(renderEffectiveConfig(resolved));
    return { action: 'exit', exitCode: 0 };
  }
  return { action: parsed.action, loaded, strict: parsed.strict === true };
}

function locateOptions(options: CommandLineOptions, configFile: string | undefined) {
  return {
    ...(options.env !== undefined && { env: options.env }),
    ...(options.cwd !== undefined && { cwd: options.cwd }),
    ...(options.sampleFile !== undefined && { sampleFile: options.sampleFile }),
    ...(configFile !== undefined && { configFile }),
  };
}

/**
 * The peer's command line and `core.yaml`: parses the flags, loads the file, and handles
 * `--help` and `--print-config` itself (printing, then an exit code). Problems in the file are
 * printed one per line to stderr, for every action. A run and `--check-config` get the loaded
 * configuration back: nothing is called back, the caller's own checks come next.
 */
export function peerConfigFromCommandLine(options: CommandLineOptions = {}): CommandLineOutcome<PeerConfig> {
  return outcomeFor('peer', options, (configFile) => resolveConfigFile('peer', locateOptions(options, configFile)) as ResolvedConfig<PeerConfig>);
}

/** The orderer's start-up, as peerConfigFromCommandLine with `orderer.yaml`. */
export function ordererConfigFromCommandLine(options: CommandLineOptions = {}): CommandLineOutcome<OrdererConfig> {
  return outcomeFor('orderer', options, (configFile) => resolveConfigFile('orderer', locateOptions(options, configFile)) as ResolvedConfig<OrdererConfig>);
}
