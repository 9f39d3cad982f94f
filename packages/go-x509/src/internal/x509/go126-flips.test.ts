import { describe, expect, it } from 'vitest';
import { caCert, certificate, cn, ext, extension, int, key, makeIntermediate, makeRoot, NOW, OID, oid, seq, tlv, toPem, type IssuingCa } from '../../../test/x509-fixtures.ts';
import { createClientTrustPool, verifyClientChain } from './client-chain.ts';

// The verdicts Go 1.26 gives differently from Go 1.19, one chain each, confirmed with
// Go 1.26.8 (tools/x509-oracle has the same items in every position). Each fails on the Go 1.19 port.

const VERIFY = 'tls: failed to verify certificate: ';
const NAME = `${VERIFY}x509: a root or intermediate certificate is not authorized to sign for this name: `;
const POLICIES = `${VERIFY}x509: no valid chains built: 1 candidate chains with invalid policies`;

function leaf(parent: IssuingCa, extensions: Uint8Array[] = [], spki?: Uint8Array): Uint8Array {
  return certificate({
    subject: cn('flip-leaf'),
    key: key('flip-leaf'),
    issuer: parent.subject,
    issuerKey: parent.key,
    extensions: [ext.eku(OID.clientAuth), ...extensions],
    ...(spki === undefined ? {} : { spki }),
  });
}

function verdict(chain: Uint8Array[], ...roots: IssuingCa[]): string {
  const v = verifyClientChain(chain, createClientTrustPool(roots.map((r) => toPem(r.der))), NOW);
  return v.accept ? 'accept' : v.reason;
}

/** An RSA SubjectPublicKeyInfo nobody holds the private key of. */
function rsaSpki(bitLength: number, exponent: number): Uint8Array {
  const n = new Uint8Array(bitLength / 8 + 1);
  n.fill(0x5b, 1);
  n[1] = 0x80;
  n[n.length - 1] = 0x01;
  return seq(seq(oid('1.2.840.113549.1.1.1'), Uint8Array.from([0x05, 0x00])), tlv(0x03, [0, ...seq(tlv(0x02, n), int(exponent))]));
}

const policies = (...oids: string[]): Uint8Array => extension('2.5.29.32', false, seq(...oids.map((o) => seq(oid(o)))));
const requireExplicit = (critical: boolean): Uint8Array => extension('2.5.29.36', critical, seq(tlv(0x80, [0])));
const mapping = (critical: boolean, from: string, to: string): Uint8Array => extension('2.5.29.33', critical, seq(seq(oid(from), oid(to))));
const POLICY_A = '1.3.6.1.4.1.55555.7.1';
const POLICY_B = '1.3.6.1.4.1.55555.7.2';

