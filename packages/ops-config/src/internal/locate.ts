import { statSync } from 'node:fs';
import { describeFileKind, shownPath } from '@fabric-ops/ops-http/fs';
import { goErrnoText } from '@fabric-ops/ops-http/go';
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

type Kind =
  | { readonly kind: 'file' | 'directory' | 'missing' }
  /** Something that cannot be read as the file: a FIFO, a device, a symlink loop; `what` says which. */
  | { readonly kind: 'other'; readonly what: string };

/** stat, never open: a FIFO must be named, not waited on. */
function kindOf(path: string): Kind {
  try {
    const stats = statSync(path);
    if (stats.isFile()) return { kind: 'file' };
    if (stats.isDirectory()) return { kind: 'directory' };
    return { kind: 'other', what: `is ${describeFileKind(stats)}, not a regular file` };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing' };
    return { kind: 'other', what: `cannot be read: ${goErrnoText(error)}` };
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
    const found = kindOf(given);
    if (found.kind === 'file') return given;
    const looked = found.kind === 'directory' ? join(given, fileName) : given;
    const inside = found.kind === 'directory' ? kindOf(looked) : found;
    if (inside.kind === 'file') return looked;
    const why = inside.kind === 'other' ? inside.what : 'does not exist';
    throw new ConfigError('CONFIG_NOT_FOUND', [`--config ${shownPath(options.configFile)}: ${shownPath(looked)} ${why}`]);
  }
  const cfgPath = env['FABRIC_CFG_PATH'];
  if (cfgPath !== undefined && cfgPath !== '') {
    const dir = resolve(cwd, cfgPath);
    const found = kindOf(dir);
    if (found.kind === 'missing') throw new ConfigError('CONFIG_NOT_FOUND', [`FABRIC_CFG_PATH ${shownPath(cfgPath)} does not exist`]);
    if (found.kind === 'other') throw new ConfigError('CONFIG_NOT_FOUND', [`FABRIC_CFG_PATH ${shownPath(cfgPath)} ${found.what}`]);
    // Fabric expects a directory; a file named directly is taken as meant.
    if (found.kind === 'file') return dir;
    const file = join(dir, fileName);
    const inside = kindOf(file);
    if (inside.kind === 'file') return file;
    if (inside.kind === 'other') throw new ConfigError('CONFIG_NOT_FOUND', [`${shownPath(file)} (from FABRIC_CFG_PATH) ${inside.what}`]);
    throw new ConfigError('CONFIG_NOT_FOUND', [`${fileName} not found; searched ${shownPath(file)} (from FABRIC_CFG_PATH)`]);
  }
  const searched = [join(cwd, fileName), join(options.systemConfigDir ?? FABRIC_SYSTEM_CONFIG_DIR, fileName)];
  if (options.sampleFile !== undefined) searched.push(options.sampleFile);
  for (const file of searched) if (kindOf(file).kind === 'file') return file;
  throw new ConfigError('CONFIG_NOT_FOUND', [`${fileName} not found; searched ${searched.join(', ')}; set FABRIC_CFG_PATH or pass --config <file>`]);
}
