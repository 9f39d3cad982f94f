import type { IncomingMessage, RequestListener, ServerOptions, ServerResponse } from 'node:http';
import { createServer, type Server as HttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { WarnLogger } from './authorize.ts';
import type { TlsCredentials } from './credentials.ts';
import { formatRemoteAddress } from '@fabric-ops/ops-http/go';
import { createHandshakeLog, type HandshakeLog } from './handshake-log.ts';
import { markVerifiedClient } from './identity.ts';
import { secureContextOptions, tlsServerOptions } from './options.ts';
import { createOpenSslClientCas } from './stand-in-ca.ts';
import { clientNames, NO_CERTIFICATE_REASON, refuseMissingCertificateInHandshake } from './refusal.ts';
import { clientCertificateMessageProblem } from '@fabric-ops/go-x509';
import {
  createAdmittedChains,
  createChainCapture,
  createExactReads,
  createLongListLane,
  createRefusalHold,
  createRefusedLeaves,
  LONG_LIST_BUSY_REASON,
  LONG_LIST_HANDSHAKE_BYTES,
  nativePeerChain,
  type CapturedChain,
  type ChainCapture,
  type RefusedLeaves,
} from './peer-chain.ts';
import { nativeChainIsFaithful } from './self-probe.ts';
import { createChainJudge, type ChainJudge, type InlineLimits, type Verdict } from '@fabric-ops/go-x509/verifier';

/** Why a check was stopped when its connection closed (one object, made once). */
const CONNECTION_CLOSED = new Error('tls: connection closed');

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
  /**
   * Hand OpenSSL a stand-in for each client CA (same name, a key of its own) instead of the CA
   * itself: the certificate request names the same CAs, the verdict stays Go's, and OpenSSL stops
   * checking chains whose result is never used. Default true (false hands OpenSSL the real CAs:
   * the same verdicts, slower handshakes; the measurement's "before").
   */
  readonly clientCaStandIns?: boolean | undefined;
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
  /** When the handshake deadline ends it (ms since the epoch). */
  readonly deadline: number;
}

/** What the pieces of one server share. */
interface ServerState {
  readonly server: HttpsServer;
  readonly handshakeTimeoutMs: number;
  readonly logFailure: HandshakeLog;
  /** Connections whose handshake (verdict included) has not finished, by `connectionKey`. */
  readonly pending: Map<string, PendingConnection>;
  /** Sockets this module closed; the TLS layer's own error report for them would repeat the reason. */
  readonly endedHere: WeakSet<Socket>;
  /** The address seen at accept (a closed connection has none any more). */
  readonly remotes: WeakMap<Socket, string>;
}

/** The base64 bodies of a PEM text's CERTIFICATE blocks (as the DER's base64). */
function pemBodies(pem: string): string[] {
  return (pem.match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g) ?? []).map((block) => block.slice(27, -25).replace(/\s+/g, ''));
}

function connectionKey(socket: Socket): string {
  return `${socket.remoteAddress ?? ''}|${socket.remotePort ?? 0}`;
}

/** OpenSSL's stateless ticket holds the client's leaf and cannot be built past 65,280 bytes (Go's has no such limit). */
const TICKET_TOO_LARGE = 'tls: internal error: the client certificate does not fit in a TLS session ticket (OpenSSL)';

function errorReason(error: Error & { reason?: unknown; code?: unknown }): string {
  if (error.message.includes('construct_stateless_ticket')) return TICKET_TOO_LARGE;
  if (error.code === 'ERR_SSL_PEER_DID_NOT_RETURN_A_CERTIFICATE') return NO_CERTIFICATE_REASON;
  if (typeof error.reason === 'string' && error.reason !== '') return `tls: ${error.reason}`;
  if (error.code === 'ECONNRESET') return 'EOF';
  return error.message.split('\n')[0] ?? 'handshake failed';
}

/**
 * An `https.Server` with Fabric's TLS settings and Go's connection rules:
 * - every handshake has a deadline (from the TCP accept), and stopping can end the unfinished ones;
 * - a client is admitted only if Go's crypto/x509 rules accept the whole list of certificates it
 *   sent (OpenSSL's own verdict is never consulted); the check runs on a worker thread, under
 *   the handshake deadline, and no byte of HTTP is read before it; with `clientAuthRequired` a
 *   missing certificate is refused too;
 * - plain HTTP on the port gets Go's 400 text instead of a dropped connection;
 * - failed handshakes are logged, rate-limited.
 */
