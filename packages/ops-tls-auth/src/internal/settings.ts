/** The operations TLS settings, the same shape as ops-config's `operations.tls`. */
export interface TlsSettings {
  readonly enabled: boolean;
  /** PEM server certificate; the file may hold the chain after the leaf. */
  readonly certFile: string;
  /** PEM private key matching the certificate. */
  readonly keyFile: string;
  /** Demand a verified client certificate in the handshake, for every path. */
  readonly clientAuthRequired: boolean;
  /** PEM files with the CA certificates client certificates must chain to. */
  readonly clientRootCAs: readonly string[];
}

/** The files `loadTlsCredentials` reads. */
export type TlsFiles = Pick<TlsSettings, 'certFile' | 'keyFile' | 'clientRootCAs'>;

/**
 * How error lines name each file: the setting as the user wrote it (a config key or an
 * environment variable). `clientRootCAs` is either one label per file or a base label that
 * gets `[index]` appended.
 */
export interface TlsFileLabels {
  readonly certFile: string;
  readonly keyFile: string;
  readonly clientRootCAs: string | readonly string[];
}

/** The peer's `core.yaml` keys: what the labels default to. */
export const DEFAULT_FILE_LABELS: TlsFileLabels = {
  certFile: 'operations.tls.cert.file',
  keyFile: 'operations.tls.key.file',
  clientRootCAs: 'operations.tls.clientRootCAs.files',
};

export function clientRootCaLabel(labels: TlsFileLabels, index: number): string {
  const { clientRootCAs } = labels;
  if (typeof clientRootCAs === 'string') return `${clientRootCAs}[${index}]`;
  return (clientRootCAs as readonly string[])[index] ?? `clientRootCAs[${index}]`;
}
