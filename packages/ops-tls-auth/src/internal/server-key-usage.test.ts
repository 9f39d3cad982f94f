import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { createTestPki, type TestPki } from '@fabric-ops/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTlsCredentials } from './credentials.ts';
import { useTestServers, type StartedServer } from '../../test/servers.ts';

// An intermediate whose KeyUsage extension is present with no bit set: Go does not check a CA's
// KeyUsage and admits its clients. OpenSSL's X509_check_issued does not take such a certificate
// for an issuer, so it is not on the issuer path Node hands over (peer-chain.ts): the list as sent
// is read again on Node 24 and later, and the client admitted; on Node 20 and 22 it is refused.

let pki: TestPki;
const file = (name: string): string => join(pki.dir, `ku-${name}`);
beforeAll(async () => {
  pki = await createTestPki();
  const openssl = (...args: string[]): void => void execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    file('root.key'),
    '-out',
    file('root.pem'),
    '-days',
    '2',
    '-subj',
    '/CN=ku-root',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign',
  );
  // KeyUsage present, BIT STRING with no bits: 03 01 00
  writeFileSync(file('int.ext'), 'basicConstraints=critical,CA:TRUE\n2.5.29.15=critical,DER:03:01:00\n');
  writeFileSync(file('leaf.ext'), 'extendedKeyUsage=clientAuth\n');
  openssl('req', '-new', ...ec, '-keyout', file('int.key'), '-out', file('int.csr'), '-subj', '/CN=ku-intermediate');
  openssl('x509', '-req', '-in', file('int.csr'), '-CA', file('root.pem'), '-CAkey', file('root.key'), '-set_serial', '1', '-days', '2', '-extfile', file('int.ext'), '-out', file('int.pem'));
  openssl('req', '-new', ...ec, '-keyout', file('leaf.key'), '-out', file('leaf.csr'), '-subj', '/O=Org1/CN=ku-client');
  openssl('x509', '-req', '-in', file('leaf.csr'), '-CA', file('int.pem'), '-CAkey', file('int.key'), '-set_serial', '2', '-days', '2', '-extfile', file('leaf.ext'), '-out', file('leaf.pem'));
}, 60_000);
afterAll(() => pki?.cleanup());

const start = useTestServers();

function served(target: StartedServer, version: 'TLSv1.2' | 'TLSv1.3'): Promise<string> {
  const read = (name: string): string => readFileSync(file(name), 'utf8');
  return new Promise((resolve) => {
    const socket = connect({
      host: target.host,
      port: target.port,
      cert: read('leaf.pem') + read('int.pem'),
      key: read('leaf.key'),
      ca: pki.ca.cert,
      servername: 'localhost',
      minVersion: version,
      maxVersion: version,
    });
    let body = '';
    socket.once('secureConnect', () => socket.write('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
    socket.on('data', (chunk: Buffer) => (body += chunk.toString('latin1')));
    socket.once('error', () => resolve(body));
    socket.once('close', () => resolve(body));
  });
}

const readsExactly = Number(process.versions.node.split('.')[0]) >= 24;

describe('createTlsServer: an intermediate whose KeyUsage has no bit set', () => {
  for (const version of ['TLSv1.2', 'TLSv1.3'] as const) {
    it(`${readsExactly ? 'admits its client as Go does' : 'refuses its client (Node 20, 22: off the issuer path)'} (${version})`, async () => {
      const target = await start({ credentials: loadTlsCredentials({ certFile: pki.server.certFile, keyFile: pki.server.keyFile, clientRootCAs: [file('root.pem')] }) });
      const body = await served(target, version);
      if (readsExactly) {
        expect(body).toContain('CN=ku-client,O=Org1');
        expect(target.lines).toEqual([]);
      } else {
        expect(body).not.toContain('CN=ku-client');
        await expect.poll(() => target.lines.length).toBe(1);
        expect(target.lines[0]!.message).toMatch(/tls: failed to verify certificate: x509: certificate signed by unknown authority/);
      }
    });
  }
});