export function createTlsServer(options: TlsServerOptions, onRequest?: RequestListener<typeof IncomingMessage, typeof ServerResponse>): TlsServer {
  return createTlsServerWith(options, onRequest, {});
}

/** What tests may replace or watch: the verifier's worker script and idle period, and the judge itself. */
export interface TlsServerInternals {
  readonly verifierWorkerFile?: string;
  readonly verifierIdleMs?: number;
  /** Limits for chains decided on the event loop; false: every chain goes to a verifier thread (tests of the threads themselves). */
  readonly verifierInline?: InlineLimits | false;
  readonly observeJudge?: (judge: ChainJudge) => void;
  /** The long-list lane's share of the main thread, how many may wait, how long a refused one is held (peer-chain.ts). */
  readonly longListLane?: { readonly share: number; readonly maxWaiting: number; readonly refusalHoldMs?: number };
}

export function createTlsServerWith(options: TlsServerOptions, onRequest: RequestListener<typeof IncomingMessage, typeof ServerResponse> | undefined, internals: TlsServerInternals): TlsServer {
  const openSslCas = createOpenSslClientCas(options.clientCaStandIns ?? true, (message) => options.logger?.warn({ reason: 'client CA stand-in' }, message));
  // OpenSSL gets the stand-ins; the judge gets the real CA files.
  let openSslCanVerify = true;
  // what OpenSSL's store holds and the client CAs: Node appends the former to the issuer path
  let known = new Set<string>();
  const isKnown = (der: Buffer): boolean => known.has(der.toString('base64'));
  const forOpenSsl = (credentials: TlsCredentials): TlsCredentials => {
    const ca = openSslCas.forCredentials(credentials);
    known = new Set([...ca, ...credentials.ca].flatMap(pemBodies));
    // Only a real CA lets OpenSSL's verification succeed (the case where Node shortens the list
    // the client sent). With no client CA the hook stays too: it is cheap to keep where it cannot
    // be proven unneeded (an empty list is rare, and what store OpenSSL then holds is Node's choice).
    openSslCanVerify = ca.length === 0 || ca.some((pem, index) => pem === credentials.ca[index]);
    return { ...credentials, ca };
  };
  const state: ServerState = {
    server: createServer({ ...options.serverOptions, ...tlsServerOptions(forOpenSsl(options.credentials), options.handshakeTimeoutMs ?? 10_000) }, onRequest),
    handshakeTimeoutMs: options.handshakeTimeoutMs ?? 10_000,
    logFailure: createHandshakeLog(options.logger, options.maxHandshakeErrorsLoggedPerSecond ?? 10),
    pending: new Map(),
    endedHere: new WeakSet(),
    remotes: new WeakMap(),
  };
  const { server, pending, endedHere } = state;
  let caFileNames = options.credentials.clientCaFileNames;
  const judge = createChainJudge(options.credentials.clientCaFiles ?? options.credentials.ca, {
    ...(internals.verifierWorkerFile === undefined ? {} : { workerFile: internals.verifierWorkerFile }),
    ...(internals.verifierIdleMs === undefined ? {} : { idleThreadMs: internals.verifierIdleMs }),
    ...(internals.verifierInline === undefined ? {} : { inline: internals.verifierInline }),
    onTrustError: (message, fileIndex) => {
      const file = fileIndex === undefined ? undefined : caFileNames?.[fileIndex];
      options.logger?.warn(
        { reason: message, ...(file === undefined ? {} : { file }) },
        `the client root CA files cannot be used (${file ?? 'one of them'}: ${message}); every client certificate is refused until they are fixed and reloaded`,
      );
    },
  });

  internals.observeJudge?.(judge);
  if (options.clientAuthRequired === true) refuseMissingCertificateInHandshake(server);
  interceptConnections(state);
  logTlsClientErrors(state);
  const exactReads = createExactReads();
  const chainCapture = createChainCapture(server, isKnown, exactReads);
  chainCapture.setActive(openSslCanVerify);
  let unhookTimer: NodeJS.Timeout | undefined;
  const captureWhileNeeded = (): void => {
    clearTimeout(unhookTimer);
    unhookTimer = undefined;
    if (openSslCanVerify) chainCapture.setActive(true);
    // Handshakes begun under the old CAs keep the hook until their deadline has passed.
    else unhookTimer = setTimeout(() => chainCapture.setActive(false), state.handshakeTimeoutMs).unref();
  };
  // Whether this Node hands the server every certificate a client sends is asked once, at the
  // first client certificate, when the answer starts to matter: the probe makes six keys and runs
  // four handshakes, which an idle server (or one whose clients send none) should not pay for.
  let chainReadingProbed = false;
  const probeChainReading = (): void => {
    if (chainReadingProbed) return;
    chainReadingProbed = true;
    void nativeChainIsFaithful().then((faithful) => {
      if (!faithful) {
        options.logger?.warn(
          { reason: 'client certificate list incomplete' },
          'this Node.js does not hand the server every certificate a client sends; clients whose chain needs certificates beyond the leaf may be refused',
        );
      }
    });
  };
  const refusedLeaves = createRefusedLeaves();
  const refusalHold = createRefusalHold(internals.longListLane?.refusalHoldMs);
  gateSecureConnections(state, {
    judge,
    capture: chainCapture,
    readNow: (socket) => nativePeerChain(socket, isKnown, exactReads),
    refusedLeaves,
    clientAuthRequired: options.clientAuthRequired ?? false,
    onClientCertificate: probeChainReading,
    longLists: createLongListLane(internals.longListLane?.share, internals.longListLane?.maxWaiting),
    refusalHold,
  });
  server.on('close', () => {
    clearTimeout(unhookTimer);
    void judge.close();
  });

  return {
    server,
    setCredentials(credentials) {
      server.setSecureContext(secureContextOptions(forOpenSsl(credentials)));
      captureWhileNeeded();
      caFileNames = credentials.clientCaFileNames;
      judge.setTrust(credentials.clientCaFiles ?? credentials.ca);
      refusedLeaves.clear();
    },
    endPendingHandshakes() {
      const count = pending.size;
      for (const { socket, timer } of pending.values()) {
        clearTimeout(timer);
        endedHere.add(socket);
        socket.destroy();
      }
      pending.clear();
      refusalHold.endAll();
      return count;
    },
  };
}

