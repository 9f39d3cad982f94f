import { X509Certificate } from 'node:crypto';
import { useTestPki } from '@fabric-ops/test-kit';
import { describe, expect, it } from 'vitest';
import { createClientTrustPool, verifyClientChain } from './client-chain.ts';

// Certificates as the openssl CLI makes them (key identifiers, KeyUsage, EKU as OpenSSL
// writes them), checked with the same verdicts a Fabric peer gives for them.
const der = (pem: string): Uint8Array => new Uint8Array(new X509Certificate(pem).raw);

describe('verifyClientChain on an OpenSSL-made PKI', () => {
  const pkiOf = useTestPki();

  it('admits a client of the listed CA and refuses the others with Go’s reasons', () => {
    const pki = pkiOf();
    const pool = createClientTrustPool([pki.ca.cert]);
    expect(pool).toMatchObject({ size: 1, skipped: [] });
    expect(verifyClientChain([der(pki.clients.good.cert)], pool)).toEqual({ accept: true });
    expect(verifyClientChain([der(pki.clients.rogueCa.cert)], pool)).toEqual({
      accept: false,
      reason: 'tls: failed to verify certificate: x509: certificate signed by unknown authority',
    });
    expect(verifyClientChain([der(pki.clients.expired.cert)], pool)).toMatchObject({
      accept: false,
      reason: expect.stringMatching(/^tls: failed to verify certificate: x509: certificate has expired or is not yet valid: current time \S+ is after \S+$/),
    });
    expect(verifyClientChain([der(pki.clients.notYetValid.cert)], pool)).toMatchObject({
      accept: false,
      reason: expect.stringMatching(/is before/),
    });
    expect(verifyClientChain([der(pki.clients.serverAuthOnly.cert)], pool)).toEqual({
      accept: false,
      reason: 'tls: failed to verify certificate: x509: certificate specifies an incompatible key usage',
    });
  });

  it('builds the path through an intermediate the client sends, and anchors at a listed intermediate', async () => {
    const pki = pkiOf();
    const client = await pki.intermediateCa.issue('x509-intermediate-client', { subject: { CN: 'via-int' }, extendedKeyUsage: ['clientAuth'] });
    const leaf = der(client.cert);
    const intermediate = der(pki.intermediateCa.cert);
    const rootPool = createClientTrustPool([pki.ca.cert]);
    expect(verifyClientChain([leaf, der(pki.rogueCa.cert), intermediate], rootPool)).toEqual({ accept: true });
    expect(verifyClientChain([leaf], rootPool).accept).toBe(false);
    expect(verifyClientChain([leaf], createClientTrustPool([pki.intermediateCa.cert]))).toEqual({ accept: true });
    // Both CA files, one of them twice: the pool holds two distinct anchors.
    expect(createClientTrustPool([pki.ca.cert, pki.intermediateCa.cert, pki.ca.cert]).size).toBe(2);
  });
});
