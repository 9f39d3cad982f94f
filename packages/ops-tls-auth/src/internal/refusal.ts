import { X509Certificate } from 'node:crypto';
import type { Server as TlsNetServer, TLSSocket } from 'node:tls';
import { cut } from './handshake-log.ts';
import { formatSubject } from './identity.ts';

/*
 * What a refused client sees. Go refuses inside the handshake with an alert naming the cause
 * (unknown_ca, certificate_expired, bad_certificate; certificate_required for a missing
 * certificate under TLS 1.3, handshake_failure under 1.2). A Node server cannot send those for a
 * certificate it was sent: Node's OpenSSL verify callback accepts every chain, there is no hook
 * between the client's Certificate message and the end of the handshake, and no API sends an
 * alert afterwards, so Go's verdict (taken after the handshake) ends the connection without
 * one. What OpenSSL can do, and Go agrees with, is refuse a missing certificate itself; the
 * rest is made self-explaining in the server's log line.
 */

/** Go's words for a client that sent no certificate where one is required. */
export const NO_CERTIFICATE_REASON = "tls: client didn't provide a certificate";

/**
 * With clientAuthRequired, OpenSSL refuses a client that sends no certificate inside the
 * handshake, with Go's alert (certificate_required under TLS 1.3, handshake_failure under 1.2):
 * the connections' verify mode gets SSL_VERIFY_FAIL_IF_NO_PEER_CERT (Node's
 * `rejectUnauthorized`). Node would also end, at its 'secure' event, every connection whose
 * chain OpenSSL's own check refused, which is not the decision here (it is Go's, and OpenSSL
 * holds stand-ins it can never verify against), so each connection's flag is cleared at its
 * first key-log line, which every handshake, resumed ones included, emits before 'secure'. Cost:
 * one call into JavaScript per key-log line, within the noise of a handshake's 2.5 ms CPU.
 */
export function refuseMissingCertificateInHandshake(server: TlsNetServer): void {
  (server as TlsNetServer & { rejectUnauthorized: boolean }).rejectUnauthorized = true;
  server.on('keylog', (_line: Buffer, socket: TLSSocket) => {
    (socket as TLSSocket & { _rejectUnauthorized?: boolean })._rejectUnauthorized = false;
  });
}

/** Characters of a refused certificate's names that reach the log line (the client chooses them). */
const MAX_NAME_CHARS = 256;

/**
 * The names on a refused certificate, as fields of the handshake-error line beside Go's reason
 * (`Subject=CN=op,O=Org1 Issuer=CN=Org2 CA`): the client sees no alert, so the line an operator
 * reads says which certificate was refused and by which rule. Only refusals pay for the parse.
 */
export function clientNames(leaf: Uint8Array): { readonly Subject: string; readonly Issuer: string } | undefined {
  try {
    const certificate = new X509Certificate(leaf);
    return { Subject: cut(formatSubject(certificate.subject), MAX_NAME_CHARS), Issuer: cut(formatSubject(certificate.issuer), MAX_NAME_CHARS) };
  } catch {
    return undefined;
  }
}