describe('Go 1.26 flips', () => {
  const plain = makeRoot('flip-root');

  it('refuses any sent certificate with an RSA key over 8,192 bits, an unrelated extra included (tlsmaxrsasize)', () => {
    const extra = certificate({ subject: cn('flip-extra'), key: key('flip-extra'), issuer: plain.subject, issuerKey: plain.key, spki: rsaSpki(8200, 65537) });
    expect(verdict([leaf(plain), extra], plain)).toBe('tls: client sent certificate containing RSA key larger than 8192 bits');
    // The leaf's own key is not checked by Verify: 8,192 bits is within the limit.
    expect(verdict([leaf(plain, [], rsaSpki(8192, 65537))], plain)).toBe('accept');
  });

  it('verifies nothing with an issuer key crypto/rsa refuses: an even exponent', () => {
    const weak = {
      ...makeIntermediate('flip-weak', plain),
      key: key('flip-weak', 'rsa'),
      der: certificate({ subject: cn('flip-weak'), key: key('flip-weak', 'rsa'), issuer: plain.subject, issuerKey: plain.key, extensions: [ext.basicConstraints(true)], spki: rsaSpki(2048, 65536) }),
    };
    expect(verdict([leaf(weak), weak.der], plain)).toMatch(/unknown authority \(possibly because of "crypto\/rsa: public exponent is even"/);
  });

  it("refuses a CA whose own SAN is outside an ancestor's name constraints, and admits a constraining CA's own SAN outside its own", () => {
    const constrained = makeRoot('flip-nc', [ext.nameConstraints([ext.dns('example.com')], [])]);
    const outside = makeIntermediate('flip-nc-int', constrained, [ext.san(false, ext.dns('ca.other.net'))]);
    expect(verdict([leaf(outside, [ext.san(false, ext.dns('a.example.com'))]), outside.der], constrained)).toBe(`${NAME}DNS name "ca.other.net" is not permitted by any constraint`);
    const selfConstrained = makeIntermediate('flip-nc-self', plain, [ext.nameConstraints([ext.dns('example.com')], []), ext.san(false, ext.dns('ca.other.net'))]);
    expect(verdict([leaf(selfConstrained, [ext.san(false, ext.dns('a.example.com'))]), selfConstrained.der], plain)).toBe('accept');
  });

  it('excludes a wildcard SAN that could cover an excluded name, whatever the case', () => {
    const excluding = makeRoot('flip-nc-ex', [ext.nameConstraints([], [ext.dns('BAD.example.com')])]);
    expect(verdict([leaf(excluding, [ext.san(false, ext.dns('*.Example.COM'))])], excluding)).toBe(`${NAME}DNS name "*.Example.COM" is excluded by constraint "bad.example.com"`);
    expect(verdict([leaf(excluding, [ext.san(false, ext.dns('*.other.example.com'))])], excluding)).toBe('accept');
  });

  it('treats a URI host with an IPv6 zone as an IP under URI constraints', () => {
    const excluding = makeRoot('flip-nc-uri', [ext.nameConstraints([], [ext.uri('example.com')])]);
    const uri = 'https://[fe80::1%25eth0]:8443/';
    expect(verdict([leaf(excluding, [ext.san(false, ext.uri(uri))])], excluding)).toBe(`${NAME}URI with IP ("${uri}") cannot be matched against constraints`);
  });

  it("checks many constraints against many names without Go 1.19's 250,000-comparison limit", () => {
    const many = Array.from({ length: 1000 }, (_, i) => ext.dns(`n${i}.example.org`));
    const constrained = makeRoot('flip-nc-many', [ext.nameConstraints([...many, ext.dns('example.com')], [])]);
    const names = Array.from({ length: 300 }, (_, i) => ext.dns(`h${i}.example.com`));
    expect(verdict([leaf(constrained, [ext.san(false, ...names)])], constrained)).toBe('accept');
  });

  it('admits certificatePolicies OIDs with an arc of 2^31 or more', () => {
    expect(verdict([leaf(plain, [policies('1.3.6.1.4.1.55555.2147483648')])], plain)).toBe('accept');
  });

  it('validates the policy graph: requireExplicitPolicy, critical or not, refuses a chain without policies', () => {
    const requiring = makeIntermediate('flip-pol-req', plain, [requireExplicit(false)]);
    expect(verdict([leaf(requiring), requiring.der], plain)).toBe(POLICIES);
    const met = makeIntermediate('flip-pol-met', plain, [requireExplicit(true), policies('2.5.29.32.0')]);
    expect(verdict([leaf(met, [policies(POLICY_A)]), met.der], plain)).toBe('accept');
  });

  it('admits a critical policyMappings in a valid graph and refuses a mapping to anyPolicy', () => {
    const mapped = makeIntermediate('flip-pol-map', plain, [policies(POLICY_A), mapping(true, POLICY_A, POLICY_B), requireExplicit(false)]);
    expect(verdict([leaf(mapped, [policies(POLICY_B)]), mapped.der], plain)).toBe('accept');
    const toAny = makeIntermediate('flip-pol-any', plain, [policies(POLICY_A), mapping(false, POLICY_A, '2.5.29.32.0')]);
    expect(verdict([leaf(toAny, [policies(POLICY_A)]), toAny.der], plain)).toBe(POLICIES);
  });

  it('drops a CA-file certificate with a negative serial from the pool', () => {
    const k = key('flip-negative-root');
    const negative: IssuingCa = { subject: cn('flip-negative-root'), key: k, der: caCert(cn('flip-negative-root'), k, { serial: -3n }) };
    const pool = createClientTrustPool([toPem(negative.der)]);
    expect(pool.size).toBe(0);
    expect(pool.skipped).toEqual([{ file: 0, reason: 'x509: negative serial number' }]);
    expect(verdict([leaf(negative)], negative)).toBe(`${VERIFY}x509: certificate signed by unknown authority`);
  });
});