/**
 * Errors on an admitted connection. A renegotiation attempt ends it at once, whatever the HTTP
 * layer does with the error: Go servers never renegotiate, and the verified identity must not
 * change. A session ticket OpenSSL cannot build (TICKET_TOO_LARGE: a client certificate of ~64
 * KiB or more) ends a TLS 1.3 connection before its first response with an internal_error alert
 * (a TLS 1.2 one fails its handshake); the line logged says what happened instead of quoting Go.
 */
function onAdmittedError(state: ServerState, socket: TLSSocket): (error: Error & { code?: string }) => void {
  return (error) => {
    if (error.code === 'ERR_TLS_RENEGOTIATION_DISABLED' || error.code === 'ERR_TLS_SESSION_ATTACK') socket.destroy();
    else if (error.message.includes('construct_stateless_ticket')) state.logFailure(remoteOf(state, socket), TICKET_TOO_LARGE);
  };
}

/** Ends the deadline. The key is unique among open connections (one local address, one remote address and port each). */
function settle(state: ServerState, key: string, socket?: Socket): void {
  const entry = state.pending.get(key);
  if (entry === undefined || (socket !== undefined && entry.socket !== socket)) return;
  clearTimeout(entry.timer);
  state.pending.delete(key);
}

/**
 * The TLS layer wraps each TCP socket in its `connection` listener. Taking that listener over
 * lets the first bytes be looked at before OpenSSL consumes them (plain HTTP gets an answer)
 * and lets the deadline cover a client that sends nothing at all.
 */
function interceptConnections(state: ServerState): void {
  const { server, pending, endedHere, remotes, logFailure } = state;
  const wrapForTls = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    const key = connectionKey(socket);
    const remote = formatRemoteAddress(socket.remoteAddress, socket.remotePort);
    remotes.set(socket, remote);
    socket.on('error', () => {}); // a reset before the handshake is reported through the log below, never thrown
    const endHere = (reason: string): void => {
      settle(state, key, socket);
      endedHere.add(socket);
      logFailure(remote, reason);
      socket.destroy();
    };
    const timer = setTimeout(() => endHere(`read tcp ${formatRemoteAddress(socket.localAddress, socket.localPort)}->${remote}: i/o timeout`), state.handshakeTimeoutMs).unref();
    pending.set(key, { socket, timer, deadline: Date.now() + state.handshakeTimeoutMs });
    socket.once('close', () => settle(state, key, socket));

    const head: Buffer[] = [];
    let received = 0;
    const onEnd = (): void => endHere('EOF');
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
}

