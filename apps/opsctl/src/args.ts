import { parseDialAddress } from './address.ts';
import { OpsctlError } from './errors.ts';
import { checkPrometheusUrl } from './targets.ts';

export type HealthEndpoint = 'healthz' | 'livez' | 'readyz';

export type Command =
  | { readonly kind: 'logspec-get' }
  | { readonly kind: 'logspec-set'; readonly spec: string }
  | { readonly kind: 'health'; readonly endpoint: HealthEndpoint; readonly component?: string; readonly verbose: boolean }
  | { readonly kind: 'version' }
  | { readonly kind: 'metrics' }
  | { readonly kind: 'help' }
  | { readonly kind: 'version-of-opsctl' };

export interface ConnectionOptions {
  /** `host:port` of the operations server. */
  readonly address: string;
  /** Speak TLS: set by --tls, or implied by any of --cacert/--cert/--key. */
  readonly tls: boolean;
  readonly certFile?: string;
  readonly keyFile?: string;
  readonly caFile?: string;
  /** TLS server name to verify, when it differs from the host in --address. */
  readonly serverName?: string;
  readonly timeoutMs: number;
}

/** Where the targets of a fleet command come from, and how the fleet is driven. */
export interface FleetOptions {
  /** `--targets` files (Prometheus file_sd, JSON or YAML), in order. */
  readonly targetFiles: readonly string[];
  /** Every `--address`, when given more than once or with another target source. */
  readonly addresses: readonly string[];
  /** `--prometheus`: base URL of a Prometheus server whose active targets are the fleet. */
  readonly prometheusUrl?: string;
  /** `--job` (repeatable): only these scrape jobs of that Prometheus; absent, the jobs named `fabric-<something>`. */
  readonly jobs?: readonly string[];
  /** `--match name=value` (and `--role r`, which is `--match role=r`): only targets with every one of these labels. */
  readonly match?: readonly { readonly name: string; readonly value: string }[];
  /** Targets worked on at once. */
  readonly concurrency: number;
  /** The whole command's budget; unfinished targets fail with reason `deadline`. */
  readonly deadlineMs: number;
  /** `logspec set --dry-run`: read every spec, change none. */
  readonly dryRun: boolean;
  /** `logspec set --rollback`: restore the changed targets when any target failed. */
  readonly rollback: boolean;
}

export interface Invocation {
  readonly command: Command;
  /** One target (the old way), or the default credentials and timeout of a fleet. */
  readonly connection: ConnectionOptions;
  readonly json: boolean;
  /** Present when the command runs against a set of targets. */
  readonly fleet?: FleetOptions;
  /** One target: `--deadline`, the budget of the whole command (absent: each request's --timeout bounds it). */
  readonly deadlineMs?: number;
}

export const DEFAULT_ADDRESS = '127.0.0.1:9443';
export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_CONCURRENCY = 16;
export const DEFAULT_DEADLINE_MS = 60_000;

