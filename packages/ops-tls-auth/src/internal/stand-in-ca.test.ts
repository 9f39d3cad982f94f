import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenSslClientCas, makeStandInsAhead, namesIssuerKey, rawSubjectOf, signatureKeyKind, standInFor } from './stand-in-ca.ts';

let dir: string;
const file = (name: string): string => join(dir, name);
const openssl = (...args: string[]): void => void execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
const read = (name: string): string => readFileSync(file(name), 'utf8');

/** A self-signed CA; `subject` in `openssl req -subj` form (multi-valued RDNs with `+`, UTF-8). */
function rootCa(name: string, subject: string, keyArgs: string[] = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256']): string {
  openssl('req', '-x509', ...keyArgs, '-nodes', '-keyout', file(`${name}.key`), '-utf8', '-multivalue-rdn', '-subj', subject, '-days', '2', '-out', file(`${name}.pem`));
  return read(`${name}.pem`);
}

/** A leaf signed by `ca`, with or without an authority key identifier. */
function leaf(name: string, ca: string, withAuthorityKeyId: boolean): string {
  openssl('req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', file(`${name}.key`), '-subj', '/CN=localhost', '-out', file(`${name}.csr`));
  writeFileSync(file(`${name}.ext`), withAuthorityKeyId ? 'authorityKeyIdentifier=keyid\n' : 'subjectKeyIdentifier=none\nauthorityKeyIdentifier=none\n');
  openssl(
    'x509',
    '-req',
    '-in',
    file(`${name}.csr`),
    '-CA',
    file(`${ca}.pem`),
    '-CAkey',
    file(`${ca}.key`),
    '-set_serial',
    '9',
    '-days',
    '2',
    '-extfile',
    file(`${name}.ext`),
    '-out',
    file(`${name}.pem`),
  );
  return read(`${name}.pem`);
}

