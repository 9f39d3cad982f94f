import { readRegularFileSync } from '@fabric-ops/ops-http/fs';
import { basename, dirname } from 'node:path';
import { isMap, isScalar, isSeq, isPair, LineCounter, parseDocument, type Document, type Node as YamlNode } from 'yaml';
import { ConfigError } from './errors.ts';
import type { DockerEndpoint } from '@fabric-ops/ops-health/endpoint';
import type { HostPort } from '@fabric-ops/ops-http/go';
// The receiving packages own these shapes; the config produces them (types only: nothing of either is loaded).
import type { StatsdTarget } from '@fabric-ops/ops-metrics';
import type { TlsSettings } from '@fabric-ops/ops-tls-auth';
import { dialectFor, type AppKind, type SettingRole } from './keys.ts';
import { locateConfigFile, type LocateOptions } from './locate.ts';
import type { OtlpTarget } from './otlp.ts';
import { resolveSettings, type Resolution, type ValueSource } from './resolve.ts';

/**
 * What a message about each TLS file calls it: the environment variable when it set the path
 * (`CORE_OPERATIONS_TLS_CERT_FILE`), else `<file>: <key>` (`core.yaml: operations.tls.cert.file`).
 * The shape of ops-tls-auth's key names: pass it there so its errors name what the operator wrote.
 */
export interface TlsLabels {
  readonly certFile: string;
  readonly keyFile: string;
  readonly clientRootCAs: string;
}

/** ops-health's options: the health keys are ours, not Fabric's. */
export interface HealthSettings {
  /** How long one check may run before it fails. Default 5 s. */
  readonly checkTimeoutMs: number;
  /** How long a check result is reused; 0 (the default) runs every check on every request. */
  readonly cacheTtlMs: number;
  /**
   * How often every check runs on its own, so health_check_status is current when nothing asks
   * /healthz; 0 (the default) runs checks only when asked, as Fabric does.
   */
  readonly backgroundIntervalMs: number;
}

export interface OperationsSettings {
  /** Where the server listens; host '' is every interface, port 0 a free port. */
  readonly listenAddress: HostPort;
  readonly tls: TlsSettings;
  readonly health: HealthSettings;
}

/**
 * The metrics section. An unknown provider has already become `disabled`, with one warning
 * in `warnings`; the statsd section is there only when StatsD is the provider; `otlp` only when
 * the OTLP push is on, which needs the prometheus provider.
 */
export type MetricsSettings =
  { readonly provider: 'prometheus' | 'disabled'; readonly statsd?: undefined; readonly otlp?: OtlpTarget } | { readonly provider: 'statsd'; readonly statsd: StatsdTarget };

export interface PeerConfig {
  readonly operations: OperationsSettings;
  readonly metrics: MetricsSettings;
  /** `vm.endpoint`: the container runtime's API; undefined when empty (no `docker` health checker). */
  readonly vm: { readonly endpoint: DockerEndpoint | undefined };
}

export interface OrdererConfig {
  readonly operations: OperationsSettings;
  readonly metrics: MetricsSettings;
}

export type { ValueSource } from './resolve.ts';
export type { StatsdTarget, TlsSettings };

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
  /** How messages name the TLS files (see TlsLabels). */
  readonly tlsLabels: TlsLabels;
}

export type LoadOptions = LocateOptions;

/** Larger than any real core.yaml by orders of magnitude; stops a wrong path from filling memory. */
const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

/**
 * The file's text, read as a regular file of bounded size: a FIFO put where the file should be
 * is refused instead of waited on, a /proc file is read whole (its size says 0).
 */
function readConfigText(file: string): string {
  const result = readRegularFileSync(file, { maxBytes: MAX_CONFIG_BYTES });
  if (!result.ok) throw new ConfigError('CONFIG_UNREADABLE', [`${basename(file)}: cannot be read: ${result.message}`]);
  return result.bytes.toString('utf8');
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.replace(/:$/, '');
}

