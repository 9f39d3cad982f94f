import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parse } from 'yaml';
import { ConfigError } from './errors.ts';
import { locateConfigFile, type LocateOptions } from './locate.ts';

export interface TlsSettings {
  readonly enabled: boolean;
  /** Server certificate (PEM; may hold a chain). */
  readonly certFile: string;
  /** Server private key (PEM). */
  readonly keyFile: string;
  readonly clientAuthRequired: boolean;
  /** PEM files of the CAs trusted for client certificates. */
  readonly clientRootCAs: readonly string[];
}

export interface OperationsSettings {
  /** `host:port`; host may be empty. */
  readonly listenAddress: string;
  readonly tls: TlsSettings;
}

export interface StatsdSettings {
  /** `udp` or `tcp`. */
  readonly network: string;
  /** `host:port` of the daemon. */
  readonly address: string;
  readonly writeIntervalMs: number;
  readonly prefix: string;
}

export interface MetricsSettings {
  /** `prometheus`, `statsd` or `disabled`; anything else disables metrics with a warning. */
  readonly provider: string;
  readonly statsd: StatsdSettings;
}

export interface PeerConfig {
  readonly operations: OperationsSettings;
  readonly metrics: MetricsSettings;
  /** `vm.endpoint`: the container runtime's API; '' means no `docker` health checker. */
  readonly vm: { readonly endpoint: string };
}

export interface OrdererConfig {
  readonly operations: OperationsSettings;
  readonly metrics: MetricsSettings;
}

export interface LoadedConfig<T> {
  /** The file the configuration was read from. */
  readonly file: string;
  readonly config: T;
}

function readYaml(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (cause) {
    throw new ConfigError('CONFIG_UNREADABLE', [`${file}: cannot be read: ${(cause as Error).message}`], { cause });
  }
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (cause) {
    const first = String((cause as Error).message).split('\n')[0];
    throw new ConfigError('CONFIG_INVALID', [`${basename(file)}: not valid YAML: ${first}`], { cause });
  }
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== 'object' || Array.isArray(doc)) {
    throw new ConfigError('CONFIG_INVALID', [`${basename(file)}: expected a mapping at the top level`]);
  }
  return doc as Record<string, unknown>;
}

function valueAt(doc: Record<string, unknown>, path: readonly string[]): unknown {
  let node: unknown = doc;
  for (const key of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function durationMs(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(text);
  if (!match) return 0;
  const unit = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }[match[2] as 'ms' | 's' | 'm' | 'h'];
  return Number(match[1]) * unit;
}

function stringAt(doc: Record<string, unknown>, file: string, path: readonly string[]): string {
  const node = valueAt(doc, path);
  if (node === undefined || node === null) return '';
  if (typeof node !== 'string' && typeof node !== 'number') {
    throw new ConfigError('CONFIG_INVALID', [`${basename(file)}: ${path.join('.')}: expected a string, got ${JSON.stringify(node)}`]);
  }
  return String(node);
}

export function loadPeerConfig(options: LocateOptions = {}): LoadedConfig<PeerConfig> {
  const env = options.env ?? process.env;
  const file = locateConfigFile('core.yaml', options);
  const doc = readYaml(file);
  const fromEnv = env['CORE_OPERATIONS_LISTENADDRESS'];
  const listenAddress = fromEnv ?? stringAt(doc, file, ['operations', 'listenAddress']);
  const at = (...path: string[]) => stringAt(doc, file, path);
  const cas = valueAt(doc, ['operations', 'tls', 'clientRootCAs', 'files']);
  return {
    file,
    config: {
      operations: {
        listenAddress,
        tls: {
          enabled: valueAt(doc, ['operations', 'tls', 'enabled']) === true,
          certFile: at('operations', 'tls', 'cert', 'file'),
          keyFile: at('operations', 'tls', 'key', 'file'),
          clientAuthRequired: valueAt(doc, ['operations', 'tls', 'clientAuthRequired']) === true,
          clientRootCAs: Array.isArray(cas) ? cas.map(String) : [],
        },
      },
      metrics: {
        provider: at('metrics', 'provider'),
        statsd: {
          network: at('metrics', 'statsd', 'network'),
          address: at('metrics', 'statsd', 'address'),
          writeIntervalMs: durationMs(at('metrics', 'statsd', 'writeInterval')),
          prefix: at('metrics', 'statsd', 'prefix'),
        },
      },
      vm: { endpoint: at('vm', 'endpoint') },
    },
  };
}

export function loadOrdererConfig(options: LocateOptions = {}): LoadedConfig<OrdererConfig> {
  const env = options.env ?? process.env;
  const file = locateConfigFile('orderer.yaml', options);
  const doc = readYaml(file);
  const fromEnv = env['ORDERER_OPERATIONS_LISTENADDRESS'];
  const listenAddress = fromEnv !== undefined && fromEnv !== '' ? fromEnv : stringAt(doc, file, ['Operations', 'ListenAddress']);
  const at = (...path: string[]) => stringAt(doc, file, path);
  const cas = valueAt(doc, ['Operations', 'TLS', 'ClientRootCAs']);
  return {
    file,
    config: {
      operations: {
        listenAddress,
        tls: {
          enabled: valueAt(doc, ['Operations', 'TLS', 'Enabled']) === true,
          certFile: at('Operations', 'TLS', 'Certificate'),
          keyFile: at('Operations', 'TLS', 'PrivateKey'),
          clientAuthRequired: valueAt(doc, ['Operations', 'TLS', 'ClientAuthRequired']) === true,
          clientRootCAs: Array.isArray(cas) ? cas.map(String) : [],
        },
      },
      metrics: {
        provider: at('Metrics', 'Provider'),
        statsd: {
          network: at('Metrics', 'Statsd', 'Network'),
          address: at('Metrics', 'Statsd', 'Address'),
          writeIntervalMs: durationMs(at('Metrics', 'Statsd', 'WriteInterval')),
          prefix: at('Metrics', 'Statsd', 'Prefix'),
        },
      },
    },
  };
}
