import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { parseDocument } from 'yaml';
import { ConfigError } from './errors.ts';
import { dialectFor, type AppKind, type SettingRole, type SettingValue } from './keys.ts';
import { locateConfigFile, type LocateOptions } from './locate.ts';
import { resolveSettings, type ValueSource } from './resolve.ts';

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

export type { ValueSource } from './resolve.ts';

export interface LoadedConfig<T> {
  /** The file the configuration was read from. */
  readonly file: string;
  readonly config: T;
  /** Which app's file this is. */
  readonly app: AppKind;
  /**
   * Where each value came from, by key as Fabric's sample spells it
   * (`operations.tls.enabled`, `Metrics.Statsd.WriteInterval`).
   */
  readonly sources: Readonly<Record<string, ValueSource>>;
  /** Things that load but are probably not meant (unknown peer keys, an unknown provider). */
  readonly warnings: readonly string[];
}

export type LoadOptions = LocateOptions;

/** Larger than any real core.yaml by orders of magnitude; stops a wrong path from filling memory. */
const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

function readConfigText(file: string): string {
  const label = basename(file);
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (cause) {
    throw new ConfigError('CONFIG_UNREADABLE', [`${label}: cannot be read: ${(cause as Error).message}`], { cause });
  }
  try {
    const size = fstatSync(fd).size;
    if (size > MAX_CONFIG_BYTES) {
      throw new ConfigError('CONFIG_UNREADABLE', [`${label}: expected at most ${MAX_CONFIG_BYTES} bytes, got ${size} (${file})`]);
    }
    const buffer = Buffer.alloc(size);
    let offset = 0;
    while (offset < size) {
      const read = readSync(fd, buffer, offset, size - offset, offset);
      if (read === 0) break;
      offset += read;
    }
    return buffer.toString('utf8', 0, offset);
  } catch (cause) {
    if (cause instanceof ConfigError) throw cause;
    throw new ConfigError('CONFIG_UNREADABLE', [`${label}: cannot be read: ${(cause as Error).message}`], { cause });
  } finally {
    closeSync(fd);
  }
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.replace(/:$/, '');
}

function parseYaml(text: string, label: string): unknown {
  // merge keys (`<<: *base`) as Go's YAML decoders understand them
  const document = parseDocument(text, { merge: true, uniqueKeys: true, prettyErrors: true });
  if (document.errors.length > 0) {
    throw new ConfigError(
      'CONFIG_INVALID',
      document.errors.map((error) => `${label}: not valid YAML: ${firstLine(error.message)}`),
    );
  }
  try {
    return document.toJS({ maxAliasCount: 1000 });
  } catch (cause) {
    throw new ConfigError('CONFIG_INVALID', [`${label}: not valid YAML: ${firstLine(String((cause as Error).message))}`], { cause });
  }
}

interface ParseTextOptions {
  /** The file the text came from: its name labels messages, its directory anchors the peer's TLS paths. */
  readonly file: string;
  readonly env?: NodeJS.ProcessEnv;
}

function settingsFrom(values: ReadonlyMap<SettingRole, SettingValue>) {
  const text = (role: SettingRole) => values.get(role) as string;
  const flag = (role: SettingRole) => values.get(role) as boolean;
  return {
    operations: {
      listenAddress: text('listenAddress'),
      tls: {
        enabled: flag('tls.enabled'),
        certFile: text('tls.certFile'),
        keyFile: text('tls.keyFile'),
        clientAuthRequired: flag('tls.clientAuthRequired'),
        clientRootCAs: [...(values.get('tls.clientRootCAs') as readonly string[])],
      },
    },
    metrics: {
      provider: text('metrics.provider'),
      statsd: {
        network: text('statsd.network'),
        address: text('statsd.address'),
        // `+ 0` folds -0 (from `-0s`) into 0
        writeIntervalMs: (values.get('statsd.writeInterval') as number) / 1e6 + 0,
        prefix: text('statsd.prefix'),
      },
    },
  };
}

/** Parses a config file's text for `app`. Throws a ConfigError listing every problem. */
export function parseConfigText(app: 'peer', text: string, options: ParseTextOptions): LoadedConfig<PeerConfig>;
export function parseConfigText(app: 'orderer', text: string, options: ParseTextOptions): LoadedConfig<OrdererConfig>;
export function parseConfigText(app: AppKind, text: string, options: ParseTextOptions): LoadedConfig<PeerConfig | OrdererConfig>;
export function parseConfigText(app: AppKind, text: string, options: ParseTextOptions): LoadedConfig<PeerConfig | OrdererConfig> {
  const dialect = dialectFor(app);
  const label = basename(options.file);
  const document = parseYaml(text, label);
  const resolution = resolveSettings({
    dialect,
    document,
    env: options.env ?? process.env,
    fileLabel: label,
    configDir: dirname(options.file),
  });
  if (resolution.problems.length > 0) throw new ConfigError('CONFIG_INVALID', resolution.problems);
  const settings = settingsFrom(resolution.values);
  const config = app === 'peer' ? { ...settings, vm: { endpoint: resolution.values.get('vm.endpoint') as string } } : settings;
  return { file: options.file, config, app, sources: resolution.sources, warnings: resolution.warnings };
}

function load(app: AppKind, options: LoadOptions): LoadedConfig<PeerConfig | OrdererConfig> {
  const env = options.env ?? process.env;
  const file = locateConfigFile(dialectFor(app).fileName, options);
  return parseConfigText(app, readConfigText(file), { file, env });
}

/** Finds and reads the peer's `core.yaml`, applies `CORE_*` overrides, validates. Throws ConfigError. */
export function loadPeerConfig(options: LoadOptions = {}): LoadedConfig<PeerConfig> {
  return load('peer', options) as LoadedConfig<PeerConfig>;
}

/** Finds and reads the orderer's `orderer.yaml`, applies `ORDERER_*` overrides, validates. Throws ConfigError. */
export function loadOrdererConfig(options: LoadOptions = {}): LoadedConfig<OrdererConfig> {
  return load('orderer', options) as LoadedConfig<OrdererConfig>;
}
