import { readRegularFileSync } from '@fabric-ops/ops-http/fs';
import type { LoadedConfig, OrdererConfig, PeerConfig } from './load.ts';

/** As ops-tls-auth reads them: far above any PEM bundle. */
const MAX_TLS_FILE_BYTES = 4 * 1024 * 1024;

/**
 * Go's `open <path>: <why>` (or `read <path>: is a directory`); undefined when the file can be
 * read. Read as ops-tls-auth reads it (a regular file of bounded size, never a wait on a FIFO),
 * so the verdict here and the server's are the same.
 */
function unreadableReason(path: string): string | undefined {
  const result = readRegularFileSync(path, { maxBytes: MAX_TLS_FILE_BYTES });
  return result.ok ? undefined : result.message;
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
    if (reason !== undefined) problems.push(`${where}: ${reason}`);
  }
  return problems;
}
