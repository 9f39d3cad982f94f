// The handshake parameters Go 1.26 (Fabric v2.5 / v3.1) uses, checked with Node's TLS client
// against the real server: the key-exchange groups it offers (ML-KEM hybrids where this Node's
// OpenSSL has them) and no SHA-1 in a TLS 1.2 client's CertificateVerify.
import { connect as connectTls, createSecureContext, type ConnectionOptions } from 'node:tls';
import { createTestPki, type TestPki } from '@fabric-ops/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestServers } from '../../test/servers.ts';
import { loadTlsCredentials } from './credentials.ts';
import { GO_KEY_EXCHANGE_GROUPS, keyExchangeGroups } from './options.ts';

let pki: TestPki;
let rsaClient: { cert: string; key: string; caFile: string };
beforeAll(async () => {
  pki = await createTestPki();
  // A client with an RSA key (its only TLS 1.2 signatures are RSA ones) under a CA of its own.
  const rsaCa = await pki.rootCa('handshake-rsa-ca');
  const client = await rsaCa.issue('handshake-rsa-client', { subject: { O: 'Org1', CN: 'rsa-client' }, extendedKeyUsage: ['clientAuth'], keyType: 'rsa-2048' });
  rsaClient = { cert: client.cert, key: client.key, caFile: rsaCa.certFile };
}, 60_000);
afterAll(() => pki?.cleanup());

const startServer = useTestServers();

async function start(clientRootCAs: string[]): Promise<number> {
  const credentials = loadTlsCredentials({ certFile: pki.server.certFile, keyFile: pki.server.keyFile, clientRootCAs });
  return (await startServer({ credentials, logger: { warn: () => {} } })).port;
}

/** One request; the body, or the error that ended the connection. */
function ask(port: number, options: ConnectionOptions): Promise<{ body?: string; error?: string; group?: string }> {
  return new Promise((resolve) => {
    const socket = connectTls({ host: '127.0.0.1', port, ca: pki.ca.cert, ...options });
    let raw = '';
    let error: string | undefined;
    let group: string | undefined;
    socket.on('error', (e: Error) => (error = e.message));
    socket.once('secureConnect', () => {
      group = (socket.getEphemeralKeyInfo() as { name?: string } | null)?.name;
      socket.write('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    });
    socket.on('data', (c: Buffer) => (raw += c.toString()));
    socket.once('close', () => {
      const at = raw.indexOf('\r\n\r\n');
      resolve(at === -1 ? { error: error ?? 'closed without an answer' } : { body: raw.slice(at + 4), ...(group ? { group } : {}) });
    });
  });
}

const hasMlKem = ((): boolean => {
  try {
    createSecureContext({ ecdhCurve: 'X25519MLKEM768' });
    return true;
  } catch {
    return false;
  }
})();

describe('createTlsServer: key exchange as Go 1.26', () => {
  it("offers Go's groups in Go's order where this OpenSSL has them, and completes a handshake with a client offering only X25519MLKEM768 where it does", async () => {
    if (!hasMlKem) {
      // OpenSSL 3.0 (Node 20): no ML-KEM hybrid; the classical groups in Go's order.
      expect(keyExchangeGroups()).toBe('X25519:P-256:P-384:P-521');
      return;
    }
    expect(keyExchangeGroups()).toBe(GO_KEY_EXCHANGE_GROUPS.join(':'));
    const port = await start([pki.ca.certFile]);
    const answer = await ask(port, { ecdhCurve: 'X25519MLKEM768', minVersion: 'TLSv1.3', cert: pki.clients.good.cert, key: pki.clients.good.key });
    expect(answer.body).toBe('CN=operator,O=Org1');
    for (const group of ['SecP256r1MLKEM768', 'SecP384r1MLKEM1024']) {
      expect(await ask(port, { ecdhCurve: group, minVersion: 'TLSv1.3' })).toMatchObject({ body: 'anonymous' });
    }
  });
});

describe('createTlsServer: SHA-1 in a TLS 1.2 CertificateVerify', () => {
  it('never authenticates a client by a SHA-1 signature, and does when it may use SHA-256', async () => {
    const port = await start([rsaClient.caFile]);
    const client = { cert: rsaClient.cert, key: rsaClient.key, maxVersion: 'TLSv1.2' as const };
    // The server signs with ECDSA P-256 / SHA-256; the client's RSA key can only sign with RSA /
    // SHA-1. SHA-1 is not in the server's CertificateRequest, so OpenSSL's client sends no
    // certificate and is served as anonymous (as Go's VerifyClientCertIfGiven does); never as rsa-client.
    expect(await ask(port, { ...client, sigalgs: 'ecdsa_secp256r1_sha256:RSA+SHA1' })).toEqual({ body: 'anonymous', group: 'X25519' });
    expect(await ask(port, { ...client, sigalgs: 'ecdsa_secp256r1_sha256:RSA+SHA1:rsa_pss_rsae_sha256' })).toEqual({ body: 'CN=rsa-client,O=Org1', group: 'X25519' });
  });
});