function parentOf(tlsSocket: TLSSocket): Socket | undefined {
  return (tlsSocket as unknown as { _parent?: Socket })._parent;
}

/** A handshake whose client sent more than a long list's worth of bytes (peer-chain.ts). */
function sentLongList(tlsSocket: TLSSocket): boolean {
  return (parentOf(tlsSocket)?.bytesRead ?? 0) > LONG_LIST_HANDSHAKE_BYTES;
}

function remoteOf(state: ServerState, tlsSocket: TLSSocket): string {
  const parent = parentOf(tlsSocket);
  return (parent !== undefined ? state.remotes.get(parent) : undefined) ?? formatRemoteAddress(tlsSocket.remoteAddress, tlsSocket.remotePort);
}

function logTlsClientErrors(state: ServerState): void {
  state.server.on('tlsClientError', (error: Error, tlsSocket: TLSSocket) => {
    const parent = parentOf(tlsSocket);
    if (parent !== undefined && state.endedHere.has(parent)) return;
    state.logFailure(remoteOf(state, tlsSocket), errorReason(error));
  });
}

interface Gate {
  readonly judge: ChainJudge;
  readonly capture: ChainCapture;
  /** Node's own read of the list, for a handshake the capture did not see. */
  readonly readNow: (socket: TLSSocket) => Uint8Array[] | undefined;
  readonly refusedLeaves: RefusedLeaves;
  readonly clientAuthRequired: boolean;
  readonly onClientCertificate: () => void;
  readonly longLists: ReturnType<typeof createLongListLane>;
  readonly refusalHold: ReturnType<typeof createRefusalHold>;
}

/**
 * Every `secureConnection` listener (the HTTP layer's, and any an embedder adds later) gets a
 * socket only once its client is admitted: the server's `emit` holds the event back until the
 * verdict. A refused connection, or one still waiting for its verdict, is never seen by them
 * and never has a byte of a request read from it.
 */
