import { X509Certificate } from 'node:crypto';
import { useTestPki, type PemPair, type TestCa, type TestPki } from '@fabric-ops/test-kit';
import { beforeAll, describe, expect, it } from 'vitest';
import { createClientTrustPool, verifyClientChain, verifyClientChainUntil } from '../index.ts';

// Go's crypto/x509 verdicts (VerifyOptions{Roots: ClientCAs, Intermediates: what the client
// sent, KeyUsages: [clientAuth]}) for certificates OpenSSL builds for this run (test-kit), through
// the contract the server's worker uses. Moved from the previous verifier's tests.

const pkiOf = useTestPki();
let pki: TestPki;
const operator = { O: 'Org1', CN: 'operator' };
const shapes: Record<string, PemPair> = {};
const cas: Record<string, TestCa> = {};

beforeAll(async () => {
  pki = pkiOf();
  cas.serverOnly = await pki.ca.issueIntermediate('server-only-ca', { extendedKeyUsage: ['serverAuth'] });
  cas.pathZero = await pki.ca.issueIntermediate('path-zero-ca', { pathLength: 0 });
  cas.underPathZero = await cas.pathZero.issueIntermediate('under-path-zero-ca');
  cas.notCa = await pki.ca.issueIntermediate('not-a-ca', { ca: false });
  const [fromIntermediate, anyEku, noEku, keyEnciphermentOnly, fromServerOnly, tooDeep, fromNotCa, unknownCritical, unknownNonCritical] = await Promise.all([
    pki.intermediateCa.issue('v-from-intermediate', { subject: operator, extendedKeyUsage: ['clientAuth'] }),
    pki.ca.issue('v-any-eku', { subject: operator, extendedKeyUsage: ['anyExtendedKeyUsage'] }),
    pki.ca.issue('v-no-eku', { subject: operator, extendedKeyUsage: [] }),
    pki.ca.issue('v-key-encipherment-only', { subject: operator, extendedKeyUsage: ['clientAuth'], keyUsage: ['keyEncipherment'] }),
    cas.serverOnly.issue('v-from-server-only', { subject: operator, extendedKeyUsage: ['clientAuth'] }),
    cas.underPathZero.issue('v-too-deep', { subject: operator, extendedKeyUsage: ['clientAuth'] }),
    cas.notCa.issue('v-from-not-ca', { subject: operator, extendedKeyUsage: ['clientAuth'] }),
    pki.ca.issue('v-unknown-critical', { subject: operator, extendedKeyUsage: ['clientAuth'], extraExtensions: ['1.3.6.1.4.1.99999.1 = critical, ASN1:UTF8String:must-understand'] }),
    pki.ca.issue('v-unknown-non-critical', { subject: operator, extendedKeyUsage: ['clientAuth'], extraExtensions: ['1.3.6.1.4.1.99999.1 = ASN1:UTF8String:may-ignore'] }),
  ]);
  Object.assign(shapes, { fromIntermediate, anyEku, noEku, keyEnciphermentOnly, fromServerOnly, tooDeep, fromNotCa, unknownCritical, unknownNonCritical });
}, 60_000);

const der = (pem: string): Buffer => new X509Certificate(pem).raw;
const VERIFY = 'tls: failed to verify certificate: ';

interface Case {
  readonly name: string;
  readonly leaf: () => string;
  readonly offered?: () => readonly string[];
  readonly pool: () => readonly string[];
  /** undefined: accepted; otherwise the reason must match. */
  readonly refused?: RegExp;
}

const UNKNOWN = /^x509: certificate signed by unknown authority/;
const USAGE = /^x509: certificate specifies an incompatible key usage$/;

