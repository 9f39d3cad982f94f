import type { Server as TlsNetServer, TLSSocket } from 'node:tls';

import { MAX_HANDSHAKE_MESSAGE_BYTES } from '@fabric-ops/go-x509';
import { sha256Base64 } from '@fabric-ops/go-x509/verifier';

/** Walk guard: a Certificate message within Go's limit cannot hold more certificates than this. */
const MAX_LISTED = Math.ceil(MAX_HANDSHAKE_MESSAGE_BYTES / 5);

/**
 * The certificates the client sent, leaf first, in the order sent, through Node's own walk
 * (`getPeerX509Certificate().issuerCertificate`...). Where the self-probe found this walk
 * faithful, it is exactly the client's Certificate message; elsewhere it may be shorter
 * (the self-probe warns then). Undefined when the client sent no certificate.
 */
export function nativePeerChain(socket: TLSSocket): Uint8Array[] | undefined {
  const leaf = socket.getPeerX509Certificate();
  if (leaf === undefined) return undefined;
  const list: Uint8Array[] = [leaf.raw];
  let current = leaf.issuerCertificate;
  let previous = leaf;
  while (current !== undefined && current !== previous && list.length <= MAX_LISTED) {
    list.push(current.raw);
    previous = current;
    current = current.issuerCertificate;
  }
  return list;
}

/** What a connection's client sent, read as soon as its handshake finished. */
export type CapturedChain = { readonly list: Uint8Array[] | undefined } | { readonly malformed: true };

/** Reads each connection's certificate list before Node's own server code can shorten it. */
export interface ChainCapture {
  /** The list read for this connection, if it was captured. */
  read(socket: TLSSocket): CapturedChain | undefined;
  /**
   * Hooks (true) or unhooks the server's `keylog` event. A hooked handshake calls into
   * JavaScript five times (TLS 1.3), about 3 % of a new connection's CPU, so the hook is on only
   * while OpenSSL could verify a client chain successfully: with every client CA a stand-in, it
   * cannot, and Node then leaves the list as the client sent it.
   */
  setActive(active: boolean): void;
}

/**
 * Reads each connection's certificate list at the first moment it exists, before Node's own
 * server code runs: on some Node lines (24.x) the server reads the peer certificate itself when
 * OpenSSL's verification succeeded, and that read drops every certificate after the leaf
 * (nodejs/node#65579). The only public hook that hands over the server-side TLSSocket before
 * its 'secure' event is 'keylog' (emitted while the handshake's secrets are derived); the
 * line itself is ignored. Starts unhooked.
 */
export function createChainCapture(server: TlsNetServer): ChainCapture {
  const captured = new WeakMap<TLSSocket, CapturedChain>();
  const hooked = new WeakSet<TLSSocket>();
  const onKeylog = (_line: Buffer, socket: TLSSocket): void => {
    if (hooked.has(socket)) return;
    hooked.add(socket);
    socket.prependOnceListener('secure', () => {
      try {
        captured.set(socket, { list: nativePeerChain(socket) });
      } catch {
        captured.set(socket, { malformed: true });
      }
    });
  };
  let active = false;
  return {
    read: (socket) => captured.get(socket),
    setActive(next) {
      if (next === active) return;
      active = next;
      if (active) server.on('keylog', onKeylog);
      else server.off('keylog', onKeylog);
    },
  };
}

/** The capture, always hooked (the self-probe's, and tests'). */
export function captureChainsEarly(server: TlsNetServer): (socket: TLSSocket) => CapturedChain | undefined {
  const capture = createChainCapture(server);
  capture.setActive(true);
  return capture.read;
}

/**
 * Chains admitted, by leaf: a resumed session carries only the leaf, and Go checks the
 * session's certificates (the whole list the client sent) again on resumption.
 */
export function createAdmittedChains(maxEntries = 4096): { remember(list: readonly Uint8Array[]): void; forLeaf(leaf: Uint8Array): readonly Uint8Array[] | undefined } {
  const byLeaf = new Map<string, readonly Uint8Array[]>();
  const keyOf = sha256Base64;
  return {
    remember(list) {
      const key = keyOf(list[0]!);
      byLeaf.delete(key);
      byLeaf.set(key, list);
      while (byLeaf.size > maxEntries) byLeaf.delete(byLeaf.keys().next().value as string);
    },
    forLeaf(leaf) {
      return byLeaf.get(keyOf(leaf));
    },
  };
}