export const USAGE: string = `usage: opsctl [options] <command>

commands:
  logspec get              print the active logging spec
  logspec set <spec>       activate a logging spec (e.g. "gossip=debug:info")
  health [component]       run the health checks (/healthz, or /healthz/<component>)
    --verbose              a line per check: every check with --live/--ready
                           (?verbose); the failing ones only on /healthz
    --live | --ready       ask /livez or /readyz instead
  version                  print the server's version and commit
  metrics                  print the Prometheus metrics (--json: parsed)

options:
  --address <host:port>    operations server (env OPSCTL_ADDRESS, default ${DEFAULT_ADDRESS})
  --cacert <file>          CA bundle that signed the server certificate (env OPSCTL_CACERT; turns on TLS)
  --cert <file>            client certificate for mutual TLS (env OPSCTL_CERT)
  --key <file>             its private key (env OPSCTL_KEY)
  --tls                    use TLS with the system CAs
  --server-name <name>     TLS name to verify when it differs from the address host
  --timeout <duration>     each request, connect to last byte, e.g. 5s or 500ms (default 10s)
  --deadline <duration>    budget for the whole command (one target: none but --timeout)
  --json                   machine-readable output on stdout
  -h, --help               this text
  --version                opsctl's own version

fleet (every target of a set at once; health, version, logspec get|set):
  --targets <file>         a Prometheus file_sd file (JSON or YAML); may be repeated
  --address <host:port>    given more than once: each is a target
  --prometheus <url>       the active targets of a running Prometheus server
  --job <name>             only that Prometheus scrape job; may be repeated
                           (default: the jobs named fabric-<something>; never
                           exporter probes, whose scrape URL has a target parameter)
  --match <name>=<value>   only targets with that label; may be repeated (all must match)
  --role peer|orderer      only targets labelled role=peer or role=orderer
  --concurrency <n>        targets worked on at once (default ${DEFAULT_CONCURRENCY})
  --deadline <duration>    budget for the whole command (fleet default ${DEFAULT_DEADLINE_MS / 1000}s)
  --dry-run                logspec set: show each target's current spec, change nothing
  --rollback               logspec set: if any target failed, restore the ones that changed
  target labels __opsctl_cacert, __opsctl_cert, __opsctl_key, __opsctl_server_name
  (or the same without the leading __) pick another credential set for that target

exit codes: 0 ok, 1 refused by the server (unhealthy, spec rejected), 2 usage,
3 unreachable or out of time, 4 TLS or client certificate problem, 5 unexpected response;
fleet: 0 every target succeeded, 1 any target failed, 2 usage,
3 or 5 the Prometheus server could not list its targets
`;

const VALUE_OPTIONS = new Set(['--address', '--cert', '--key', '--cacert', '--server-name', '--timeout', '--targets', '--prometheus', '--job', '--concurrency', '--deadline', '--match', '--role']);
/** Options that may be given more than once; each value counts. */
const REPEATABLE_OPTIONS = new Set(['--address', '--targets', '--match', '--job']);
const FLAG_OPTIONS = new Set(['--json', '--verbose', '--live', '--ready', '--tls', '--help', '-h', '--dry-run', '--rollback', '--version']);
const ROLES = ['peer', 'orderer'];
const MAX_CONCURRENCY = 1_024;

/** `5s`, `500ms`, `1m`, or a bare number of seconds. */
export function parseTimeout(text: string, option = '--timeout'): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text);
  if (!match) throw new OpsctlError('USAGE', `${option}: expected a duration like 5s or 500ms, got '${text}'`);
  const amount = Number(match[1]);
  const unit = match[2] ?? 's';
  const ms = unit === 'ms' ? amount : unit === 's' ? amount * 1_000 : amount * 60_000;
  if (ms <= 0) throw new OpsctlError('USAGE', `${option}: must be more than zero, got '${text}'`);
  return Math.round(ms);
}

function parseConcurrency(text: string): number {
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > MAX_CONCURRENCY) {
    throw new OpsctlError('USAGE', `--concurrency: expected a whole number from 1 to ${MAX_CONCURRENCY}, got '${text}'`);
  }
  return Number(text);
}

/** `--match name=value` and `--role`, as the labels a target must have. */
function parseMatch(values: ReadonlyMap<string, string>, repeated: ReadonlyMap<string, readonly string[]>): { name: string; value: string }[] {
  const wanted = (repeated.get('--match') ?? []).map((text) => {
    const eq = text.indexOf('=');
    if (eq <= 0 || !/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(text.slice(0, eq))) {
      throw new OpsctlError('USAGE', `--match: expected <label name>=<value>, e.g. org=org1, got '${text}'`);
    }
    return { name: text.slice(0, eq), value: text.slice(eq + 1) };
  });
  const role = values.get('--role');
  if (role !== undefined) {
    if (!ROLES.includes(role)) throw new OpsctlError('USAGE', `--role: expected ${ROLES.join(' or ')}, got '${role}'`);
    wanted.push({ name: 'role', value: role });
  }
  return wanted;
}

/** Checks `host:port` (host may be a bracketed IPv6 literal); returns it unchanged. */
export function checkAddress(address: string): string {
  parseDialAddress(address);
  return address;
}