const CASES: readonly Case[] = [
  { name: 'a leaf from a root in the pool', leaf: () => pki.clients.good.cert, pool: () => [pki.ca.cert] },
  { name: 'an intermediate listed alone is an anchor (no root, no chain sent)', leaf: () => shapes.fromIntermediate!.cert, pool: () => [pki.intermediateCa.cert] },
  { name: 'a chain sent up to a root in the pool', leaf: () => shapes.fromIntermediate!.cert, offered: () => [pki.intermediateCa.cert], pool: () => [pki.ca.cert] },
  { name: 'no way from the leaf to the pool', leaf: () => shapes.fromIntermediate!.cert, pool: () => [pki.ca.cert], refused: UNKNOWN },
  { name: 'a leaf from a CA outside the pool', leaf: () => pki.clients.rogueCa.cert, pool: () => [pki.ca.cert], refused: UNKNOWN },
  { name: 'an empty pool', leaf: () => pki.clients.good.cert, pool: () => [], refused: UNKNOWN },
  { name: 'the leaf itself in the pool', leaf: () => pki.clients.good.cert, pool: () => [pki.clients.good.cert] },
  { name: 'anyExtendedKeyUsage as the only EKU', leaf: () => shapes.anyEku!.cert, pool: () => [pki.ca.cert] },
  { name: 'no EKU extension at all', leaf: () => shapes.noEku!.cert, pool: () => [pki.ca.cert] },
  { name: 'KeyUsage without digitalSignature (ignored, as Go does)', leaf: () => shapes.keyEnciphermentOnly!.cert, pool: () => [pki.ca.cert] },
  { name: 'serverAuth as the only EKU', leaf: () => pki.clients.serverAuthOnly.cert, pool: () => [pki.ca.cert], refused: USAGE },
  { name: 'an intermediate restricted to serverAuth, sent by the client', leaf: () => shapes.fromServerOnly!.cert, offered: () => [cas.serverOnly!.cert], pool: () => [pki.ca.cert], refused: USAGE },
  { name: 'an anchor restricted to serverAuth', leaf: () => shapes.fromServerOnly!.cert, pool: () => [cas.serverOnly!.cert], refused: USAGE },
  { name: 'expired', leaf: () => pki.clients.expired.cert, pool: () => [pki.ca.cert], refused: /^x509: certificate has expired or is not yet valid: current time \S+Z is after \S+Z$/ },
  { name: 'not yet valid', leaf: () => pki.clients.notYetValid.cert, pool: () => [pki.ca.cert], refused: /^x509: certificate has expired or is not yet valid: current time \S+Z is before \S+Z$/ },
  {
    name: "more intermediates than an intermediate's path length allows",
    leaf: () => shapes.tooDeep!.cert,
    offered: () => [cas.underPathZero!.cert, cas.pathZero!.cert],
    pool: () => [pki.ca.cert],
    refused: /^x509: too many intermediates for path length constraint$/,
  },
  { name: "an anchor's path length counts too", leaf: () => shapes.tooDeep!.cert, offered: () => [cas.underPathZero!.cert], pool: () => [cas.pathZero!.cert], refused: /too many intermediates/ },
  { name: 'a path within the length', leaf: () => shapes.tooDeep!.cert, pool: () => [cas.underPathZero!.cert] },
  {
    name: 'an issuer that is not a CA, sent by the client',
    leaf: () => shapes.fromNotCa!.cert,
    offered: () => [cas.notCa!.cert],
    pool: () => [pki.ca.cert],
    refused: /unknown authority.*cannot sign/,
  },
  { name: 'an issuer that is not a CA, in the pool', leaf: () => shapes.fromNotCa!.cert, pool: () => [cas.notCa!.cert], refused: UNKNOWN },
  { name: 'an unknown critical extension', leaf: () => shapes.unknownCritical!.cert, pool: () => [pki.ca.cert], refused: /^x509: unhandled critical extension$/ },
  { name: 'an unknown non-critical extension', leaf: () => shapes.unknownNonCritical!.cert, pool: () => [pki.ca.cert] },
  { name: 'certificates offered that are not the issuer', leaf: () => pki.clients.good.cert, offered: () => [pki.rogueCa.cert, pki.clients.rogueCa.cert], pool: () => [pki.ca.cert] },
];

