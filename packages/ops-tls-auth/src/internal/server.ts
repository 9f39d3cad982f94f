import { X509Certificate } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerOptions, ServerResponse } from 'node:http';
import { createServer, type Server as HttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import type { DetailedPeerCertificate, TLSSocket } from 'node:tls';
import type { WarnLogger } from './authorize.ts';
import type { TlsCredentials } from './credentials.ts';
import { formatRemoteAddress } from '@fabric-ops/ops-http/go';
import { createHandshakeLog } from './handshake-log.ts';
import { markVerifiedClient } from './identity.ts';
import { secureContextOptions, tlsServerOptions } from './options.ts';
import { createTrustPool, MAX_OFFERED_CERTIFICATES, verifyClientCertificate, type TrustPool } from './verify-client.ts';

export interface TlsServerOptions {
  readonly credentials: TlsCredentials;
  /** Refuse clients that send no certificate (Go's RequireAndVerifyClientCert). Default false. */
  readonly clientAuthRequired?: boolean | undefined;
  /**
   * Time from accepting a connection to the end of its TLS handshake. Go's http.Server uses its
   * ReadTimeout for this (Fabric: 10 s); Node's own default is 120 s. Default 10 000 ms.
   */
  readonly handshakeTimeoutMs?: number | undefined;
  /** `node:http` server options (timeouts, header size), e.g. ops-http's `serverOptionsFor(limits)`. */
  readonly serverOptions?: ServerOptions | undefined;
  /** Receives one WARN per failed handshake or refused client certificate. */
  readonly logger?: WarnLogger | undefined;
  /** At most this many handshake-error lines a second; the rest are counted. Default 10. */
  readonly maxHandshakeErrorsLoggedPerSecond?: number | undefined;
}

export interface TlsServer {
  /** The `https.Server`; call `listen` on it. */
  readonly server: HttpsServer;
  /** Serves new handshakes with these credentials (and trusts their client CAs); open connections keep theirs. */
  setCredentials(credentials: TlsCredentials): void;
  /**
   * Closes every connection whose TLS handshake has not finished. They are not HTTP connections
   * yet, so `server.close()` / `closeAllConnections()` never see them; call this when stopping.
   * Returns how many were closed.
   */
  endPendingHandshakes(): number;
}

/** net/http's list: a plaintext request that starts like this gets a 400, anything else a failed handshake. */
const PLAIN_HTTP_STARTS = new Set(['GET /', 'HEAD ', 'POST ', 'PUT /', 'OPTIO']);
/** Go's exact answer to plain HTTP on a TLS port. */
export const PLAIN_HTTP_ANSWER = 'HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n';
const TLS_RECORD_HEADER_BYTES = 5;

interface PendingConnection {
  readonly socket: Socket;
  readonly timer: NodeJS.Timeout;
}

function connectionKey(socket: Socket): string {
  return `${socket.remoteAddress ?? ''}|${socket.remotePort ?? 0}`;
}

/**
 * The leaf and every other certificate the client sent (Node appends issuers it found in the
 * CA store; harmless, they are pool certificates). Read with `getPeerCertificate(true)` before
 * anything else touches the peer certificate: on Node 20, calling `getPeerX509Certificate()`
 * first leaves `issuerCertificate` unset.
 */
function presentedCertificates(socket: TLSSocket): { leaf: X509Certificate; offered: X509Certificate[] } | undefined {
  const detailed = socket.getPeerCertificate(true) as DetailedPeerCertificate | Record<string, never>;
  if (detailed.raw === undefined) return undefined;
  const offered: X509Certificate[] = [];
  const seen = new Set<DetailedPeerCertificate>([detailed as DetailedPeerCertificate]);
  let current: DetailedPeerCertificate | undefined = (detailed as DetailedPeerCertificate).issuerCertificate;
  while (current !== undefined && !seen.has(current) && offered.length < MAX_OFFERED_CERTIFICATES) {
    seen.add(current);
    if (current.raw !== undefined) offered.push(new X509Certificate(current.raw));
    current = current.issuerCertificate;
  }
  return { leaf: new X509Certificate(detailed.raw), offered };
}

function errorReason(error: Error & { reason?: unknown; code?: unknown }): string {
  if (typeof error.reason === 'string' && error.reason !== '') return `tls: ${error.reason}`;
  if (error.code === 'ECONNRESET') return 'EOF';
  return error.message.split('\n')[0] ?? 'handshake failed';
}

/**
 * An `https.Server` with Fabric's TLS settings and Go's connection rules:
 * - every handshake has a deadline (from the TCP accept), and stopping can end the unfinished ones;
 * - a client certificate is judged as Go's crypto/x509 judges it (every pool certificate an
 *   anchor, EKU down the chain, leaf KeyUsage ignored); one that fails is refused before a byte
 *   of HTTP is read, on every path; with `clientAuthRequired` a missing one is refused too;
 * - plain HTTP on the port gets Go's 400 text instead of a dropped connection;
 * - failed handshakes are logged, rate-limited.
 */
export function createTlsServer(options: TlsServerOptions, onRequest?: RequestListener<typeof IncomingMessage, typeof ServerResponse>): TlsServer {
  const handshakeTimeoutMs = options.handshakeTimeoutMs ?? 10_000;
  const clientAuthRequired = options.clientAuthRequired ?? false;
  const logFailure = createHandshakeLog(options.logger, options.maxHandshakeErrorsLoggedPerSecond ?? 10);
  let pool: TrustPool = createTrustPool(options.credentials.ca);
  const server = createServer({ ...options.serverOptions, ...tlsServerOptions(options.credentials, handshakeTimeoutMs) }, onRequest);

  const pending = new Map<string, PendingConnection>();
  // Sockets this module closed; the TLS layer's own error report for them would repeat the reason.
  const endedHere = new WeakSet<Socket>();

  /** Ends the deadline. The key is unique among open connections (one local address, one remote address and port each). */
  const settle = (key: string, socket?: Socket): void => {
    const entry = pending.get(key);
    if (entry === undefined || (socket !== undefined && entry.socket !== socket)) return;
    clearTimeout(entry.timer);
    pending.delete(key);
  };

  // The TLS layer wraps each TCP socket in its `connection` listener. Taking that listener over
  // lets the first bytes be looked at before OpenSSL consumes them (plain HTTP gets an answer)
  // and lets the deadline cover a client that sends nothing at all.
  const wrapForTls = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    const key = connectionKey(socket);
    const remote = formatRemoteAddress(socket.remoteAddress, socket.remotePort);
    socket.on('error', () => {}); // a reset before the handshake is reported through the log below, never thrown
    const timer = setTimeout(() => {
      pending.delete(key);
      endedHere.add(socket);
      logFailure(remote, `read tcp ${formatRemoteAddress(socket.localAddress, socket.localPort)}->${remote}: i/o timeout`);
      socket.destroy();
    }, handshakeTimeoutMs);
    timer.unref();
    pending.set(key, { socket, timer });
    socket.once('close', () => settle(key, socket));

    const head: Buffer[] = [];
    let received = 0;
    const onEnd = (): void => {
      settle(key, socket);
      endedHere.add(socket);
      logFailure(remote, 'EOF');
      socket.destroy();
    };
    const onData = (chunk: Buffer): void => {
      head.push(chunk);
      received += chunk.length;
      if (received < TLS_RECORD_HEADER_BYTES) return;
      socket.off('data', onData);
      socket.off('end', onEnd);
      socket.pause();
      const bytes = head.length === 1 ? head[0]! : Buffer.concat(head);
      if (PLAIN_HTTP_STARTS.has(bytes.toString('latin1', 0, TLS_RECORD_HEADER_BYTES))) {
        // Go writes its answer and closes without logging. The connection stays under the
        // deadline (and endPendingHandshakes) until the client closes its side.
        socket.resume();
        socket.end(PLAIN_HTTP_ANSWER);
        return;
      }
      socket.unshift(bytes);
      for (const listener of wrapForTls) listener.call(server, socket);
    };
    socket.on('data', onData);
    socket.once('end', onEnd);
  });

  server.on('tlsClientError', (error: Error, tlsSocket: TLSSocket) => {
    const parent = (tlsSocket as unknown as { _parent?: Socket })._parent;
    if (parent !== undefined && endedHere.has(parent)) return;
    logFailure(formatRemoteAddress(tlsSocket.remoteAddress, tlsSocket.remotePort), errorReason(error));
  });

  const refusalOf = (socket: TLSSocket): string | undefined => {
    // OpenSSL's "yes" stands without parsing anything (it is stricter than Go's wherever they
    // differ, so Go would say yes too); only its "no" is judged again, by Go's rules.
    if (!socket.authorized) {
      let verdict;
      try {
        const presented = presentedCertificates(socket);
        if (presented === undefined) return clientAuthRequired ? "tls: client didn't provide a certificate" : undefined;
        verdict = verifyClientCertificate(presented.leaf, presented.offered, pool);
      } catch {
        verdict = { accept: false as const, reason: 'x509: malformed certificate' };
      }
      if (!verdict.accept) return `tls: failed to verify client certificate: ${verdict.reason}`;
    }
    markVerifiedClient(socket);
    return undefined;
  };

  // Prepended so it runs before the HTTP layer attaches to the socket: a refused connection
  // never has a request read from it.
  server.prependListener('secureConnection', (socket: TLSSocket) => {
    settle(connectionKey(socket));
    // Go servers never renegotiate; refusing it also keeps the verified identity of a connection fixed.
    socket.disableRenegotiation();
    const refusal = refusalOf(socket);
    if (refusal === undefined) return;
    logFailure(formatRemoteAddress(socket.remoteAddress, socket.remotePort), refusal);
    socket.destroy();
  });

  return {
    server,
    setCredentials(credentials) {
      server.setSecureContext(secureContextOptions(credentials));
      pool = createTrustPool(credentials.ca);
    },
    endPendingHandshakes() {
      const count = pending.size;
      for (const { socket, timer } of pending.values()) {
        clearTimeout(timer);
        endedHere.add(socket);
        socket.destroy();
      }
      pending.clear();
      return count;
    },
  };
}
