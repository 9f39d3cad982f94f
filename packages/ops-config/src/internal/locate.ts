import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError } from './errors.ts';

export interface LocateOptions {
  /** Environment to read `FABRIC_CFG_PATH` and the overrides from. Default `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
  /** Directory relative paths are taken from. Default `process.cwd()`. */
  readonly cwd?: string;
  /** A file (or directory) named on the command line (`--config`); wins over every search. */
  readonly configFile?: string;
  /** The sample file the app ships, used when no other file is found. */
  readonly sampleFile?: string;
  /** The system-wide directory searched after the working directory. Default `/etc/hyperledger/fabric`. */
  readonly systemConfigDir?: string;
}

export const FABRIC_SYSTEM_CONFIG_DIR = '/etc/hyperledger/fabric';

function kindOf(path: string): 'file' | 'directory' | 'other' | 'missing' {
  try {
    const stats = statSync(path);
    if (stats.isFile()) return 'file';
    return stats.isDirectory() ? 'directory' : 'other';
  } catch {
    return 'missing';
  }
}

/**
 * Fabric's search for `core.yaml` / `orderer.yaml`. An explicit `configFile` wins. Then
 * `$FABRIC_CFG_PATH` when set: only that directory is searched, and it must exist. Otherwise
 * the working directory, then `/etc/hyperledger/fabric`, then the app's shipped sample.
 * The not-found error names every place searched.
 */
export function locateConfigFile(fileName: string, options: LocateOptions = {}): string {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  if (options.configFile !== undefined) {
    const given = resolve(cwd, options.configFile);
    const kind = kindOf(given);
    if (kind === 'file') return given;
    if (kind === 'directory' && kindOf(join(given, fileName)) === 'file') return join(given, fileName);
    const looked = kind === 'directory' ? join(given, fileName) : given;
    throw new ConfigError('CONFIG_NOT_FOUND', [`--config ${options.configFile}: ${looked} does not exist`]);
  }
  const cfgPath = env['FABRIC_CFG_PATH'];
  if (cfgPath !== undefined && cfgPath !== '') {
    const dir = resolve(cwd, cfgPath);
    const kind = kindOf(dir);
    if (kind === 'missing') throw new ConfigError('CONFIG_NOT_FOUND', [`FABRIC_CFG_PATH ${cfgPath} does not exist`]);
    // Fabric expects a directory; a file named directly is taken as meant.
    if (kind === 'file') return dir;
    const file = join(dir, fileName);
    if (kindOf(file) === 'file') return file;
    throw new ConfigError('CONFIG_NOT_FOUND', [`${fileName} not found; searched ${file} (from FABRIC_CFG_PATH)`]);
  }
  const searched = [join(cwd, fileName), join(options.systemConfigDir ?? FABRIC_SYSTEM_CONFIG_DIR, fileName)];
  if (options.sampleFile !== undefined) searched.push(options.sampleFile);
  for (const file of searched) if (kindOf(file) === 'file') return file;
  throw new ConfigError('CONFIG_NOT_FOUND', [
    `${fileName} not found; searched ${searched.join(', ')}; set FABRIC_CFG_PATH or pass --config <file>`,
  ]);
}
