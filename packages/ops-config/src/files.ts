import { closeSync, fstatSync, openSync } from 'node:fs';
import { basename } from 'node:path';
import { dialectFor, type SettingRole } from './keys.ts';
import type { LoadedConfig, OrdererConfig, PeerConfig } from './load.ts';

const REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  ENOTDIR: 'not a directory',
  ELOOP: 'too many levels of symbolic links',
};

function unreadableReason(path: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    return fstatSync(fd).isFile() ? undefined : 'not a regular file';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    return REASONS[code] ?? code.toLowerCase();
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * `--check-config` goes one step further than loading: with TLS on, the certificate, key and
 * client CA files must be readable now, so that "configuration OK" means the server can start.
 * Relative orderer paths are taken from the working directory, as the server takes them.
 */
export function unreadableTlsFiles(loaded: LoadedConfig<PeerConfig> | LoadedConfig<OrdererConfig>): string[] {
  const tls = loaded.config.operations.tls;
  if (!tls.enabled) return [];
  const specs = dialectFor(loaded.app).keys;
  const label = (role: SettingRole) => {
    const spec = specs.find((candidate) => candidate.role === role)!;
    const source = loaded.sources[spec.key];
    return source?.from === 'env' ? source.variable : `${basename(loaded.file)}: ${spec.key}`;
  };
  const files: [string, string][] = [
    [label('tls.certFile'), tls.certFile],
    [label('tls.keyFile'), tls.keyFile],
    ...tls.clientRootCAs.map((path, index): [string, string] => [`${label('tls.clientRootCAs')}[${index}]`, path]),
  ];
  const problems: string[] = [];
  for (const [where, path] of files) {
    const reason = unreadableReason(path);
    if (reason !== undefined) problems.push(`${where}: expected a readable file, got ${JSON.stringify(path)} (${reason})`);
  }
  return problems;
}
