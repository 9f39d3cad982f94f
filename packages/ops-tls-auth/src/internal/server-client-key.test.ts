import { connect } from 'node:tls';
import { useTestPki, type PemPair } from '@fabric-ops/test-kit';
import { describe, expect, it } from 'vitest';
import { loadTlsCredentials } from './credentials.ts';
import { useTestServers, type StartedServer } from '../../test/servers.ts';

// Checks Go's crypto/tls makes outside crypto/x509, over real TLS: the client's CertificateVerify
// is checked with crypto/rsa, which refuses an RSA key under 1,024 bits (Go 1.24+), after the
// chain has verified. OpenSSL checks that signature too, and admits such a key.

const pkiOf = useTestPki(async (pki) => {
  const subject = { O: 'Org1', CN: 'small-key' };
  const [rsa768, rsa512, rsa1024] = await Promise.all([
    pki.ca.issue('key-rsa-768', { subject, extendedKeyUsage: ['clientAuth'], keyType: 'rsa-768' }),
    pki.ca.issue('key-rsa-512', { subject, extendedKeyUsage: ['clientAuth'], keyType: 'rsa-512' }),
    pki.ca.issue('key-rsa-1024', { subject, extendedKeyUsage: ['clientAuth'], keyType: 'rsa-1024' }),
  ]);
  return { rsa768, rsa512, rsa1024 };
});

const start = useTestServers();

/** The body served to `client` over `version`, or the error that ended the connection. */
function served(target: StartedServer, client: PemPair, version: 'TLSv1.2' | 'TLSv1.3'): Promise<string> {
  return new Promise((resolve) => {
    // the client's own OpenSSL refuses to use a key this small at its default security level
    const socket = connect({
      host: target.host,
      port: target.port,
      cert: client.cert,
      key: client.key,
      ca: pkiOf().ca.cert,
      servername: 'localhost',
      minVersion: version,
      maxVersion: version,
      ciphers: 'DEFAULT@SECLEVEL=0',
    });
    let body = '';
    socket.once('secureConnect', () => socket.write('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
    socket.on('data', (chunk: Buffer) => (body += chunk.toString('latin1')));
    socket.once('error', (error) => resolve(`error: ${error.message}`));
    socket.once('close', () => resolve(body));
  });
}

describe('createTlsServer: the client key at the handshake signature', () => {
  for (const [version, client, bits] of [
    ['TLSv1.3', () => pkiOf().issued.rsa768, 768],
    ['TLSv1.2', () => pkiOf().issued.rsa768, 768],
    ['TLSv1.2', () => pkiOf().issued.rsa512, 512],
  ] as const) {
    it(`refuses a ${bits}-bit RSA client whose chain verifies (${version}), with Go's text`, async () => {
      const target = await start({ credentials: loadTlsCredentials({ ...pkiOf().serverTls }) });
      expect(await served(target, client(), version)).not.toContain('CN=small-key');
      await expect.poll(() => target.lines.length).toBe(1);
      expect(target.lines[0]!.message).toMatch(
        new RegExp(
          `^http: TLS handshake error from 127\\.0\\.0\\.1:\\d+: tls: invalid signature by the client certificate: crypto/rsa: ${bits}-bit keys are insecure \\(see https://go\\.dev/pkg/crypto/rsa#hdr-Minimum_key_size\\)$`,
        ),
      );
    });
  }

  it('admits a 1,024-bit RSA client (TLS 1.3 and 1.2)', async () => {
    const target = await start({ credentials: loadTlsCredentials({ ...pkiOf().serverTls }) });
    expect(await served(target, pkiOf().issued.rsa1024, 'TLSv1.3')).toContain('CN=small-key');
    expect(await served(target, pkiOf().issued.rsa1024, 'TLSv1.2')).toContain('CN=small-key');
    expect(target.lines).toEqual([]);
  });
});