/** Where yaml reports a duplicate key: an empty key (`: 1`) at its `:`, any other at its start. */
function keyOffset(key: YamlNode, text: string): number {
  const [start = 0, end = start] = key.range ?? [];
  if (start !== end) return start;
  let at = start;
  while (text[at] === ' ' || text[at] === '\t') at += 1;
  return at;
}

interface KeyProblem {
  readonly offset: number;
  readonly what: 'duplicate' | 'collection';
}

/**
 * Keys no Go decoder takes: a duplicate, and a mapping or a list used as a key (yaml would turn
 * it into text, with a warning from Node on stderr; Go's decoders refuse it). yaml's own
 * duplicate-key check compares each key with every earlier one of its map (32,000 keys took
 * 29 s); this is the same rule (scalar keys with equal values; other keys never match) with one
 * Set per map. Each offset is the key's own, which is where yaml reports a duplicate too for a
 * key that starts its line (after an empty value yaml names the end of the line before).
 */
function keyProblems(document: Document, text: string): KeyProblem[] {
  const found: KeyProblem[] = [];
  // a stack, not recursion: nesting as deep as yaml parses stays within bounds here
  const pending: unknown[] = [document.contents];
  while (pending.length > 0) {
    const node = pending.pop();
    if (isMap(node)) {
      const seen = new Set<unknown>();
      for (const pair of node.items) {
        const key = pair.key as YamlNode | null;
        // yaml compares with ===: NaN never equals itself
        if (isScalar(key) && !Number.isNaN(key.value)) {
          if (seen.has(key.value)) found.push({ offset: keyOffset(key, text), what: 'duplicate' });
          else seen.add(key.value);
        } else if (isMap(key) || isSeq(key)) {
          found.push({ offset: key.range?.[0] ?? 0, what: 'collection' });
        }
        pending.push(pair.key, pair.value);
      }
    } else if (isSeq(node)) {
      for (const item of node.items) pending.push(item);
    } else if (isPair(node)) {
      pending.push(node.key, node.value);
    }
  }
  return found.sort((a, b) => a.offset - b.offset);
}

function parseYaml(text: string, label: string): unknown {
  const lineCounter = new LineCounter();
  // merge keys (`<<: *base`) as Go's YAML decoders understand them
  const document = parseDocument(text, { merge: true, uniqueKeys: false, prettyErrors: true, lineCounter });
  const problems = document.errors.map((error) => ({ at: error.pos[0], line: `${label}: not valid YAML: ${firstLine(error.message)}` }));
  for (const { offset, what } of keyProblems(document, text)) {
    const { line, col } = lineCounter.linePos(offset);
    const why = what === 'duplicate' ? 'Map keys must be unique' : 'a key must be a scalar (text, a number or a boolean), not a mapping or a list';
    problems.push({ at: offset, line: `${label}: not valid YAML: ${why} at line ${line}, column ${col}` });
  }
  if (problems.length > 0) {
    throw new ConfigError(
      'CONFIG_INVALID',
      problems.sort((a, b) => a.at - b.at).map((problem) => problem.line),
    );
  }
  try {
    return document.toJS({ maxAliasCount: 1000 });
  } catch (cause) {
    throw new ConfigError('CONFIG_INVALID', [`${label}: not valid YAML: ${firstLine(String((cause as Error).message))}`], { cause });
  }
}

export interface ParseTextOptions {
  /** The file the text came from: its name labels messages, its directory anchors the peer's TLS paths. */
  readonly file: string;
  readonly env?: NodeJS.ProcessEnv;
}

