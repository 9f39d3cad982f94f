import { X509Certificate } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { formatRemoteAddress } from '@fabric-ops/ops-http/go';

/** The verified client certificate's names, as the allow-list and audit lines use them. */
export interface ClientIdentity {
  /** RFC 2253 form, most specific first, as Go prints it: `CN=operator,O=Org1`. */
  readonly subject: string;
  readonly commonName: string | undefined;
  readonly organizations: readonly string[];
  /** `DNS:host`, `IP:1.2.3.4`, `email:a@b`, `URI:spiffe://...`. */
  readonly subjectAltNames: readonly string[];
}

/**
 * Node prints a subject one attribute per line in certificate order (`O=Org1\nCN=operator`);
 * RFC 2253 and Go list them in reverse, comma-separated. Values keep Node's RFC 2253 escapes.
 */
export function formatSubject(nodeSubject: string): string {
  return nodeSubject
    .split('\n')
    .filter((line) => line !== '')
    .reverse()
    .join(',');
}

function attributeValues(nodeSubject: string, attribute: string): string[] {
  const prefix = `${attribute}=`;
  return nodeSubject
    .split('\n')
    .filter((line) => line.startsWith(prefix))
    .map((line) => line.slice(prefix.length));
}

const SAN_TYPES: Readonly<Record<string, string>> = { DNS: 'DNS', 'IP Address': 'IP', email: 'email', URI: 'URI' };

/**
 * Splits Node's `subjectAltName` text (`DNS:a, IP Address:1.2.3.4`; values containing
 * separators come JSON-quoted) into `TYPE:value` entries. Unknown types are kept as printed.
 */
export function parseSubjectAltNames(text: string | undefined): string[] {
  if (text === undefined || text === '') return [];
  const entries: string[] = [];
  let index = 0;
  while (index < text.length) {
    const colon = text.indexOf(':', index);
    if (colon < 0) break;
    const type = text.slice(index, colon);
    let value: string;
    let next: number;
    if (text[colon + 1] === '"') {
      let end = colon + 2;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      try {
        value = JSON.parse(text.slice(colon + 1, end + 1)) as string;
      } catch {
        value = text.slice(colon + 2, end);
      }
      next = end + 1;
    } else {
      const comma = text.indexOf(', ', colon + 1);
      next = comma < 0 ? text.length : comma;
      value = text.slice(colon + 1, next);
    }
    entries.push(`${SAN_TYPES[type] ?? type}:${value}`);
    index = next;
    while (text[index] === ',' || text[index] === ' ') index += 1;
  }
  return entries;
}

/** Pure mapping from a parsed certificate to the identity. */
export function identityOfCertificate(certificate: Pick<X509Certificate, 'subject' | 'subjectAltName'>): ClientIdentity {
  return {
    subject: formatSubject(certificate.subject),
    commonName: attributeValues(certificate.subject, 'CN').at(-1),
    organizations: attributeValues(certificate.subject, 'O'),
    subjectAltNames: parseSubjectAltNames(certificate.subjectAltName),
  };
}

const identities = new WeakMap<Socket, ClientIdentity | null>();

// A registered symbol rather than a module-level WeakMap, so a duplicate copy of this package
// (two versions in one node_modules) still sees what the server's copy decided.
const VERIFIED_CLIENT = Symbol.for('@fabric-ops/ops-tls-auth.verified-client');

/** Records that the TLS layer admitted this connection's client certificate (Go's rules). */
export function markVerifiedClient(socket: TLSSocket, leaf?: Uint8Array): void {
  (socket as unknown as Record<symbol, Uint8Array | boolean>)[VERIFIED_CLIENT] = leaf ?? true;
}

function isVerifiedClient(socket: TLSSocket): boolean {
  // Only createTlsServer's verdict counts: OpenSSL's `authorized` disagrees with Go's rules in
  // both directions, so a server set up without createTlsServer has no verified clients.
  return (socket as unknown as Record<symbol, unknown>)[VERIFIED_CLIENT] !== undefined;
}

function isTlsSocket(socket: Socket): socket is TLSSocket {
  return (socket as Partial<TLSSocket>).encrypted === true;
}

/**
 * The identity of the connection's client certificate when it was presented AND admitted by
 * `createTlsServer` (Go's rules, the client root CAs); undefined on plain HTTP or
 * without a verified certificate.
 * Computed once per connection.
 */
export function clientIdentityOf(req: IncomingMessage): ClientIdentity | undefined {
  const socket = req.socket;
  const known = identities.get(socket);
  if (known !== undefined) return known ?? undefined;
  let identity: ClientIdentity | null = null;
  if (isTlsSocket(socket) && isVerifiedClient(socket)) {
    // The leaf the verdict was taken on: getPeerX509Certificate() would keep native memory for
    // every other certificate the client sent (peer-chain.ts).
    const leaf = (socket as unknown as Record<symbol, unknown>)[VERIFIED_CLIENT];
    const certificate = leaf instanceof Uint8Array ? new X509Certificate(leaf) : socket.getPeerX509Certificate();
    if (certificate !== undefined) identity = identityOfCertificate(certificate);
  }
  identities.set(socket, identity);
  return identity ?? undefined;
}

/** The verified client certificate's subject, e.g. `CN=operator,O=Org1`; undefined without one. */
export function clientSubjectOf(req: IncomingMessage): string | undefined {
  return clientIdentityOf(req)?.subject;
}

/** `ip:port`, with brackets for IPv6, as Go prints a RemoteAddr. */
export function remoteAddressOf(req: IncomingMessage): string {
  return formatRemoteAddress(req.socket.remoteAddress, req.socket.remotePort);
}