describe('verifyClientChain on OpenSSL-made certificates (Go crypto/x509 rules)', () => {
  for (const testCase of CASES) {
    it(`${testCase.refused === undefined ? 'accepts' : 'refuses'} ${testCase.name}`, () => {
      const verdict = verifyClientChain([der(testCase.leaf()), ...(testCase.offered?.() ?? []).map(der)], createClientTrustPool(testCase.pool()));
      if (testCase.refused === undefined) {
        expect(verdict).toEqual({ accept: true });
      } else {
        expect(verdict.accept).toBe(false);
        const reason = verdict.accept ? '' : verdict.reason;
        expect(reason.startsWith(VERIFY)).toBe(true);
        expect(reason.slice(VERIFY.length)).toMatch(testCase.refused);
      }
    });
  }

  it('judges dates against the clock it is given', () => {
    const pool = createClientTrustPool([pki.ca.cert]);
    expect(verifyClientChain([der(pki.clients.notYetValid.cert)], pool, new Date(Date.now() + 48 * 3_600_000))).toEqual({ accept: true });
    // The anchor's own dates count too: the root was issued an hour ago.
    expect(verifyClientChain([der(pki.clients.expired.cert)], pool, new Date(Date.now() - 48 * 3_600_000))).toMatchObject({ accept: false });
  });

  it('says when a verdict may change: the next validity boundary of a certificate sent or held', () => {
    const pool = createClientTrustPool([pki.ca.cert]);
    // Node's own parser gives the expected instants (whole seconds, as the DER holds them).
    const validity = (pem: string): { from: number; to: number } => {
      const parsed = new X509Certificate(pem);
      return { from: Date.parse(parsed.validFrom), to: Date.parse(parsed.validTo) };
    };
    /** The first boundary after `at` among these certificates and the pool's CA. */
    const nextOf = (pems: readonly string[], at: number): number | undefined => {
      const ahead = [...pems, pki.ca.cert].flatMap((pem) => [validity(pem).from, validity(pem).to + 1]).filter((b) => b > at);
      return ahead.length === 0 ? undefined : Math.min(...ahead);
    };
    const notYet = validity(pki.clients.notYetValid.cert);
    const before = new Date(notYet.from - 1);
    const waiting = verifyClientChainUntil([der(pki.clients.notYetValid.cert)], pool, before);
    expect(waiting.verdict).toEqual(verifyClientChain([der(pki.clients.notYetValid.cert)], pool, before));
    expect(waiting.verdict.accept).toBe(false);
    expect(waiting.changesAt).toBe(notYet.from);
    // From its notBefore it is valid, until the millisecond after its notAfter (Go: now.After(NotAfter)).
    const during = verifyClientChainUntil([der(pki.clients.notYetValid.cert)], pool, new Date(notYet.from));
    expect(during).toEqual({ verdict: { accept: true }, changesAt: nextOf([pki.clients.notYetValid.cert], notYet.from) });
    expect(verifyClientChain([der(pki.clients.notYetValid.cert)], pool, new Date(notYet.to))).toEqual({ accept: true });
    expect(verifyClientChain([der(pki.clients.notYetValid.cert)], pool, new Date(notYet.to + 1))).toMatchObject({ accept: false });
    // Every certificate sent counts, an intermediate too, and every certificate of the pool.
    const leaf = shapes.fromIntermediate!;
    const sent = [leaf.cert, pki.intermediateCa.cert];
    const now = Date.now();
    expect(verifyClientChainUntil(sent.map(der), pool, new Date(now)).changesAt).toBe(nextOf(sent, now));
    const last = Math.max(...[...sent, pki.ca.cert].map((pem) => validity(pem).to + 1));
    expect(verifyClientChainUntil(sent.map(der), pool, new Date(last)).changesAt).toBeUndefined();
    // Past the leaf's last boundary, the pool's CA still has one ahead.
    expect(verifyClientChainUntil([der(pki.clients.notYetValid.cert)], pool, new Date(validity(pki.clients.notYetValid.cert).to + 1)).changesAt).toBe(
      nextOf([pki.clients.notYetValid.cert], validity(pki.clients.notYetValid.cert).to + 1),
    );
    // A list with a certificate Go cannot parse is refused whatever the time: what was parsed still counts.
    const broken = verifyClientChainUntil([der(leaf.cert), Buffer.from([0x30, 0x03, 0x02, 0x01, 0x01])], pool, new Date(now));
    expect(broken.verdict).toMatchObject({ accept: false, reason: expect.stringContaining('tls: failed to parse client certificate') });
    expect(broken.changesAt).toBe(nextOf([leaf.cert], now));
  });
});
