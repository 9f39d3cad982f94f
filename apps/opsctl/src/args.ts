import { OpsctlError } from './errors.ts';

export type HealthEndpoint = 'healthz' | 'livez' | 'readyz';

export type Command =
  | { readonly kind: 'logspec-get' }
  | { readonly kind: 'logspec-set'; readonly spec: string }
  | { readonly kind: 'health'; readonly endpoint: HealthEndpoint; readonly component?: string; readonly verbose: boolean }
  | { readonly kind: 'version' }
  | { readonly kind: 'metrics' }
  | { readonly kind: 'help' };

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

export interface Invocation {
  readonly command: Command;
  readonly connection: ConnectionOptions;
  readonly json: boolean;
}

export const DEFAULT_ADDRESS = '127.0.0.1:9443';
export const DEFAULT_TIMEOUT_MS = 10_000;

export const USAGE = `usage: opsctl [options] <command>

commands:
  logspec get              print the active logging spec
  logspec set <spec>       activate a logging spec (e.g. "gossip=debug:info")
  health [component]       run the health checks (/healthz, or /healthz/<component>)
    --verbose              per-check lines from the server (?verbose)
    --live | --ready       ask /livez or /readyz instead
  version                  print the server's version and commit
  metrics                  print the Prometheus metrics (--json: parsed)

options:
  --address <host:port>    operations server (env OPSCTL_ADDRESS, default ${DEFAULT_ADDRESS})
  --cacert <file>          CA bundle that signed the server certificate (turns on TLS)
  --cert <file>            client certificate for mutual TLS (env OPSCTL_CERT)
  --key <file>             its private key (env OPSCTL_KEY)
  --tls                    use TLS with the system CAs
  --server-name <name>     TLS name to verify when it differs from the address host
  --timeout <duration>     per request, e.g. 5s or 500ms (default 10s)
  --json                   machine-readable output on stdout
  -h, --help               this text

exit codes: 0 ok, 1 refused by the server (unhealthy, spec rejected), 2 usage,
3 unreachable, 4 TLS or client certificate problem, 5 unexpected response
`;

const VALUE_OPTIONS = new Set(['--address', '--cert', '--key', '--cacert', '--server-name', '--timeout']);
const FLAG_OPTIONS = new Set(['--json', '--verbose', '--live', '--ready', '--tls', '--help', '-h']);

/** `5s`, `500ms`, `1m`, or a bare number of seconds. */
export function parseTimeout(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text);
  if (!match) throw new OpsctlError('USAGE', `--timeout: expected a duration like 5s or 500ms, got '${text}'`);
  const amount = Number(match[1]);
  const unit = match[2] ?? 's';
  const ms = unit === 'ms' ? amount : unit === 's' ? amount * 1_000 : amount * 60_000;
  if (ms <= 0) throw new OpsctlError('USAGE', `--timeout: must be more than zero, got '${text}'`);
  return Math.round(ms);
}

/** Checks `host:port` (host may be a bracketed IPv6 literal); returns it unchanged. */
export function checkAddress(address: string): string {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^\s:/[\]]*):(\d{1,5})$/.exec(address);
  if (!match || Number(match[2]) > 65_535 || Number(match[2]) === 0) {
    throw new OpsctlError('USAGE', `--address: expected host:port (e.g. 127.0.0.1:9443), got '${address}'`);
  }
  return address;
}

/** Turns argv (without node and script) and the environment into what to do. Pure. */
export function parseArgs(argv: readonly string[], env: Readonly<Record<string, string | undefined>> = {}): Invocation {
  const values = new Map<string, string>();
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

  if (flags.has('--help') || flags.has('-h') || positional[0] === 'help') return { command: { kind: 'help' }, connection, json };
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
        return { command: { kind: 'logspec-get' }, connection, json };
      }
      if (sub === 'set') {
        const [spec, ...extra] = args;
        if (spec === undefined) throw new OpsctlError('USAGE', "'logspec set' needs a spec, e.g. opsctl logspec set 'gossip=debug:info'");
        noMore('logspec set <spec>', extra);
        return { command: { kind: 'logspec-set', spec }, connection, json };
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
      return { command: { kind: 'health', endpoint, verbose: flags.has('--verbose'), ...(component !== undefined ? { component } : {}) }, connection, json };
    }
    case 'version':
      noMore('version', rest);
      return { command: { kind: 'version' }, connection, json };
    case 'metrics':
      noMore('metrics', rest);
      return { command: { kind: 'metrics' }, connection, json };
    default:
      throw new OpsctlError('USAGE', `unknown command '${name}'; commands: logspec, health, version, metrics`);
  }
}