let plainCa: string;
let oddCa: string;
let rsaCa: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ops-tls-stand-in-'));
  plainCa = rootCa('plain', '/CN=plain-ca');
  // UTF8String and PrintableString values, a multi-valued RDN, runs of spaces OpenSSL's canonical form would fold
  oddCa = rootCa('odd', '/C=US/O=Org é+OU=multi/CN=  Odd   CA ');
  rsaCa = rootCa('rsa', '/O=Org2/CN=rsa-ca', ['-newkey', 'rsa:2048']);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('standInFor', () => {
  it('copies the subject name bytes exactly, as subject and issuer, for EC, RSA and odd names', () => {
    for (const real of [plainCa, oddCa, rsaCa]) {
      const realCert = new X509Certificate(real);
      const standIn = new X509Certificate(standInFor(real));
      expect(Buffer.from(rawSubjectOf(standIn.raw))).toEqual(Buffer.from(rawSubjectOf(realCert.raw)));
      expect(standIn.subject).toBe(realCert.subject);
      expect(standIn.issuer).toBe(realCert.subject);
      expect(standIn.raw.equals(realCert.raw)).toBe(false);
    }
  });

  it('is a self-signed CA certificate with a key of another kind than the real one, and a key identifier of its own', () => {
    const realCert = new X509Certificate(plainCa);
    const standIn = new X509Certificate(standInFor(plainCa));
    // one key per kind for the process, not one per CA (making keys was most of a reload's cost)
    const spki = (cert: X509Certificate): Buffer => cert.publicKey.export({ type: 'spki', format: 'der' });
    expect(spki(new X509Certificate(standInFor(oddCa)))).toEqual(spki(standIn));
    expect(standIn.ca).toBe(true);
    expect(standIn.verify(standIn.publicKey)).toBe(true);
    expect(standIn.verify(realCert.publicKey)).toBe(false);
    expect(standIn.publicKey.asymmetricKeyType).toBe('ed25519');
    const forRsa = new X509Certificate(standInFor(rsaCa));
    expect(forRsa.publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    expect(forRsa.verify(forRsa.publicKey)).toBe(true);
    const text = execFileSync('openssl', ['x509', '-noout', '-text'], { input: standInFor(plainCa), encoding: 'utf8' });
    expect(text).toMatch(/Basic Constraints: critical\s+CA:TRUE/);
    expect(text).toMatch(/Key Usage: critical\s+Certificate Sign/);
    const keyIds = (pem: string): string => /Subject Key Identifier:\s*\n\s*(\S+)/.exec(execFileSync('openssl', ['x509', '-noout', '-text'], { input: pem, encoding: 'utf8' }))?.[1] ?? '';
    expect(keyIds(standInFor(plainCa))).toMatch(/^([0-9A-F]{2}:){19}[0-9A-F]{2}$/);
    expect(keyIds(standInFor(plainCa))).not.toBe(keyIds(plainCa));
    expect(keyIds(standInFor(plainCa))).not.toBe(keyIds(standInFor(plainCa)));
  });

  it('refuses what is not a certificate', () => {
    expect(() => standInFor('not a certificate')).toThrow();
    expect(() => rawSubjectOf(Buffer.from([0x30, 0x03, 0x02, 0x01]))).toThrow(/^x509: malformed certificate$/);
  });
});

describe('namesIssuerKey', () => {
  it("tells a certificate that names its issuer's key from one that does not", () => {
    expect(namesIssuerKey(new X509Certificate(leaf('with-akid', 'plain', true)).raw)).toBe(true);
    expect(namesIssuerKey(new X509Certificate(leaf('no-akid', 'plain', false)).raw)).toBe(false);
  });

  it('and signatureKeyKind the kind of key that signed it', () => {
    expect(signatureKeyKind(new X509Certificate(leaf('by-ec', 'plain', true)).raw)).toBe('ec');
    expect(signatureKeyKind(new X509Certificate(leaf('by-rsa', 'rsa', true)).raw)).toBe('rsa');
    expect(signatureKeyKind(new X509Certificate(standInFor(plainCa)).raw)).toBe('ed25519');
  });
});

describe('createOpenSslClientCas', () => {
  const server = (): string => leaf('server', 'plain', true);

  it('gives stand-ins in the CA order, keeps them while the trust set stays, and makes new ones only for new CAs', () => {
    const warnings: string[] = [];
    const cas = createOpenSslClientCas(true, (message) => warnings.push(message));
    const first = cas.forCredentials({ cert: server(), ca: [plainCa, oddCa] });
    expect(first.map((pem) => new X509Certificate(pem).subject)).toEqual([plainCa, oddCa].map((pem) => new X509Certificate(pem).subject));
    expect(first).not.toContain(plainCa);
    expect(cas.forCredentials({ cert: server(), ca: [plainCa, oddCa] })).toEqual(first);
    const next = cas.forCredentials({ cert: server(), ca: [oddCa, rsaCa] });
    expect(next[0]).toBe(first[1]);
    expect(new X509Certificate(next[1]!).subject).toBe(new X509Certificate(rsaCa).subject);
    // a CA that left the trust set and came back gets a new stand-in
    expect(cas.forCredentials({ cert: server(), ca: [plainCa] })[0]).not.toBe(first[0]);
    expect(warnings).toEqual([]);
  });

  it('takes the stand-ins a reload made ahead (in slices of the event loop) instead of making them in one stretch', async () => {
    await makeStandInsAhead([plainCa, oddCa, rsaCa, 'not a certificate'], 2);
    const made = createOpenSslClientCas(true, () => {}).forCredentials({ cert: server(), ca: [rsaCa, plainCa, oddCa] });
    // the same on a second server: made once, ahead, not by either
    expect(createOpenSslClientCas(true, () => {}).forCredentials({ cert: server(), ca: [rsaCa, plainCa, oddCa] })).toEqual(made);
    expect(made).not.toContain(plainCa);
    expect(new X509Certificate(made[0]!).subject).toBe(new X509Certificate(rsaCa).subject);
  });

  it('passes a CA it cannot make a stand-in for through as it is, and says so once', () => {
    const warnings: string[] = [];
    const cas = createOpenSslClientCas(true, (message) => warnings.push(message));
    const broken = '-----BEGIN CERTIFICATE-----\nMAMCAQA=\n-----END CERTIFICATE-----\n';
    const given = cas.forCredentials({ cert: server(), ca: [plainCa, broken] });
    expect(given[1]).toBe(broken);
    expect(given[0]).not.toBe(plainCa);
    cas.forCredentials({ cert: server(), ca: [plainCa, broken] });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/client CA certificate #2: no stand-in could be made .*the real certificate/);
  });

  it('gives a CA as it is when OpenSSL could take its stand-in for the issuer of a lone server certificate, or when turned off', () => {
    const warnings: string[] = [];
    const cas = createOpenSslClientCas(true, (message) => warnings.push(message));
    // made while the server certificate named its issuer's key: both CAs get stand-ins
    const before = cas.forCredentials({ cert: server(), ca: [plainCa, rsaCa] });
    expect(before).not.toContain(plainCa);
    expect(before).not.toContain(rsaCa);
    // an ECDSA-signed server certificate without a key identifier: the RSA CA's stand-in (P-256) could have signed it
    const bare = leaf('bare-server', 'plain', false);
    const given = cas.forCredentials({ cert: bare, ca: [plainCa, rsaCa] });
    expect(given[0]).toBe(before[0]);
    expect(given[1]).toBe(rsaCa);
    cas.forCredentials({ cert: bare, ca: [plainCa, rsaCa] });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/client CA certificate #2: OpenSSL could take its stand-in for the issuer of the server certificate/);
    // with its chain in the file, OpenSSL sends that chain and never looks in the store
    expect(cas.forCredentials({ cert: bare + plainCa, ca: [rsaCa] })).not.toEqual([rsaCa]);
    expect(createOpenSslClientCas(false, () => {}).forCredentials({ cert: server(), ca: [plainCa, oddCa] })).toEqual([plainCa, oddCa]);
  });
});