/** Turns argv (without node and script) and the environment into what to do. Pure. */
export function parseArgs(argv: readonly string[], env: Readonly<Record<string, string | undefined>> = {}): Invocation {
  const values = new Map<string, string>();
  const repeated = new Map<string, string[]>();
  const flags = new Set<string>();
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      positional.push(...argv.slice(i + 1));
      break;
    }
    if (arg.startsWith('-') && arg !== '-') {
      const eq = arg.indexOf('=');
      const name = eq > 0 ? arg.slice(0, eq) : arg;
      if (VALUE_OPTIONS.has(name)) {
        const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
        if (value === undefined) throw new OpsctlError('USAGE', `${name} needs a value`);
        values.set(name, value);
        if (REPEATABLE_OPTIONS.has(name)) repeated.set(name, [...(repeated.get(name) ?? []), value]);
      } else if (FLAG_OPTIONS.has(name) && eq < 0) {
        flags.add(name);
      } else {
        throw new OpsctlError('USAGE', `unknown option '${arg}'; see opsctl --help`);
      }
      continue;
    }
    positional.push(arg);
  }

  const json = flags.has('--json');
  const pick = (option: string, envName: string): string | undefined => values.get(option) ?? (env[envName] || undefined);
  const certFile = pick('--cert', 'OPSCTL_CERT');
  const keyFile = pick('--key', 'OPSCTL_KEY');
  const caFile = pick('--cacert', 'OPSCTL_CACERT');
  const serverName = values.get('--server-name');
  if ((certFile === undefined) !== (keyFile === undefined)) {
    throw new OpsctlError('USAGE', '--cert and --key go together: give both for mutual TLS, or neither');
  }
  const connection: ConnectionOptions = {
    address: checkAddress(pick('--address', 'OPSCTL_ADDRESS') ?? DEFAULT_ADDRESS),
    tls: flags.has('--tls') || certFile !== undefined || caFile !== undefined || serverName !== undefined,
    timeoutMs: values.has('--timeout') ? parseTimeout(values.get('--timeout')!) : DEFAULT_TIMEOUT_MS,
    ...(certFile !== undefined ? { certFile } : {}),
    ...(keyFile !== undefined ? { keyFile } : {}),
    ...(caFile !== undefined ? { caFile } : {}),
    ...(serverName !== undefined ? { serverName } : {}),
  };

  const fleet = fleetOptions(values, repeated, flags);

  if (flags.has('--help') || flags.has('-h') || positional[0] === 'help') return { command: { kind: 'help' }, connection, json };
  if (flags.has('--version')) return { command: { kind: 'version-of-opsctl' }, connection, json };
  const command = parseCommand(positional, flags);
  if (fleet === undefined) {
    return { command, connection, json, ...(values.has('--deadline') ? { deadlineMs: parseTimeout(values.get('--deadline')!, '--deadline') } : {}) };
  }
  if (command.kind === 'metrics') throw new OpsctlError('USAGE', "'metrics' reads one target; drop --targets/--prometheus or give one --address");
  if (command.kind === 'health' && command.verbose) throw new OpsctlError('USAGE', "--verbose prints one server's check lines; with several targets use --json for the failed checks");
  if (command.kind !== 'logspec-set') {
    const only = ['--dry-run', '--rollback'].find((f) => flags.has(f));
    if (only !== undefined) throw new OpsctlError('USAGE', `${only} only applies to 'opsctl logspec set'`);
  }
  if (fleet.dryRun && fleet.rollback) throw new OpsctlError('USAGE', '--dry-run changes nothing, so there is nothing to --rollback');
  return { command, connection, json, fleet };
}

