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

/** The configuration keys error messages name, so each app's wording reads right. */
export interface TlsKeyNames {
  readonly certFile: string;
  readonly keyFile: string;
  readonly clientRootCAs: string;
}

/** The peer's `core.yaml` keys. The default. */
export const PEER_TLS_KEY_NAMES: TlsKeyNames = {
  certFile: 'operations.tls.cert.file',
  keyFile: 'operations.tls.key.file',
  clientRootCAs: 'operations.tls.clientRootCAs.files',
};

/** The orderer's `orderer.yaml` keys. */
export const ORDERER_TLS_KEY_NAMES: TlsKeyNames = {
  certFile: 'Operations.TLS.Certificate',
  keyFile: 'Operations.TLS.PrivateKey',
  clientRootCAs: 'Operations.TLS.ClientRootCAs',
};