function gateSecureConnections(state: ServerState, gate: Gate): void {
  const { server, pending, logFailure } = state;
  const { judge, capture, readNow, refusedLeaves, clientAuthRequired, onClientCertificate, longLists, refusalHold } = gate;
  const admittedChains = createAdmittedChains();
  type Emit = (this: HttpsServer, event: string | symbol, ...args: unknown[]) => boolean;
  const emit = server.emit as Emit;
  const refuse = (socket: TLSSocket, key: string, reason: string, names?: Readonly<Record<string, string>>): void => {
    settle(state, key);
    logFailure(remoteOf(state, socket), reason, names);
    if (sentLongList(socket)) refusalHold.hold(socket);
    else socket.destroy();
  };
  const admit = (socket: TLSSocket, key: string, endOnError: (error: Error) => void): void => {
    settle(state, key);
    socket.off('error', endOnError);
    // Added before the HTTP layer's own listener, so it runs first: that one answers an error
    // with a graceful end, which can let a renegotiation finish before the connection closes.
    socket.on('error', onAdmittedError(state, socket));
    emit.call(server, 'secureConnection', socket);
  };
  const decide = (socket: TLSSocket): void => {
    const key = connectionKey(socket);
    const entry = pending.get(key);
    // Go servers never renegotiate; refusing it also keeps the verified identity of a connection fixed.
    socket.disableRenegotiation();
    // Until the HTTP layer has the socket, a TLS error on it (a renegotiation attempt, a
    // reset) ends it: Node only reports such errors to whoever listens, and nobody does yet.
    const onError = onAdmittedError(state, socket);
    const endOnError = (error: Error): void => {
      onError(error); // a ticket OpenSSL could not build can end it while its verdict is awaited
      socket.destroy();
    };
    socket.on('error', endOnError);
    // a leaf refused a moment ago: refused again before its list is read (peer-chain.ts)
    const leaf = (socket.getPeerCertificate(false) as { raw?: Buffer }).raw;
    const refusedBefore = leaf === undefined ? undefined : refusedLeaves.reasonFor(leaf);
    if (refusedBefore !== undefined) {
      onClientCertificate();
      refuse(socket, key, refusedBefore, clientNames(leaf!));
      return;
    }
    // A long list is read in its lane (peer-chain.ts): the read costs the main thread per certificate.
    if (sentLongList(socket) && capture.read(socket) === undefined) {
      longLists.schedule(
        socket,
        () => judgePresented(socket, key, entry, endOnError),
        () => refuse(socket, key, LONG_LIST_BUSY_REASON),
      );
      return;
    }
    judgePresented(socket, key, entry, endOnError);
  };
  const judgePresented = (socket: TLSSocket, key: string, entry: PendingConnection | undefined, endOnError: (error: Error) => void): void => {
    const presented = presentedList(socket, () => capture.read(socket) ?? { list: readNow(socket) }, admittedChains);
    if (presented !== undefined) onClientCertificate();
    if (typeof presented === 'string') {
      refuse(socket, key, presented);
      return;
    }
    if (presented === undefined) {
      if (clientAuthRequired) refuse(socket, key, "tls: client didn't provide a certificate");
      else admit(socket, key, endOnError);
      return;
    }
    const decided = (verdict: Verdict): void => {
      if (!verdict.accept) {
        // judged alone: another list with this leaf could only be admitted by adding its issuer
        if (presented.length === 1) refusedLeaves.remember(presented[0]!, verdict.reason);
        refuse(socket, key, verdict.reason, clientNames(presented[0]!));
        return;
      }
      admittedChains.remember(presented);
      markVerifiedClient(socket, presented[0]);
      admit(socket, key, endOnError);
    };
    // A client reconnecting with a list already judged is answered now, as Go would answer it;
    // so is an ordinary chain cheap enough to check here (verdicts.ts, InlineLimits).
    const known = judge.verdictNow(presented);
    if (known !== undefined) {
      decided(known);
      return;
    }
    // The check is dropped, or stopped, when the connection closes (the handshake deadline closes
    // it too). The listener goes once the verdict is in, and the abort carries a reason made once:
    // abort() without one builds a DOMException with a stack trace, per connection.
    const closed = new AbortController();
    const onClose = (): void => closed.abort(CONNECTION_CLOSED);
    socket.once('close', onClose);
    const deadline = entry?.deadline ?? Date.now() + state.handshakeTimeoutMs;
    judge.judge(presented, { source: socket.remoteAddress ?? '', deadline, signal: closed.signal }).then(
      (verdict) => {
        socket.off('close', onClose);
        if (socket.destroyed || (entry !== undefined && pending.get(key) !== entry)) return;
        decided(verdict);
      },
      () => {
        socket.off('close', onClose);
        refuse(socket, key, 'tls: client certificate check failed');
      },
    );
  };
  const gatedEmit: Emit = function (event, ...args) {
    if (event !== 'secureConnection') return emit.call(this, event, ...args);
    decide(args[0] as TLSSocket);
    return true;
  };
  server.emit = gatedEmit as HttpsServer['emit'];
}

/**
 * The list to judge, leaf first: what the client sent, or on a resumed session the list the
 * session was admitted with (Go checks the session's certificates again); undefined when the
 * client sent none; a string when the list is refused outright (the reason).
 */
function presentedList(socket: TLSSocket, read: () => CapturedChain, admittedChains: ReturnType<typeof createAdmittedChains>): readonly Uint8Array[] | undefined | string {
  let presented: readonly Uint8Array[] | undefined;
  try {
    const captured = read();
    if ('malformed' in captured) throw new Error('malformed');
    presented = captured.list;
  } catch {
    return 'tls: failed to parse client certificate: x509: malformed certificate';
  }
  if (presented === undefined) return undefined;
  if (socket.isSessionReused() && presented.length === 1) {
    // A resumed session carries the leaf alone; the list admitted for this leaf is judged again.
    return admittedChains.forLeaf(presented[0]!) ?? presented;
  }
  return clientCertificateMessageProblem(presented, socket.getProtocol() === 'TLSv1.3' ? 'TLSv1.3' : 'TLSv1.2') ?? presented;
}
