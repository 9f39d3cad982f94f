import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError } from './errors.ts';

export interface LocateOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  /** A file named on the command line (`--config`); wins over every search. */
  readonly configFile?: string;
  /** The sample file the app ships, used when no other file is found. */
  readonly sampleFile?: string;
}

export const FABRIC_SYSTEM_CONFIG_DIR = '/etc/hyperledger/fabric';

/**
 * Fabric's search for `core.yaml` / `orderer.yaml`: `$FABRIC_CFG_PATH` when set (and it
 * must exist), else the working directory, else /etc/hyperledger/fabric; then the app's
 * shipped sample.
 */
export function locateConfigFile(fileName: string, options: LocateOptions = {}): string {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  if (options.configFile !== undefined) {
    const file = resolve(cwd, options.configFile);
    if (!existsSync(file)) throw new ConfigError('CONFIG_NOT_FOUND', [`config file ${file} does not exist`]);
    return file;
  }
  const cfgPath = env['FABRIC_CFG_PATH'];
  if (cfgPath !== undefined && cfgPath !== '') {
    const dir = resolve(cwd, cfgPath);
    if (!existsSync(dir)) throw new ConfigError('CONFIG_NOT_FOUND', [`FABRIC_CFG_PATH ${cfgPath} does not exist`]);
    const file = statSync(dir).isDirectory() ? join(dir, fileName) : dir;
    if (!existsSync(file)) throw new ConfigError('CONFIG_NOT_FOUND', [`${fileName} not found in FABRIC_CFG_PATH ${cfgPath} (looked for ${file})`]);
    return file;
  }
  const searched = [join(cwd, fileName), join(FABRIC_SYSTEM_CONFIG_DIR, fileName)];
  for (const file of searched) if (existsSync(file)) return file;
  if (options.sampleFile !== undefined && existsSync(options.sampleFile)) return options.sampleFile;
  throw new ConfigError('CONFIG_NOT_FOUND', [`${fileName} not found; searched ${searched.join(', ')}`]);
}
