import { goErrnoText } from '@fabric-ops/ops-http/go';
import { closeSync, fstatSync, openSync } from 'node:fs';
import type { LoadedConfig, OrdererConfig, PeerConfig } from './load.ts';

/** Go's `open <path>: <why>` (or `read <path>: is a directory`); undefined when the file can be read. */
function unreadableReason(path: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const stats = fstatSync(fd);
    if (stats.isFile()) return undefined;
    return stats.isDirectory() ? `read ${path}: is a directory` : `open ${path}: not a regular file`;
  } catch (error) {
    return `open ${path}: ${goErrnoText(error)}`;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * With TLS on, the certificate, key and client CA files must be readable regular files. The
 * command line runs this before `--check-config` answers and before a run starts, so both
 * reach the same verdict with the same line. Relative orderer paths are taken from the
 * working directory, as the server takes them.
 */
export function unreadableTlsFiles(loaded: LoadedConfig<PeerConfig | OrdererConfig>): string[] {
  const tls = loaded.config.operations.tls;
  if (!tls.enabled) return [];
  const labels = loaded.tlsLabels;
  const files: [string, string][] = [
    [labels.certFile, tls.certFile],
    [labels.keyFile, tls.keyFile],
    ...tls.clientRootCAs.map((path, index): [string, string] => [`${labels.clientRootCAs}[${index}]`, path]),
  ];
  const problems: string[] = [];
  for (const [where, path] of files) {
    const reason = unreadableReason(path);
    if (reason !== undefined) problems.push(`${where}: ${/[\x00-\x1f\x7f]/.test(path) ? reason.replace(path, JSON.stringify(path)) : reason}`);
  }
  return problems;
}
