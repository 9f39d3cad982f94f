import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parse } from 'yaml';
import { ConfigError } from './errors.ts';
import { locateConfigFile, type LocateOptions } from './locate.ts';

export interface OperationsSettings {
  /** `host:port`; host may be empty. */
  readonly listenAddress: string;
}

export interface PeerConfig {
  readonly operations: OperationsSettings;
}

export interface OrdererConfig {
  readonly operations: OperationsSettings;
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

function stringAt(doc: Record<string, unknown>, file: string, path: readonly string[]): string {
  let node: unknown = doc;
  for (const key of path) {
    if (node === null || typeof node !== 'object') return '';
    node = (node as Record<string, unknown>)[key];
  }
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
  return { file, config: { operations: { listenAddress } } };
}

export function loadOrdererConfig(options: LocateOptions = {}): LoadedConfig<OrdererConfig> {
  const env = options.env ?? process.env;
  const file = locateConfigFile('orderer.yaml', options);
  const doc = readYaml(file);
  const fromEnv = env['ORDERER_OPERATIONS_LISTENADDRESS'];
  const listenAddress = fromEnv !== undefined && fromEnv !== '' ? fromEnv : stringAt(doc, file, ['Operations', 'ListenAddress']);
  return { file, config: { operations: { listenAddress } } };
}
