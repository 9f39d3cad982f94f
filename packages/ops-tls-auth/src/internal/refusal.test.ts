// What a refused client sees and what the server logs, against the real server with Node's TLS
// client: Go's alert for a missing certificate where clientAuthRequired asks for one, and a log
// line naming the refused certificate and Go's reason where no alert can say it.
import { connect as connectTls, type SecureVersion } from 'node:tls';
import { useTestPki, type PemPair } from '@fabric-ops/test-kit';
import { describe, expect, it } from 'vitest';
import { useTestServers, type StartedServer } from '../../test/servers.ts';
import { loadTlsCredentials } from './credentials.ts';

const pkiOf = useTestPki();
const startServer = useTestServers();
const start = (clientAuthRequired: boolean): Promise<StartedServer> => {
  const pki = pkiOf();
  return startServer({ credentials: loadTlsCredentials({ certFile: pki.server.certFile, keyFile: pki.server.keyFile, clientRootCAs: [pki.ca.certFile] }), clientAuthRequired });
};

/** What the client's request ends with: the answer, or the error its TLS layer reports. */
function outcome(target: StartedServer, version: SecureVersion, client?: PemPair): Promise<string> {
  return new Promise((resolve) => {
    const socket = connectTls({ host: target.host, port: target.port, ca: pkiOf().ca.cert, ...(client ?? {}), minVersion: version, maxVersion: version });
    let answer = '';
    socket.on('error', (error: Error & { code?: string }) => resolve(error.code ?? error.message));
    socket.once('secureConnect', () => socket.end('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
    socket.once('close', () => resolve(answer === '' ? 'closed' : answer.slice(answer.lastIndexOf('\r\n') + 2)));
  });
}

describe('a refused client', () => {
  it('that sends no certificate where one is required gets Go’s alert: certificate_required under TLS 1.3, handshake_failure under 1.2', async () => {
    const target = await start(true);
    expect(await outcome(target, 'TLSv1.3')).toBe('ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED');
    // OpenSSL 3.0 (Node 20) names alert 40 "sslv3 alert handshake failure", 3.5 (Node 22+) "ssl/tls alert …".
    expect(await outcome(target, 'TLSv1.2')).toMatch(/^ERR_SSL_(SSLV3|SSL\/TLS)_ALERT_HANDSHAKE_FAILURE$/);
    await expect.poll(() => target.lines.length).toBe(2);
    for (const line of target.lines) expect(line.message).toMatch(/^http: TLS handshake error from 127\.0\.0\.1:\d+: tls: client didn't provide a certificate$/);
    // OpenSSL refuses only the missing certificate: the verdict on one that is sent stays Go's.
    for (const version of ['TLSv1.3', 'TLSv1.2'] as const) expect(await outcome(target, version, pkiOf().clients.good)).toBe('CN=operator,O=Org1');
  });

  it('without clientAuthRequired, is admitted without a certificate', async () => {
    const target = await start(false);
    expect(await outcome(target, 'TLSv1.3')).toBe('anonymous');
  });

  it('whose certificate Go refuses is named in the log line (Subject, Issuer) beside Go’s reason', async () => {
    const target = await start(false);
    expect(await outcome(target, 'TLSv1.3', pkiOf().clients.rogueCa)).toBe('closed');
    await expect.poll(() => target.lines.length).toBe(1);
    expect(target.lines[0]!.message).toMatch(/^http: TLS handshake error from 127\.0\.0\.1:\d+: tls: failed to verify certificate: x509: certificate signed by unknown authority$/);
    expect(target.lines[0]!.fields).toMatchObject({
      reason: 'tls: failed to verify certificate: x509: certificate signed by unknown authority',
      Subject: 'CN=operator,O=Org1',
      Issuer: expect.stringMatching(/^CN=/) as unknown as string,
    });
  });
});
