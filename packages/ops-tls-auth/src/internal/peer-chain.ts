import type { Socket } from 'node:net';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import type { Server as TlsNetServer, TLSSocket } from 'node:tls';

import { MAX_HANDSHAKE_MESSAGE_BYTES } from '@fabric-ops/go-x509';
import { sha256Base64 } from '@fabric-ops/go-x509/verifier';

/** Walk guard: a Certificate message within Go's limit cannot hold more certificates than this. */
const MAX_LISTED = Math.ceil(MAX_HANDSHAKE_MESSAGE_BYTES / 5);

/** One node of `getPeerCertificate(true)`'s or `getPeerX509Certificate()`'s issuer chain (the fields read here). */
interface IssuerLinked {
  readonly raw?: Buffer | undefined;
  readonly issuerCertificate?: IssuerLinked | undefined;
}

/** The certificates along the issuer links from `leaf`, as far as they go, at most MAX_LISTED + 1. */
function issuerPath(leaf: IssuerLinked): Buffer[] {
  const list: Buffer[] = [];
  const seen = new Set<IssuerLinked>();
  // a self-signed last certificate is its own issuer in Node's objects
  for (let at: IssuerLinked | undefined = leaf; at?.raw !== undefined && !seen.has(at) && list.length <= MAX_LISTED; at = at.issuerCertificate) {
    seen.add(at);
    list.push(at.raw);
  }
  return list;
}

/**
 * Whether `getPeerX509Certificate()` may be called (README, "Reading what the client sent", and
 * the upstream report): on Node 20 and 22 it keeps ~3 KiB a certificate after the leaf for good;
 * on 24 and 26 it holds them until as many full collections as the list is long, and V8 is not
 * told their size. Called only where the issuer path may not decide, within createExactReads.
 */
const EXACT_READ_FREES = Number(process.versions.node.split('.')[0]) >= 24;

/** What an exact read is taken to hold beyond its DER, per certificate (Node 24: 161 small certificates held 0.68 MB). */
const HELD_PER_CERTIFICATE = 4096;
export type ReadExactly = (socket: TLSSocket) => Buffer[] | undefined;

