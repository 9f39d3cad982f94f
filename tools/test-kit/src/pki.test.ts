import { X509Certificate, createPrivateKey } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPkiWorkspace, createTestPki, type PkiWorkspace, type TestPki } from './pki.ts';

// What the PKI is for: certificates the TLS tests and benches need, checked with Node's own
// X.509 reader (issuer, key type, SANs, extensions), never by reading openssl's output back.

let workspace: PkiWorkspace;
beforeAll(async () => {
  workspace = await createPkiWorkspace();
});
afterAll(() => workspace?.cleanup());

const x509 = (pem: string): X509Certificate => new X509Certificate(pem);

describe('createPkiWorkspace', () => {
  it('makes leaves with the chosen key type, SANs and usage, each signed by its CA', async () => {
    const ca = await workspace.rootCa('keys-ca', { keyType: 'rsa-2048' });
    expect(x509(ca.cert).publicKey.asymmetricKeyType).toBe('rsa');
    const kinds = [
      ['ec-p256', 'ec', 'prime256v1'],
      ['ec-p384', 'ec', 'secp384r1'],
      ['ed25519', 'ed25519', undefined],
      ['rsa-2048', 'rsa', undefined],
    ] as const;
    for (const [keyType, algorithm, curve] of kinds) {
      const leaf = await ca.issue(`client-${keyType}`, {
        subject: { O: 'Org1', CN: keyType },
        extendedKeyUsage: ['clientAuth'],
        keyType,
        dnsNames: ['peer0.org1.example.com'],
        ipAddresses: ['10.0.0.7'],
      });
      const cert = x509(leaf.cert);
      expect(cert.publicKey.asymmetricKeyType).toBe(algorithm);
      expect(cert.publicKey.asymmetricKeyDetails?.namedCurve).toBe(curve);
      expect(createPrivateKey(leaf.key).asymmetricKeyType).toBe(algorithm);
      expect(cert.subjectAltName).toBe('DNS:peer0.org1.example.com, IP Address:10.0.0.7');
      expect(cert.subject).toBe(`O=Org1\nCN=${keyType}`);
      expect(cert.checkIssued(x509(ca.cert)) && cert.verify(x509(ca.cert).publicKey)).toBe(true);
    }
    await expect(ca.issue('bad-key', { subject: { CN: 'x' }, extendedKeyUsage: [], keyType: 'dsa' as never })).rejects.toThrow(/unknown keyType 'dsa'/);
  });

  it('cross-signs one intermediate (one subject, one key) under two roots, as during a CA rotation', async () => {
    const [oldRoot, newRoot] = await Promise.all([workspace.rootCa('rotation-old-root'), workspace.rootCa('rotation-new-root')]);
    const subject = { O: 'Org1', CN: 'rotating-intermediate' };
    const oldCopy = await oldRoot.issueIntermediate('rotation-int-old', { subject });
    const newCopy = await newRoot.issueIntermediate('rotation-int-new', { subject, keyFile: oldCopy.keyFile });
    expect(x509(oldCopy.cert).subject).toBe(x509(newCopy.cert).subject);
    expect(x509(oldCopy.cert).publicKey.export({ format: 'pem', type: 'spki' })).toBe(x509(newCopy.cert).publicKey.export({ format: 'pem', type: 'spki' }));
    expect(x509(newCopy.cert).verify(x509(newRoot.cert).publicKey)).toBe(true);
    expect(x509(oldCopy.cert).verify(x509(oldRoot.cert).publicKey)).toBe(true);
    // A leaf issued by either copy verifies under the other: they are one CA.
    const leaf = await newCopy.issue('rotation-client', { subject: { O: 'Org1', CN: 'rotating-client' }, extendedKeyUsage: ['clientAuth'] });
    expect(x509(leaf.cert).verify(x509(oldCopy.cert).publicKey)).toBe(true);
  });

  it('makes self-issued CAs that share a key and a name, with extra CA extensions (the attack-chain shape)', async () => {
    const first = await workspace.rootCa('shared-ca-1', { subject: { CN: 'shared-ca' }, keyType: 'ec-p256', extraExtensions: ['nameConstraints = critical, excluded;DNS:e0.x, excluded;DNS:e1.x'] });
    const second = await workspace.rootCa('shared-ca-2', { subject: { CN: 'shared-ca' }, keyFile: first.keyFile, extraExtensions: ['nameConstraints = critical, excluded;DNS:e0.x'] });
    expect(x509(second.cert).subject).toBe('CN=shared-ca');
    expect(x509(second.cert).verify(x509(first.cert).publicKey)).toBe(true);
    expect(x509(first.cert).serialNumber).not.toBe(x509(second.cert).serialNumber);
    expect(x509(first.cert).ca).toBe(true);
    // The nameConstraints extension's identifier (2.5.29.30) in the DER: the extra line was written.
    const nameConstraintsOid = Buffer.from([0x06, 0x03, 0x55, 0x1d, 0x1e]);
    expect(x509(first.cert).raw.includes(nameConstraintsOid)).toBe(true);
    expect(x509(first.cert).raw.includes(Buffer.from('e1.x'))).toBe(true);
    const leaf = await first.issue('shared-leaf', { subject: { CN: 'attacker' }, extendedKeyUsage: ['clientAuth'], dnsNames: Array.from({ length: 40 }, (_, i) => `s${i}.y`) });
    expect(x509(leaf.cert).subjectAltName?.split(', ')).toHaveLength(40);
  });
});

describe('createTestPki', () => {
  let pki: TestPki;
  beforeAll(async () => {
    pki = await createTestPki();
  });
  afterAll(() => pki?.cleanup());

  it('keeps its fixed cast: server for localhost, a chain through the intermediate, clients by kind', () => {
    expect(x509(pki.server.cert).subjectAltName).toBe('DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');
    const [leaf, intermediate] = pki.serverChain.cert.split(/(?<=-----END CERTIFICATE-----\n)/);
    expect(x509(intermediate!).checkIssued(x509(pki.ca.cert))).toBe(true);
    expect(x509(leaf!).checkIssued(x509(intermediate!))).toBe(true);
    expect(x509(pki.clients.good.cert).checkIssued(x509(pki.ca.cert))).toBe(true);
    expect(x509(pki.clients.rogueCa.cert).checkIssued(x509(pki.ca.cert))).toBe(false);
    expect(new Date(x509(pki.clients.expired.cert).validTo).getTime()).toBeLessThan(Date.now());
    expect(pki.serverTls).toEqual({ certFile: pki.server.certFile, keyFile: pki.server.keyFile, clientRootCAs: [pki.ca.certFile] });
  });
});