/** The fleet settings, or undefined when the command line names one target the old way. */
function fleetOptions(values: ReadonlyMap<string, string>, repeated: ReadonlyMap<string, readonly string[]>, flags: ReadonlySet<string>): FleetOptions | undefined {
  const addresses = repeated.get('--address') ?? [];
  const targetFiles = repeated.get('--targets') ?? [];
  const prometheusUrl = values.get('--prometheus');
  const isFleet = targetFiles.length > 0 || prometheusUrl !== undefined || addresses.length > 1;
  if (!isFleet) {
    const fleetOnly = ['--job', '--concurrency', '--dry-run', '--rollback', '--match', '--role'].find((o) => values.has(o) || flags.has(o));
    if (fleetOnly !== undefined) {
      throw new OpsctlError('USAGE', `${fleetOnly} applies to a set of targets (--targets, --prometheus, or --address more than once)`);
    }
    return undefined;
  }
  const jobs = repeated.get('--job');
  if (jobs !== undefined && prometheusUrl === undefined) throw new OpsctlError('USAGE', '--job picks a scrape job of --prometheus; give --prometheus too');
  for (const address of addresses) checkAddress(address);
  const match = parseMatch(values, repeated);
  return {
    targetFiles,
    addresses,
    ...(match.length > 0 ? { match } : {}),
    ...(prometheusUrl !== undefined ? { prometheusUrl: checkPrometheusUrl(prometheusUrl) } : {}),
    ...(jobs !== undefined ? { jobs } : {}),
    concurrency: values.has('--concurrency') ? parseConcurrency(values.get('--concurrency')!) : DEFAULT_CONCURRENCY,
    deadlineMs: values.has('--deadline') ? parseTimeout(values.get('--deadline')!, '--deadline') : DEFAULT_DEADLINE_MS,
    dryRun: flags.has('--dry-run'),
    rollback: flags.has('--rollback'),
  };
}

function parseCommand(positional: readonly string[], flags: ReadonlySet<string>): Command {
  const [name, ...rest] = positional;
  const healthOnly = ['--verbose', '--live', '--ready'].filter((f) => flags.has(f));
  if (name !== 'health' && healthOnly.length > 0) throw new OpsctlError('USAGE', `${healthOnly[0]} only applies to 'opsctl health'`);
  const noMore = (command: string, extra: readonly string[]) => {
    if (extra.length > 0) throw new OpsctlError('USAGE', `unexpected argument '${extra[0]}' after '${command}'`);
  };
  switch (name) {
    case undefined:
      throw new OpsctlError('USAGE', 'no command given; see opsctl --help');
    case 'logspec': {
      const [sub, ...args] = rest;
      if (sub === 'get') {
        noMore('logspec get', args);
        return { kind: 'logspec-get' };
      }
      if (sub === 'set') {
        const [spec, ...extra] = args;
        if (spec === undefined) throw new OpsctlError('USAGE', "'logspec set' needs a spec, e.g. opsctl logspec set 'gossip=debug:info'");
        noMore('logspec set <spec>', extra);
        return { kind: 'logspec-set', spec };
      }
      throw new OpsctlError('USAGE', `'logspec' takes 'get' or 'set <spec>'${sub === undefined ? '' : `, not '${sub}'`}`);
    }
    case 'health': {
      const [component, ...extra] = rest;
      noMore('health [component]', extra);
      if (flags.has('--live') && flags.has('--ready')) throw new OpsctlError('USAGE', '--live and --ready exclude each other');
      const endpoint: HealthEndpoint = flags.has('--live') ? 'livez' : flags.has('--ready') ? 'readyz' : 'healthz';
      if (component !== undefined && endpoint !== 'healthz') throw new OpsctlError('USAGE', `a component check goes to /healthz/<component>; drop --${endpoint === 'livez' ? 'live' : 'ready'}`);
      if (component !== undefined && !/^[\w.:#-]+$/.test(component)) throw new OpsctlError('USAGE', `health: bad component name '${component}'`);
      return { kind: 'health', endpoint, verbose: flags.has('--verbose'), ...(component !== undefined ? { component } : {}) };
    }
    case 'version':
      noMore('version', rest);
      return { kind: 'version' };
    case 'metrics':
      noMore('metrics', rest);
      return { kind: 'metrics' };
    default:
      throw new OpsctlError('USAGE', `unknown command '${name}'; commands: logspec, health, version, metrics`);
  }
}