let fullCollectionsSeen: number | undefined;
/** Full (mark-compact) collections in this process since the first call; the counting starts then. */
function fullCollections(): number {
  if (fullCollectionsSeen === undefined) {
    fullCollectionsSeen = 0;
    const full = (entry: object): boolean => (entry as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR;
    new PerformanceObserver((entries) => (fullCollectionsSeen! += entries.getEntries().filter(full).length)).observe({ entryTypes: ['gc'] });
  }
  return fullCollectionsSeen;
}

/**
 * A server's exact reads (see above; undefined: not allowed now). Each read counts as held (its DER and
 * HELD_PER_CERTIFICATE a certificate) until as many full collections have run as its list is long; one is
 * allowed while what is held is under `budgetBytes`: at most that and one list more. Never on Node 20 and 22.
 */
export function createExactReads(budgetBytes: number = 4 * 2 ** 20, collections: () => number = fullCollections): ReadExactly {
  let held: { readonly bytes: number; readonly freedAfter: number }[] = [];
  return (socket) => {
    if (!EXACT_READ_FREES) return undefined;
    const now = collections();
    held = held.filter((read) => read.freedAfter > now);
    if (held.reduce((sum, read) => sum + read.bytes, 0) >= budgetBytes) return undefined;
    const exact = socket.getPeerX509Certificate();
    const sent = exact === undefined ? [] : issuerPath(exact);
    held.push({ bytes: sent.reduce((sum, der) => sum + der.length + HELD_PER_CERTIFICATE, 0), freedAfter: now + sent.length });
    return sent;
  };
}

/**
 * The certificates the client sent, leaf first (undefined when it sent none), read with
 * `getPeerCertificate(true)`, which frees everything it makes but hands over OpenSSL's issuer
 * path, not the message (README, "Reading what the client sent"), then issuers from OpenSSL's own
 * store: `known` tells those and the client CAs apart, and they are dropped. A path that reaches
 * them is decided as it is; one that does not is read again exactly as sent where allowed.
 */
export function nativePeerChain(socket: TLSSocket, known?: (der: Buffer) => boolean, readExactly: ReadExactly = () => undefined): Uint8Array[] | undefined {
  const leaf = socket.getPeerCertificate(true) as IssuerLinked;
  if (leaf.raw === undefined) return undefined;
  const list = issuerPath(leaf);
  const length = list.length;
  if (known !== undefined) while (list.length > 1 && known(list[list.length - 1]!)) list.pop();
  return list.length < length || known === undefined ? list : (readExactly(socket) ?? list);
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
export function createChainCapture(server: TlsNetServer, known?: (der: Buffer) => boolean, readExactly: ReadExactly = createExactReads()): ChainCapture {
  const captured = new WeakMap<TLSSocket, CapturedChain>();
  const hooked = new WeakSet<TLSSocket>();
  const onKeylog = (_line: Buffer, socket: TLSSocket): void => {
    if (hooked.has(socket)) return;
    hooked.add(socket);
    socket.prependOnceListener('secure', () => {
      try {
        captured.set(socket, { list: nativePeerChain(socket, known, readExactly) });
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
export function captureChainsEarly(server: TlsNetServer, known?: (der: Buffer) => boolean): (socket: TLSSocket) => CapturedChain | undefined {
  const capture = createChainCapture(server, known);
  capture.setActive(true);
  return capture.read;
}

/**
 * Chains admitted, by leaf: a resumed session carries only the leaf, and Go checks the
 * session's certificates (the whole list the client sent) again on resumption.
 */
export function createAdmittedChains(maxEntries = 4096): { remember(list: readonly Uint8Array[]): void; forLeaf(leaf: Uint8Array): readonly Uint8Array[] | undefined } {
  const byLeaf = new Map<string, readonly Uint8Array[]>();
  return {
    remember(list) {
      const key = sha256Base64(list[0]!);
      byLeaf.delete(key);
      byLeaf.set(key, list);
      while (byLeaf.size > maxEntries) byLeaf.delete(byLeaf.keys().next().value as string);
    },
    forLeaf(leaf) {
      return byLeaf.get(sha256Base64(leaf));
    },
  };
}

export interface RefusedLeaves {
  remember(leaf: Uint8Array, reason: string): void;
  reasonFor(leaf: Uint8Array): string | undefined;
  clear(): void;
}

/**
 * Leaves refused a moment ago when judged alone, with the reason: a new connection presenting one
 * is refused again without its list being read. Node copies every certificate of a list it hands over (Node 20:
 * ~0.7 ms each, so ~150 ms of the event loop for 200 certificates), the leaf alone costs
 * ~0.1 ms. Only a refusal is remembered, for `ttlMs`, so the worst it can do is refuse a client
 * that added its issuer, or whose leaf became valid, up to `ttlMs` late; a refusal
 * that says nothing about the certificates (a busy or slow check) is not remembered.
 */
export function createRefusedLeaves(ttlMs = 2_000, maxEntries = 1_024, clock: () => number = Date.now): RefusedLeaves {
  const byLeaf = new Map<string, { readonly reason: string; readonly until: number }>();
  return {
    remember(leaf, reason) {
      if (/server busy|took too long/.test(reason)) return;
      const key = sha256Base64(leaf);
      byLeaf.delete(key);
      byLeaf.set(key, { reason, until: clock() + ttlMs });
      while (byLeaf.size > maxEntries) byLeaf.delete(byLeaf.keys().next().value as string);
    },
    reasonFor(leaf) {
      const key = sha256Base64(leaf);
      const entry = byLeaf.get(key);
      if (entry === undefined) return undefined;
      if (entry.until > clock()) return entry.reason;
      byLeaf.delete(key);
      return undefined;
    },
    clear: () => byLeaf.clear(),
  };
}

/**
 * A handshake whose client sent more than this holds a long certificate list: a Fabric chain
 * (leaf, intermediate, root; EC or RSA) is 2–6 KiB with its ClientHello.
 */
export const LONG_LIST_HANDSHAKE_BYTES: number = 16 * 1024;

/** Logged for a long list refused because too many wait in the lane (never remembered as a verdict). */
export const LONG_LIST_BUSY_REASON = 'tls: server busy reading client certificates';

/**
 * Where long lists are read: one at a time, each after a pause that keeps reading them to
 * `share` of the main thread (a read's cost grows with the list, and on Node 20 it is ~0.8 ms a
 * certificate), at most `maxWaiting` waiting (a connection still has its handshake deadline).
 * An idle lane reads at once. Clients with ordinary lists never wait here: the worst an
 * attacker's long lists can do is delay other long lists, or have them refused as busy.
 */
export function createLongListLane(share = 0.1, maxWaiting = 32, clock: () => number = () => performance.now()): { schedule(socket: Socket, read: () => void, refuseBusy: () => void): void } {
  let waiting: { socket: Socket; read: () => void }[] = [];
  let nextAt = 0;
  let timer: NodeJS.Timeout | undefined;
  const run = (read: () => void): void => {
    const start = clock();
    read();
    const end = clock();
    nextAt = end + (end - start) * (1 / share - 1);
  };
  const pump = (): void => {
    timer = undefined;
    for (let next = waiting.shift(); next !== undefined; next = waiting.shift()) {
      if (next.socket.destroyed) continue;
      if (clock() < nextAt) {
        waiting.unshift(next);
        timer = setTimeout(pump, nextAt - clock());
        return;
      }
      run(next.read);
    }
  };
  return {
    schedule(socket, read, refuseBusy) {
      if (waiting.length === 0 && timer === undefined && clock() >= nextAt) return run(read);
      if (waiting.length >= maxWaiting) waiting = waiting.filter((entry) => !entry.socket.destroyed);
      if (waiting.length >= maxWaiting) return refuseBusy();
      waiting.push({ socket, read });
      timer ??= setTimeout(pump, Math.max(0, nextAt - clock()));
    },
  };
}

/**
 * Connections refused after a long list, held open (paused: nothing more is read) for `holdMs`
 * before they are closed. OpenSSL parses every certificate of a list on the main thread before
 * anything here runs (Node 20: ~36 ms for 202 small certificates; later lines ~8 ms), as it does
 * for raw node:https; a client that waits for the close before trying again (as an HTTP client
 * does) then makes the server pay that at most once per hold. At most `maxHeld` at once, more are
 * closed at once; `endAll` closes them (a stop).
 */
export function createRefusalHold(holdMs = 250, maxHeld = 256): { hold(socket: Socket): void; endAll(): number } {
  const held = new Map<Socket, NodeJS.Timeout>();
  const end = (socket: Socket): void => {
    clearTimeout(held.get(socket));
    held.delete(socket);
    socket.destroy();
  };
  return {
    hold(socket) {
      if (holdMs <= 0 || held.size >= maxHeld) return socket.destroy();
      socket.pause();
      held.set(socket, setTimeout(() => end(socket), holdMs).unref());
      socket.once('close', () => end(socket));
    },
    endAll() {
      const count = held.size;
      for (const socket of [...held.keys()]) end(socket);
      return count;
    },
  };
}
