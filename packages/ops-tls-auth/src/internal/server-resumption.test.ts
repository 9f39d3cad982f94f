// As in Go 1.26, a client whose chain would no longer be admitted (its CA
// removed by a reload, a certificate in it expired) never gets in by resuming a session, with a
// TLS 1.2 ticket or a TLS 1.3 PSK alike. Node's own TLS client, which resumes, against the real server.
import { connect as connectTls, type SecureVersion } from 'node:tls';
import { useTestPki, type PemPair } from '@fabric-ops/test-kit';
import { describe, expect, it } from 'vitest';
import { useTestServers, type StartedServer } from '../../test/servers.ts';
import { loadTlsCredentials } from './credentials.ts';

const pkiOf = useTestPki();

const startServer = useTestServers();

function start(): Promise<StartedServer> {
  const credentials = loadTlsCredentials({ certFile: pkiOf().server.certFile, keyFile: pkiOf().server.keyFile, clientRootCAs: [pkiOf().ca.certFile] });
  return startServer({ credentials, clientAuthRequired: true, logger: { warn: () => {} } });
}

interface Exchange {
  /** The response body, or '' when the server closed the connection without answering. */
  readonly answer: string;
  readonly resumed: boolean;
  readonly session: Buffer | undefined;
}

/** One request on a new connection, offering `session` to resume; keeps the ticket the server sends. */
function exchange(port: number, client: PemPair, version: SecureVersion, session?: Buffer): Promise<Exchange> {
  return new Promise((resolve) => {
    const socket = connectTls({ host: '127.0.0.1', port, ca: pkiOf().ca.cert, cert: client.cert, key: client.key, minVersion: version, maxVersion: version, ...(session ? { session } : {}) });
    let ticket: Buffer | undefined;
    let resumed = false;
    let raw = '';
    socket.on('session', (s: Buffer) => (ticket = s));
    socket.on('error', () => {});
    socket.once('secureConnect', () => {
      resumed = socket.isSessionReused();
      socket.write('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    });
    socket.on('data', (c: Buffer) => (raw += c.toString()));
    socket.once('close', () => resolve({ answer: raw.includes('\r\n\r\n') ? raw.slice(raw.indexOf('\r\n\r\n') + 4) : '', resumed, session: ticket ?? session }));
  });
}

describe.each(['TLSv1.2', 'TLSv1.3'] as const)('createTlsServer: session resumption over %s', (version) => {
  it('resumes for a client still admitted, and never for one whose CA a reload removed', async () => {
    const target = await start();
    const first = await exchange(target.port, pkiOf().clients.good, version);
    expect(first.answer).toBe('CN=operator,O=Org1');
    const again = await exchange(target.port, pkiOf().clients.good, version, first.session);
    expect(again).toMatchObject({ answer: 'CN=operator,O=Org1', resumed: true });
    target.tls.setCredentials(loadTlsCredentials({ certFile: pkiOf().server.certFile, keyFile: pkiOf().server.keyFile, clientRootCAs: [pkiOf().rogueCa.certFile] }));
    const afterReload = await exchange(target.port, pkiOf().clients.good, version, again.session);
    expect(afterReload.answer).toBe('');
  });

  it('never admits, by resumption or otherwise, a client whose certificate has expired since', async () => {
    const target = await start();
    const shortLived = await pkiOf().ca.issue(`short-lived-${version}`, { subject: { O: 'Org1', CN: 'short-lived' }, extendedKeyUsage: ['clientAuth'], notAfter: new Date(Date.now() + 3_000) });
    const first = await exchange(target.port, shortLived, version);
    expect(first.answer).toBe('CN=short-lived,O=Org1');
    const notAfter = new Date(new (await import('node:crypto')).X509Certificate(shortLived.cert).validTo).getTime();
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, notAfter - Date.now()) + 1_100));
    const resumed = await exchange(target.port, shortLived, version, first.session);
    expect(resumed.answer).toBe('');
    const full = await exchange(target.port, shortLived, version);
    expect(full.answer).toBe('');
  });
});
