import type { Server as TlsServer, TLSSocket } from 'node:tls';

export const CLIENT_AUTH_EKU = '1.3.6.1.5.5.7.3.2';
export const ANY_EKU = '2.5.29.37.0';

/** What the TLS layer learned about a connection's client certificate. */
export interface PresentedCertificate {
  /** False when the client sent no certificate at all. */
  readonly presented: boolean;
  /** Node's chain verification against the client root CAs (dates included). */
  readonly authorized: boolean;
  readonly authorizationError?: string | undefined;
  /** The leaf's extended key usages; undefined when the certificate has no such extension. */
  readonly extendedKeyUsage?: readonly string[] | undefined;
}

export type CertificateVerdict = { readonly accept: true } | { readonly accept: false; readonly reason: string };

/**
 * Fabric's rule: no certificate is fine (the secure routes answer 401 later), but a
 * certificate that was sent must verify and allow client authentication, or the
 * connection is refused. A certificate without an EKU extension may be used for anything (RFC 5280).
 */
export function judgeClientCertificate(certificate: PresentedCertificate): CertificateVerdict {
  if (!certificate.presented) return { accept: true };
  if (!certificate.authorized) return { accept: false, reason: certificate.authorizationError ?? 'certificate verification failed' };
  const usages = certificate.extendedKeyUsage;
  if (usages !== undefined && !usages.includes(CLIENT_AUTH_EKU) && !usages.includes(ANY_EKU)) {
    return { accept: false, reason: 'certificate does not allow client authentication (extended key usage)' };
  }
  return { accept: true };
}

export interface RefusedConnection {
  readonly remoteAddress: string;
  readonly reason: string;
}

function presentedCertificateOf(socket: TLSSocket): PresentedCertificate {
  const certificate = socket.getPeerX509Certificate();
  if (certificate === undefined) return { presented: false, authorized: false };
  const error = socket.authorizationError as unknown;
  return {
    presented: true,
    authorized: socket.authorized,
    authorizationError: error === undefined || error === null ? undefined : String(error instanceof Error ? error.message : error),
    extendedKeyUsage: certificate.keyUsage,
  };
}

/**
 * Closes every connection whose client sent a certificate that failed verification, before
 * the HTTP layer sees a byte of it (the listener runs first on `secureConnection`), and
 * refuses TLS 1.2 renegotiation on the others.
 * Returns a function that removes the guard.
 */
export function guardClientCertificates(server: TlsServer, onRefused?: (refused: RefusedConnection) => void): () => void {
  const listener = (socket: TLSSocket): void => {
    // OpenSSL verified the chain with the TLS-client purpose (which includes the clientAuth
    // EKU), so a verified socket needs no certificate parsing on this per-handshake path.
    // Go servers never renegotiate; refusing it here also keeps the verified identity of a
    // connection fixed (a TLS 1.2 renegotiation could otherwise swap the client certificate).
    socket.disableRenegotiation();
    if (socket.authorized) return;
    const verdict = judgeClientCertificate(presentedCertificateOf(socket));
    if (verdict.accept) return;
    onRefused?.({ remoteAddress: `${socket.remoteAddress ?? ''}:${socket.remotePort ?? 0}`, reason: verdict.reason });
    socket.destroy();
  };
  server.prependListener('secureConnection', listener);
  return () => server.off('secureConnection', listener);
}
