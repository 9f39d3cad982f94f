import { connect } from 'node:tls';
import { createTestPki, type PemPair, type TestPki } from '@fabric-ops/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTlsCredentials } from './credentials.ts';
import { useTestServers } from '../../test/servers.ts';

// A client certificate of ~70 KiB: OpenSSL's stateless session ticket holds the leaf and must
// fit 65,280 bytes, so the ticket cannot be built and OpenSSL ends the connection with
// internal_error, in the handshake under TLS 1.2 and after it under TLS 1.3 (Go, whose ticket has
// no such limit, serves it). The server logs what happened. Keeping sessions in the server
// instead (SSL_OP_NO_TICKET with Node's newSession/resumeSession) serves it, but Node then cannot
// resume TLS 1.3 sessions at all (its session lookup reads the ClientHello's session ID, which
// TLS 1.3 does not use): every client would lose TLS 1.3 resumption for this rare one.

let pki: TestPki;
let large: PemPair;
beforeAll(async () => {
  pki = await createTestPki();
  const dnsNames = Array.from({ length: 3_300 }, (_, i) => `host-${String(i).padStart(5, '0')}.example.com`);
  large = await pki.ca.issue('ticket-large', { subject: { O: 'Org1', CN: 'large' }, extendedKeyUsage: ['clientAuth'], dnsNames });
}, 60_000);
afterAll(() => pki?.cleanup());

const start = useTestServers();

describe.each(['TLSv1.2', 'TLSv1.3'] as const)('createTlsServer: a client certificate too large for a session ticket, over %s', (version) => {
  it('logs why the connection ended', async () => {
    const target = await start({ credentials: loadTlsCredentials({ certFile: pki.server.certFile, keyFile: pki.server.keyFile, clientRootCAs: [pki.ca.certFile] }) });
    const ended = await new Promise<string>((resolve) => {
      const socket = connect({ host: target.host, port: target.port, cert: large.cert, key: large.key, ca: pki.ca.cert, servername: 'localhost', minVersion: version, maxVersion: version });
      socket.once('secureConnect', () => socket.write('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
      socket.once('error', (error) => resolve(error.message));
      socket.resume();
    });
    expect(ended).toMatch(/alert internal error/);
    await expect.poll(() => target.lines.length).toBe(1);
    expect(target.lines[0]!.message).toMatch(/^http: TLS handshake error from 127\.0\.0\.1:\d+: tls: internal error: the client certificate does not fit in a TLS session ticket \(OpenSSL\)$/);
  });
});