function settingsFrom(resolution: Resolution): OrdererConfig {
  const { values, parsed } = resolution;
  const text = (role: SettingRole) => values.get(role) as string;
  const flag = (role: SettingRole) => values.get(role) as boolean;
  // `+ 0` folds -0 (from `-0s`) into 0
  const millis = (role: SettingRole) => (values.get(role) as number) / 1e6 + 0;
  const metrics: MetricsSettings =
    parsed.provider === 'statsd'
      ? {
          provider: 'statsd',
          statsd: {
            network: text('statsd.network') as 'udp' | 'tcp',
            host: parsed.statsdAddress.host,
            port: parsed.statsdAddress.port,
            writeIntervalMs: millis('statsd.writeInterval'),
            prefix: text('statsd.prefix'),
          },
        }
      : { provider: parsed.provider, ...(parsed.otlp === undefined ? {} : { otlp: parsed.otlp }) };
  return {
    operations: {
      listenAddress: parsed.listenAddress,
      tls: {
        enabled: flag('tls.enabled'),
        certFile: text('tls.certFile'),
        keyFile: text('tls.keyFile'),
        clientAuthRequired: flag('tls.clientAuthRequired'),
        clientRootCAs: [...(values.get('tls.clientRootCAs') as readonly string[])],
      },
      health: { checkTimeoutMs: millis('health.checkTimeout'), cacheTtlMs: millis('health.cacheTTL'), backgroundIntervalMs: millis('health.checkInterval') },
    },
    metrics,
  };
}

/** A loaded file with what --print-config shows: every key's effective value, before typing. */
export interface ResolvedConfig<T> {
  readonly loaded: LoadedConfig<T>;
  readonly resolution: Resolution;
}

/** parseConfigText, keeping the resolution for the command line's --print-config. */
export function resolveConfigText(app: AppKind, text: string, options: ParseTextOptions): ResolvedConfig<PeerConfig | OrdererConfig> {
  const dialect = dialectFor(app);
  const fileLabel = basename(options.file);
  const document = parseYaml(text, fileLabel);
  const resolution = resolveSettings({
    dialect,
    document,
    env: options.env ?? process.env,
    fileLabel,
    configDir: dirname(options.file),
  });
  if (resolution.problems.length > 0) throw new ConfigError('CONFIG_INVALID', resolution.problems);
  const settings = settingsFrom(resolution);
  const config = app === 'peer' ? { ...settings, vm: { endpoint: resolution.parsed.dockerEndpoint } } : settings;
  const label = (role: SettingRole) => resolution.labels.get(role)!;
  const tlsLabels = { certFile: label('tls.certFile'), keyFile: label('tls.keyFile'), clientRootCAs: label('tls.clientRootCAs') };
  return { loaded: { file: options.file, config, app, sources: resolution.sources, warnings: resolution.warnings, tlsLabels }, resolution };
}

/** Parses a config file's text for `app`. Throws a ConfigError listing every problem. */
export function parseConfigText(app: 'peer', text: string, options: ParseTextOptions): LoadedConfig<PeerConfig>;
export function parseConfigText(app: 'orderer', text: string, options: ParseTextOptions): LoadedConfig<OrdererConfig>;
export function parseConfigText(app: AppKind, text: string, options: ParseTextOptions): LoadedConfig<PeerConfig | OrdererConfig>;
export function parseConfigText(app: AppKind, text: string, options: ParseTextOptions): LoadedConfig<PeerConfig | OrdererConfig> {
  return resolveConfigText(app, text, options).loaded;
}

/** Finds and reads `app`'s file, keeping the resolution (for the command line). */
export function resolveConfigFile(app: AppKind, options: LoadOptions): ResolvedConfig<PeerConfig | OrdererConfig> {
  const file = locateConfigFile(dialectFor(app).fileName, options);
  return resolveConfigText(app, readConfigText(file), { file, ...(options.env === undefined ? {} : { env: options.env }) });
}

function load(app: AppKind, options: LoadOptions): LoadedConfig<PeerConfig | OrdererConfig> {
  return resolveConfigFile(app, options).loaded;
}

/** Finds and reads the peer's `core.yaml`, applies `CORE_*` overrides, validates. Throws ConfigError. */
export function loadPeerConfig(options: LoadOptions = {}): LoadedConfig<PeerConfig> {
  return load('peer', options) as LoadedConfig<PeerConfig>;
}

/** Finds and reads the orderer's `orderer.yaml`, applies `ORDERER_*` overrides, validates. Throws ConfigError. */
export function loadOrdererConfig(options: LoadOptions = {}): LoadedConfig<OrdererConfig> {
  return load('orderer', options) as LoadedConfig<OrdererConfig>;
}
