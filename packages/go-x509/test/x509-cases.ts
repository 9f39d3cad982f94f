import {
  bits,
  caCert,
  certificate,
  cn,
  concat,
  explicit,
  ext,
  extension,
  implicit,
  int,
  key,
  name,
  nul,
  NOW,
  OID,
  oid,
  printable,
  pssAlgorithm,
  seq,
  str,
  time,
  tlv,
  toPem,
  utf8,
  type TestKey,
} from './x509-fixtures.ts';

// Chains whose verdicts under Go 1.26's crypto/tls + crypto/x509 were read from Go's source and
// confirmed by running Go 1.26.8 itself on these very chains. `expect` is Go's verdict: 'accept' or the
// exact text crypto/tls reports.

export interface ChainCase {
  readonly name: string;
  readonly pool: readonly string[];
  readonly chain: readonly Uint8Array[];
  readonly expect: string;
}

const DAY = 86400_000;
const PARSE = 'tls: failed to parse client certificate: ';
const VERIFY = 'tls: failed to verify certificate: ';
/** Go's refusal of a name a CA's constraints do not allow; the name and the reason follow. */
const NOT_AUTHORIZED = `${VERIFY}x509: a root or intermediate certificate is not authorized to sign for this name: `;
const UNKNOWN = `${VERIFY}x509: certificate signed by unknown authority`;

interface Ca {
  readonly subject: Uint8Array;
  readonly key: TestKey;
  readonly der: Uint8Array;
}

function rootCa(label: string, options: { pathLen?: number; kind?: 'ec' | 'rsa' | 'ed25519' } = {}): Ca {
  const k = key(label, options.kind ?? 'ec');
  const subject = cn(label);
  return { subject, key: k, der: caCert(subject, k, options.pathLen === undefined ? {} : { pathLen: options.pathLen }) };
}

function subCa(label: string, parent: Ca, extra: Partial<Parameters<typeof certificate>[0]> = {}, kind: 'ec' | 'rsa' | 'ed25519' = 'ec'): Ca {
  const k = key(label, kind);
  const subject = cn(label);
  return {
    subject,
    key: k,
    der: certificate({
      subject,
      key: k,
      issuer: parent.subject,
      issuerKey: parent.key,
      extensions: [ext.basicConstraints(true), ext.caKeyUsage(), ext.skid(k.keyId)],
      ...extra,
    }),
  };
}

function leafOf(parent: Ca, extra: Partial<Parameters<typeof certificate>[0]> = {}, label = 'leaf'): Uint8Array {
  return certificate({
    subject: cn(label),
    key: key(label),
    issuer: parent.subject,
    issuerKey: parent.key,
    extensions: [ext.basicConstraints(false), ext.eku(OID.clientAuth)],
    ...extra,
  });
}

export function buildCases(): ChainCase[] {
  const root = rootCa('root');
  const inter = subCa('int', root);
  const leaf = leafOf(inter);
  const pool = [toPem(root.der)];
  const cases: ChainCase[] = [];
  const add = (name: string, chain: Uint8Array[], expect: string, p: readonly string[] = pool): void => {
    cases.push({ name, pool: p, chain, expect });
  };

  // Path building.
  add('leaf and intermediate', [leaf, inter.der], 'accept');
  add('leaf alone', [leaf], `${UNKNOWN}`);
  const stranger = rootCa('stranger');
  add('out of order with duplicates and an extra', [leaf, stranger.der, inter.der, inter.der, root.der], 'accept');
  add('the leaf itself in the pool', [leaf], 'accept', [toPem(leaf)]);
  const expiredTwin = subCa('int', root, { notAfter: new Date(NOW.getTime() - DAY), serial: 7n });
  add('an expired twin sent before the good copy', [leaf, expiredTwin.der, inter.der], 'accept');
  add('only the expired twin', [leaf, expiredTwin.der], `${VERIFY}x509: certificate has expired or is not yet valid: current time 2026-01-15T12:00:00Z is after 2026-01-14T12:00:00Z`);
  const crossRoot = rootCa('cross');
  const untrustedTwin = certificate({
    subject: inter.subject,
    key: inter.key,
    issuer: crossRoot.subject,
    issuerKey: crossRoot.key,
    extensions: [ext.basicConstraints(true), ext.caKeyUsage(), ext.skid(inter.key.keyId)],
  });
  add('a cross-signed twin under an untrusted root first', [leaf, untrustedTwin, crossRoot.der, inter.der], 'accept');

  const decoys = (n: number): Uint8Array[] =>
    Array.from({ length: n }, (_, i) => caCert(inter.subject, key(`decoy${i % 8}`), { serial: BigInt(i + 100), issuer: root.subject, issuerKey: key(`decoy${i % 8}`) }));
  add('30 same-name decoys before the real intermediate', [leaf, ...decoys(30), inter.der], 'accept');
  add('120 same-name decoys exhaust the signature budget', [leaf, ...decoys(120), inter.der], `${VERIFY}x509: signature check attempts limit reached while verifying certificate chain`);

  let top: Ca = root;
  const ladder: Ca[] = [];
  for (let i = 0; i < 12; i++) {
    top = subCa(`step${i}`, top);
    ladder.push(top);
  }
  add('12 intermediates, sent top-down', [leafOf(top), ...ladder.map((c) => c.der)], 'accept');

  add('an AuthorityKeyId that matches nothing', [leafOf(inter, { extensions: [ext.eku(OID.clientAuth), ext.akid(Uint8Array.from([1, 2, 3]))] }), inter.der], 'accept');
  const emptyKu = subCa('int', root, { extensions: [ext.basicConstraints(true), ext.keyUsage(bits(new Uint8Array(0)))], serial: 9n });
  add('an intermediate whose KeyUsage has no bits', [leaf, emptyKu.der], 'accept');
  const sigOnly = subCa('int', root, { extensions: [ext.basicConstraints(true), ext.keyUsage(bits(Uint8Array.from([0x80]), 7))], serial: 10n });
  add(
    'an intermediate without keyCertSign',
    [leaf, sigOnly.der],
    `${UNKNOWN} (possibly because of "x509: invalid signature: parent certificate cannot sign this kind of certificate" while trying to verify candidate authority certificate "int")`,
  );
  const v1Inter = subCa('int', root, { version: 1, serial: 11n });
  add('a v1 intermediate carrying CA:true', [leaf, v1Inter.der], `${VERIFY}x509: certificate is not authorized to sign other certificates`);
  const v1Root = certificate({ subject: cn('v1root'), key: key('v1root'), version: 1 });
  add('a v1 root', [leafOf({ subject: cn('v1root'), key: key('v1root'), der: v1Root })], 'accept', [toPem(v1Root)]);
  const bareRoot = certificate({ subject: cn('bare'), key: key('bare'), extensions: [ext.skid(key('bare').keyId)] });
  add(
    'a v3 root without basicConstraints',
    [leafOf({ subject: cn('bare'), key: key('bare'), der: bareRoot })],
    `${UNKNOWN} (possibly because of "x509: invalid signature: parent certificate cannot sign this kind of certificate" while trying to verify candidate authority certificate "bare")`,
    [toPem(bareRoot)],
  );
  const notCa = subCa('int', root, { extensions: [ext.basicConstraints(false), ext.caKeyUsage()], serial: 12n });
  add(
    'an intermediate with CA:false',
    [leaf, notCa.der],
    `${UNKNOWN} (possibly because of "x509: invalid signature: parent certificate cannot sign this kind of certificate" while trying to verify candidate authority certificate "int")`,
  );

  const pl0 = rootCa('pl0', { pathLen: 0 });
  const selfIssued = certificate({
    subject: pl0.subject,
    key: key('pl0-rollover'),
    issuer: pl0.subject,
    issuerKey: pl0.key,
    extensions: [ext.basicConstraints(true), ext.caKeyUsage(), ext.skid(key('pl0-rollover').keyId)],
  });
  add(
    'a self-issued intermediate under pathLen 0',
    [leafOf({ subject: pl0.subject, key: key('pl0-rollover'), der: selfIssued }), selfIssued],
    `${VERIFY}x509: too many intermediates for path length constraint`,
    [toPem(pl0.der)],
  );
  add('a leaf directly under pathLen 0', [leafOf(pl0)], 'accept', [toPem(pl0.der)]);

  // Names compared as bytes.
  const printableIssuer = leafOf({ subject: name(['2.5.4.3', printable('int')]), key: inter.key, der: inter.der });
  add('issuer equal to the CA subject only after normalisation', [printableIssuer, inter.der], UNKNOWN);

  // Validity.
  add(
    'an expired leaf',
    [leafOf(inter, { notAfter: new Date(NOW.getTime() - DAY) }), inter.der],
    `${VERIFY}x509: certificate has expired or is not yet valid: current time 2026-01-15T12:00:00Z is after 2026-01-14T12:00:00Z`,
  );
  add(
    'a leaf not yet valid',
    [leafOf(inter, { notBefore: new Date(NOW.getTime() + DAY) }), inter.der],
    `${VERIFY}x509: certificate has expired or is not yet valid: current time 2026-01-15T12:00:00Z is before 2026-01-16T12:00:00Z`,
  );
  add('UTCTime without seconds', [leafOf(inter, { notBefore: str(0x17, '2601010000Z') }), inter.der], 'accept');
  add('UTCTime with an offset', [leafOf(inter, { notBefore: str(0x17, '260101000000+0130') }), inter.der], 'accept');
  add('UTCTime with fractional seconds', [leafOf(inter, { notBefore: str(0x17, '260101000000.5Z') }), inter.der], `${PARSE}x509: malformed UTCTime`);
  add('GeneralizedTime with +0000', [leafOf(inter, { notAfter: str(0x18, '20300101000000+0000') }), inter.der], `${PARSE}x509: malformed GeneralizedTime`);
  add('GeneralizedTime on 29 February of a common year', [leafOf(inter, { notAfter: str(0x18, '20290229000000Z') }), inter.der], `${PARSE}x509: malformed GeneralizedTime`);
  add('GeneralizedTime far ahead', [leafOf(inter, { notAfter: time(new Date(Date.UTC(9999, 11, 31)), 'generalized') }), inter.der], 'accept');

  // Strings.
  const withName = (subject: Uint8Array): Uint8Array => leafOf(inter, { subject });
  add('PrintableString with *', [withName(name(['2.5.4.3', printable('*.a')])), inter.der], 'accept');
  add('PrintableString with &', [withName(name(['2.5.4.10', printable('A&B')])), inter.der], 'accept');
  add('PrintableString with @', [withName(name(['2.5.4.3', printable('a@b')])), inter.der], `${PARSE}x509: invalid RDNSequence: invalid attribute value: invalid PrintableString`);
  add('PrintableString with _', [withName(name(['2.5.4.3', printable('a_b')])), inter.der], `${PARSE}x509: invalid RDNSequence: invalid attribute value: invalid PrintableString`);
  add(
    'IA5String with an 8-bit byte',
    [withName(name(['1.2.840.113549.1.9.1', str(0x16, Uint8Array.from([0x61, 0xe9]))])), inter.der],
    `${PARSE}x509: invalid RDNSequence: invalid attribute value: invalid IA5String`,
  );
  add(
    'UTF8String that is not UTF-8',
    [withName(name(['2.5.4.3', str(0x0c, Uint8Array.from([0xc3, 0x28]))])), inter.der],
    `${PARSE}x509: invalid RDNSequence: invalid attribute value: invalid UTF-8 string`,
  );
  add(
    'BMPString with a lone surrogate',
    [withName(name(['2.5.4.3', str(0x1e, Uint8Array.from([0, 0x61, 0xd8, 0x00]))])), inter.der],
    `${PARSE}x509: invalid RDNSequence: invalid attribute value: invalid BMPString`,
  );
  add('BMPString of odd length', [withName(name(['2.5.4.3', str(0x1e, Uint8Array.from([0, 0x61, 0]))])), inter.der], `${PARSE}x509: invalid RDNSequence: invalid attribute value: invalid BMPString`);
  add('T61String with 8-bit bytes', [withName(name(['2.5.4.3', str(0x14, Uint8Array.from([0xff, 0x01]))])), inter.der], 'accept');
  add('NumericString with a letter', [withName(name(['2.5.4.5', str(0x12, '12a')])), inter.der], `${PARSE}x509: invalid RDNSequence: invalid attribute value: invalid NumericString`);
  add(
    'UniversalString',
    [withName(name(['2.5.4.3', str(0x1c, Uint8Array.from([0, 0, 0, 0x61]))])), inter.der],
    `${PARSE}x509: invalid RDNSequence: invalid attribute value: unsupported string type: 28`,
  );
  add('an unparseable extra certificate', [leaf, inter.der, Uint8Array.from([0x30, 0x03, 0x02, 0x01, 0x01])], `${PARSE}x509: malformed tbs certificate`);

  // DER strictness.
  const leafDer = leaf;
  add('trailing data after the certificate', [concat(leafDer, Uint8Array.from([0])), inter.der], `${PARSE}x509: trailing data`);
  const longForm = concat(Uint8Array.from([0x30, 0x82, 0x00, leafDer[1]!]), leafDer.subarray(2));
  add('a non-minimal outer length', [leafDer[1]! < 0x80 ? longForm : concat(Uint8Array.from([0x30, 0x83, 0x00]), leafDer.subarray(2)), inter.der], `${PARSE}x509: malformed certificate`);
  add(
    'inner and outer algorithms differ',
    [leafOf(inter, { outerAlgorithm: seq(oid('1.2.840.10045.4.3.3')) }), inter.der],
    `${PARSE}x509: inner and outer signature algorithm identifiers don't match`,
  );
  add('a negative serial', [leafOf(inter, { serial: -5n }), inter.der], `${PARSE}x509: negative serial number`);
  add('version 4', [leafOf(inter, { version: 4 }), inter.der], `${PARSE}x509: invalid version`);
  add(
    'a duplicated extension',
    [leafOf(inter, { extensions: [ext.eku(OID.clientAuth), ext.eku(OID.clientAuth)] }), inter.der],
    `${PARSE}x509: certificate contains duplicate extension with OID "2.5.29.37"`,
  );
  add('basicConstraints with a bad BOOLEAN', [leafOf(inter, { extensions: [extension('2.5.29.19', true, seq(tlv(0x01, [0x01])))] }), inter.der], `${PARSE}x509: invalid basic constraints`);
  add(
    'critical BOOLEAN encoded as 0x01',
    [leafOf(inter, { extensions: [seq(oid('2.5.29.37'), tlv(0x01, [0x01]), tlv(0x04, seq(oid(OID.clientAuth))))] }), inter.der],
    `${PARSE}x509: malformed extension critical field`,
  );
  add('v1 leaf with extensions present', [leafOf(inter, { version: 1, extensions: [ext.eku(OID.serverAuth)] }), inter.der], 'accept');

  // Subject alternative names.
  const sanLeaf = (critical: boolean, ...names: Uint8Array[]): Uint8Array => leafOf(inter, { extensions: [ext.eku(OID.clientAuth), ext.san(critical, ...names)] });
  add('a 5-byte IP SAN', [sanLeaf(false, ext.ip(1, 2, 3, 4, 5)), inter.der], `${PARSE}x509: cannot parse IP address of length 5`);
  add('an 8-bit DNS SAN', [sanLeaf(false, implicit(2, Uint8Array.from([0x61, 0xe9]))), inter.der], `${PARSE}x509: SAN dNSName is malformed`);
  add('an unparseable URI SAN', [sanLeaf(false, ext.uri('http://a b/')), inter.der], `${PARSE}x509: cannot parse URI "http://a b/": parse "http://a b/": invalid character " " in host name`);
  add('a URI SAN with a bad escape', [sanLeaf(false, ext.uri('http://x/%zz')), inter.der], `${PARSE}x509: cannot parse URI "http://x/%zz": parse "http://x/%zz": invalid URL escape "%zz"`);
  add('a critical SAN with only an otherName', [sanLeaf(true, tlv(0xa0, concat(oid('1.2.3.4'), explicit(0, utf8('x'))))), inter.der], `${VERIFY}x509: unhandled critical extension`);
  add('a critical SAN with a DNS name', [sanLeaf(true, ext.dns('client.example')), inter.der], 'accept');
  add('a critical SAN with only a directoryName', [sanLeaf(true, explicit(4, cn('x'))), inter.der], `${VERIFY}x509: unhandled critical extension`);

  // Critical extensions.
  add(
    'a critical unknown extension on the leaf',
    [leafOf(inter, { extensions: [ext.eku(OID.clientAuth), extension('1.2.3.4', true, nul())] }), inter.der],
    `${VERIFY}x509: unhandled critical extension`,
  );
  add('a non-critical unknown extension', [leafOf(inter, { extensions: [ext.eku(OID.clientAuth), extension('1.2.3.4', false, nul())] }), inter.der], 'accept');
  const policyConstrained = subCa('int', root, { extensions: [ext.basicConstraints(true), ext.caKeyUsage(), extension('2.5.29.36', true, seq(implicit(0, [0])))], serial: 13n });
  add('a critical policyConstraints on the intermediate', [leaf, policyConstrained.der], `${VERIFY}x509: no valid chains built: 1 candidate chains with invalid policies`);

  // Extended key usage.
  add('a leaf without EKU', [leafOf(inter, { extensions: [] }), inter.der], 'accept');
  add('a serverAuth-only leaf', [leafOf(inter, { extensions: [ext.eku(OID.serverAuth)] }), inter.der], `${VERIFY}x509: certificate specifies an incompatible key usage`);
  add('an anyExtendedKeyUsage leaf', [leafOf(inter, { extensions: [ext.eku(OID.anyEku)] }), inter.der], 'accept');
  add('a leaf with only an unknown EKU', [leafOf(inter, { extensions: [ext.eku('1.2.3.4')] }), inter.der], `${VERIFY}x509: certificate specifies an incompatible key usage`);
  const serverInter = subCa('int', root, { extensions: [ext.basicConstraints(true), ext.caKeyUsage(), ext.eku(OID.serverAuth)], serial: 14n });
  add('a serverAuth-only intermediate', [leaf, serverInter.der], `${VERIFY}x509: certificate specifies an incompatible key usage`);
  const pooled = leafOf(inter, { extensions: [ext.eku(OID.serverAuth)] }, 'pooled');
  add('the leaf in the pool with serverAuth only', [pooled], `${VERIFY}x509: certificate specifies an incompatible key usage`, [toPem(pooled)]);

  // Signature and key algorithms.
  const sha1Leaf = leafOf(inter, { algorithm: seq(oid(OID.ecdsaSha1)) });
  add(
    'an ECDSA-SHA1 signature',
    [sha1Leaf, inter.der],
    `${UNKNOWN} (possibly because of "x509: cannot verify signature: insecure algorithm ECDSA-SHA1" while trying to verify candidate authority certificate "int")`,
  );
  const rsaRoot = rootCa('rsaroot', { kind: 'rsa' });
  const rsaPool = [toPem(rsaRoot.der)];
  add('RSA PKCS#1 v1.5 SHA-256', [leafOf(rsaRoot)], 'accept', rsaPool);
  add(
    'RSA MD5',
    [leafOf(rsaRoot, { algorithm: seq(oid(OID.rsaMd5), nul()) })],
    `${UNKNOWN} (possibly because of "x509: cannot verify signature: insecure algorithm MD5-RSA" while trying to verify candidate authority certificate "rsaroot")`,
    rsaPool,
  );
  add('RSA-PSS with a 32-byte salt', [leafOf(rsaRoot, { algorithm: pssAlgorithm(32) })], 'accept', rsaPool);
  add(
    'RSA-PSS with a 20-byte salt',
    [leafOf(rsaRoot, { algorithm: pssAlgorithm(20) })],
    `${UNKNOWN} (possibly because of "x509: cannot verify signature: algorithm unimplemented" while trying to verify candidate authority certificate "rsaroot")`,
    rsaPool,
  );
  add(
    'an RSA signature from an EC key',
    [leafOf(inter, { algorithm: seq(oid(OID.rsaSha256), nul()) }), inter.der],
    `${UNKNOWN} (possibly because of "x509: signature algorithm specifies an RSA public key, but have public key of type *ecdsa.PublicKey" while trying to verify candidate authority certificate "int")`,
  );
  const edRoot = rootCa('edroot', { kind: 'ed25519' });
  add('Ed25519', [leafOf(edRoot)], 'accept', [toPem(edRoot.der)]);
  add(
    'Ed25519 with NULL parameters',
    [leafOf(edRoot, { algorithm: seq(oid(OID.ed25519), nul()) })],
    `${UNKNOWN} (possibly because of "x509: cannot verify signature: algorithm unimplemented" while trying to verify candidate authority certificate "edroot")`,
    [toPem(edRoot.der)],
  );
  const dsaInter = subCa('int', root, { key: key('dsa', 'dsa'), serial: 15n }, 'ec');
  const dsaInterCa: Ca = { subject: inter.subject, key: key('dsa', 'dsa'), der: dsaInter.der };
  add(
    'a DSA intermediate',
    [leafOf({ ...dsaInterCa, key: key('dsa', 'dsa') }, { algorithm: seq(oid(OID.ecdsaSha256)), signature: Uint8Array.from([0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01]) }), dsaInter.der],
    `${UNKNOWN} (possibly because of "x509: cannot verify signature: algorithm unimplemented" while trying to verify candidate authority certificate "int")`,
  );
  const pssKeyInter = subCa('int', root, { key: key('psskey', 'rsa-pss'), serial: 16n });
  add('an RSA-PSS-keyed intermediate', [leafOf({ subject: inter.subject, key: key('psskey', 'rsa-pss'), der: pssKeyInter.der }, { algorithm: pssAlgorithm(32) }), pssKeyInter.der], UNKNOWN);
  add('a DSA-keyed leaf', [leafOf(inter, { key: key('dsaleaf', 'dsa') }), inter.der], 'tls: client certificate contains an unsupported public key of type *dsa.PublicKey');
  add('an RSA-PSS-keyed leaf', [leafOf(inter, { key: key('pssleaf', 'rsa-pss') }), inter.der], 'tls: client certificate contains an unsupported public key of type <nil>');
  const explicitCurve = concat(Uint8Array.from(key('leaf').spki));
  const ecParamsSpki = seq(seq(oid('1.2.840.10045.2.1'), seq(int(1))), bits(explicitCurve.subarray(explicitCurve.length - 65)));
  add('explicit EC curve parameters', [leafOf(inter, { spki: ecParamsSpki }), inter.der], `${PARSE}x509: invalid ECDSA parameters`);
  const offCurve = Uint8Array.from(explicitCurve.subarray(explicitCurve.length - 65));
  offCurve[64] = offCurve[64]! ^ 1;
  add('an EC point off the curve', [leafOf(inter, { spki: seq(seq(oid('1.2.840.10045.2.1'), oid('1.2.840.10045.3.1.7')), bits(offCurve)) }), inter.der], `${PARSE}P256 point not on curve`);
  add(
    'an RSA key without NULL parameters',
    [leafOf(inter, { spki: seq(seq(oid('1.2.840.113549.1.1.1')), bits(seq(int(0xc5n), int(3)))) }), inter.der],
    `${PARSE}x509: RSA key missing NULL parameters`,
  );
  add(
    'an RSA key with a negative modulus',
    [leafOf(inter, { spki: seq(seq(oid('1.2.840.113549.1.1.1'), nul()), bits(seq(int(-197n), int(3)))) }), inter.der],
    `${PARSE}x509: RSA modulus is not a positive number`,
  );

  // A same-named DSA certificate: Go 1.19 panicked in alreadyInChain; Go 1.26 compares key bytes.
  const selfIssuedLeaf = certificate({ subject: root.subject, key: key('selfleaf'), issuer: root.subject, issuerKey: root.key, extensions: [ext.eku(OID.clientAuth)] });
  const dsaTwin = certificate({ subject: root.subject, key: key('dsa', 'dsa'), issuer: root.subject, issuerKey: root.key, extensions: [ext.basicConstraints(true)], serial: 17n });
  add('a same-named DSA certificate (Go 1.19 panicked)', [selfIssuedLeaf, dsaTwin], 'accept');

  // Name constraints.
  const ncRoot = (label: string, permitted: Uint8Array[], excluded: Uint8Array[]): Ca => {
    const k = key(label);
    const subject = cn(label);
    return { subject, key: k, der: caCert(subject, k, { extensions: [ext.basicConstraints(true), ext.caKeyUsage(), ext.nameConstraints(permitted, excluded)] }) };
  };
  const nc = ncRoot('nc', [ext.dns('.example.com'), ext.ip(10, 0, 0, 0, 255, 0, 0, 0), ext.email('example.com')], [ext.dns('bad.example.com')]);
  const ncPool = [toPem(nc.der)];
  const ncLeaf = (...names: Uint8Array[]): Uint8Array => leafOf(nc, { extensions: [ext.eku(OID.clientAuth), ...(names.length > 0 ? [ext.san(false, ...names)] : [])] });
  add('name constraints: permitted DNS', [ncLeaf(ext.dns('a.example.com'))], 'accept', ncPool);
  add('name constraints: DNS outside', [ncLeaf(ext.dns('a.example.org'))], `${NOT_AUTHORIZED}DNS name "a.example.org" is not permitted by any constraint`, ncPool);
  add('name constraints: excluded DNS', [ncLeaf(ext.dns('x.bad.example.com'))], `${NOT_AUTHORIZED}DNS name "x.bad.example.com" is excluded by constraint "bad.example.com"`, ncPool);
  add('name constraints: the apex of a leading-dot constraint', [ncLeaf(ext.dns('example.com'))], `${NOT_AUTHORIZED}DNS name "example.com" is not permitted by any constraint`, ncPool);
  add('name constraints: permitted IP', [ncLeaf(ext.ip(10, 1, 2, 3))], 'accept', ncPool);
  add('name constraints: IP outside', [ncLeaf(ext.ip(192, 168, 0, 1))], `${NOT_AUTHORIZED}IP address "192.168.0.1" is not permitted by any constraint`, ncPool);
  add('name constraints: IPv6 against IPv4 ranges', [ncLeaf(ext.ip(...new Array<number>(15).fill(0), 1))], `${NOT_AUTHORIZED}IP address "::1" is not permitted by any constraint`, ncPool);
  add('name constraints: permitted email', [ncLeaf(ext.email('ops@example.com'))], 'accept', ncPool);
  add('name constraints: email outside', [ncLeaf(ext.email('ops@example.net'))], `${NOT_AUTHORIZED}email address "ops@example.net" is not permitted by any constraint`, ncPool);
  add('name constraints: no SAN at all', [ncLeaf()], 'accept', ncPool);
  add('name constraints: URI without a constraint of its type', [ncLeaf(ext.uri('spiffe://anything/x'))], 'accept', ncPool);
  const ncUri = ncRoot('ncuri', [ext.uri('.example.com')], []);
  add('name constraints: URI host permitted', [leafOf(ncUri, { extensions: [ext.eku(OID.clientAuth), ext.san(false, ext.uri('https://svc.example.com:8443/p'))] })], 'accept', [toPem(ncUri.der)]);
  add(
    'name constraints: URI with an IP host',
    [leafOf(ncUri, { extensions: [ext.eku(OID.clientAuth), ext.san(false, ext.uri('https://10.0.0.1/p'))] })],
    `${NOT_AUTHORIZED}URI with IP ("https://10.0.0.1/p") cannot be matched against constraints`,
    [toPem(ncUri.der)],
  );
  const ncDir = ncRoot('ncdir', [explicit(4, cn('x'))], []);
  add('name constraints: a critical directoryName constraint', [leafOf(ncDir)], `${VERIFY}x509: unhandled critical extension`, [toPem(ncDir.der)]);
  const ncInter = subCa('ncint', root, { extensions: [ext.basicConstraints(true), ext.caKeyUsage(), ext.nameConstraints([ext.dns('example.com')], [])] });
  add(
    'name constraints on an intermediate',
    [leafOf(ncInter, { extensions: [ext.eku(OID.clientAuth), ext.san(false, ext.dns('x.example.org'))] }), ncInter.der],
    `${NOT_AUTHORIZED}DNS name "x.example.org" is not permitted by any constraint`,
  );

  // More extension and field shapes.
  const leafExt = (...extensions: Uint8Array[]): Uint8Array => leafOf(inter, { extensions: [ext.eku(OID.clientAuth), ...extensions] });
  add(
    'a negative pathLen on the intermediate',
    [leaf, subCa('int', root, { extensions: [ext.basicConstraints(true, -5), ext.caKeyUsage()], serial: 20n }).der],
    `${PARSE}x509: invalid basic constraints`,
  );
  add(
    'critical AIA, CRL DP and policies',
    [
      leafExt(
        extension('1.3.6.1.5.5.7.1.1', true, seq(seq(oid('1.3.6.1.5.5.7.48.1'), implicit(6, [0x61])))),
        extension('2.5.29.31', true, seq(seq(tlv(0xa0, tlv(0xa0, implicit(6, [0x61])))))),
        extension('2.5.29.32', true, seq(seq(oid('2.5.29.32.0')))),
      ),
      inter.der,
    ],
    `${PARSE}x509: authority info access incorrectly marked critical`,
  );
  add('a malformed CRL distribution point', [leafExt(extension('2.5.29.31', false, seq(seq(tlv(0xa0, seq()))))), inter.der], `${PARSE}x509: invalid CRL distribution point`);
  add('a malformed AIA', [leafExt(extension('1.3.6.1.5.5.7.1.1', false, seq(seq(implicit(6, [0x61]))))), inter.der], `${PARSE}x509: invalid authority info access`);
  add('a policy without an OID', [leafExt(extension('2.5.29.32', false, seq(seq(int(1))))), inter.der], `${PARSE}x509: invalid certificate policies`);
  add('a SubjectKeyId that is not an OCTET STRING', [leafExt(extension('2.5.29.14', false, int(1))), inter.der], `${PARSE}x509: invalid subject key identifier`);
  add('an EKU list with a non-OID', [leafOf(inter, { extensions: [extension('2.5.29.37', false, seq(int(1)))] }), inter.der], `${PARSE}x509: invalid extended key usages`);
  add('a KeyUsage that is not a BIT STRING', [leafExt(extension('2.5.29.15', true, int(1))), inter.der], `${PARSE}x509: invalid key usage`);
  add('an empty extensions list', [leafOf(inter, { extensions: [], afterSpki: [explicit(3, seq())] }), inter.der], 'accept');
  add(
    'a constructed [1] where Go skips only a primitive issuerUniqueID',
    [leafOf(inter, { extensions: [], afterSpki: [tlv(0xa1, [0x05, 0x00]), explicit(3, seq(ext.eku(OID.serverAuth)))] }), inter.der],
    'accept',
  );
  add('unique IDs on a v3 certificate', [leafOf(inter, { afterSpki: [implicit(1, [0x00, 0xaa]), implicit(2, [0x00, 0xbb])] }), inter.der], 'accept');
  add('unique IDs on a v2 certificate with extensions after them', [leafOf(inter, { version: 2, afterSpki: [implicit(1, [0x00, 0xaa])], extensions: [ext.eku(OID.serverAuth)] }), inter.der], 'accept');
  add('an explicit version 0', [leafOf(inter, { versionField: explicit(0, int(0)), extensions: [ext.eku(OID.serverAuth)] }), inter.der], 'accept');
  add('a version field with trailing bytes', [leafOf(inter, { versionField: explicit(0, concat(int(2), nul())) }), inter.der], `${PARSE}x509: malformed version`);
  add('a negative version', [leafOf(inter, { versionField: explicit(0, int(-1)) }), inter.der], `${PARSE}x509: malformed version`);
  add('an IPv6 SAN', [sanLeaf(false, ext.ip(...new Array<number>(16).fill(1))), inter.der], 'accept');
  add('an 8-bit email SAN', [sanLeaf(false, implicit(1, Uint8Array.from([0x61, 0xff]))), inter.der], `${PARSE}x509: SAN rfc822Name is malformed`);
  add('a URI SAN with an empty label', [sanLeaf(false, ext.uri('http://a..b/')), inter.der], `${PARSE}x509: cannot parse URI "http://a..b/": invalid domain`);
  add(
    'an unknown signature algorithm',
    [leafOf(inter, { algorithm: seq(oid('1.2.3.4.5')), signature: Uint8Array.from([1]) }), inter.der],
    `${UNKNOWN} (possibly because of "x509: cannot verify signature: algorithm unimplemented" while trying to verify candidate authority certificate "int")`,
  );
  const p384 = ((): Ca => {
    const k = key('p384root', 'ec');
    return { subject: cn('p384root'), key: k, der: caCert(cn('p384root'), k) };
  })();
  add('ECDSA-SHA384 signature from a P-256 root', [leafOf(p384, { algorithm: seq(oid('1.2.840.10045.4.3.3')) })], 'accept', [toPem(p384.der)]);
  add(
    'a bad ECDSA signature',
    [leafOf(inter, { signature: Uint8Array.from([0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01]) }), inter.der],
    `${UNKNOWN} (possibly because of "x509: ECDSA verification failure" while trying to verify candidate authority certificate "int")`,
  );
  add('an Ed25519 key of 31 bytes', [leafOf(inter, { spki: seq(seq(oid(OID.ed25519)), bits(new Uint8Array(31))) }), inter.der], `${PARSE}x509: wrong Ed25519 public key size`);
  add('an Ed25519 key with parameters', [leafOf(inter, { spki: seq(seq(oid(OID.ed25519), nul()), bits(new Uint8Array(32))) }), inter.der], `${PARSE}x509: Ed25519 key encoded with illegal parameters`);
  add('DSA parameters that are not a SEQUENCE', [leafOf(inter, { spki: seq(seq(oid('1.2.840.10040.4.1'), nul()), bits(int(5))) }), inter.der], `${PARSE}x509: invalid DSA parameters`);
  add(
    'an unknown key algorithm on the leaf',
    [leafOf(inter, { spki: seq(seq(oid('1.2.3.4')), bits(Uint8Array.from([1, 2, 3]))) }), inter.der],
    'tls: client certificate contains an unsupported public key of type <nil>',
  );
  add(
    'a compressed EC point',
    [leafOf(inter, { spki: seq(seq(oid('1.2.840.10045.2.1'), oid('1.2.840.10045.3.1.7')), bits(Uint8Array.from([0x02, ...new Array<number>(32).fill(1)]))) }), inter.der],
    `${PARSE}ecdsa: invalid uncompressed public key`,
  );
  add(
    'a P-192 key',
    [leafOf(inter, { spki: seq(seq(oid('1.2.840.10045.2.1'), oid('1.2.840.10045.3.1.1')), bits(Uint8Array.from([0x04, ...new Array<number>(48).fill(1)]))) }), inter.der],
    `${PARSE}x509: unsupported elliptic curve`,
  );
  add(
    'an RSA exponent beyond int64',
    [leafOf(inter, { spki: seq(seq(oid('1.2.840.113549.1.1.1'), nul()), bits(seq(int(0xc5n), int(1n << 70n)))) }), inter.der],
    `${PARSE}x509: invalid RSA public exponent`,
  );
  add(
    'an RSA key with trailing bytes inside the BIT STRING',
    [leafOf(inter, { spki: seq(seq(oid('1.2.840.113549.1.1.1'), nul()), bits(concat(seq(int(0xc5n), int(3)), Uint8Array.from([0xde, 0xad])))) }), inter.der],
    // Go's parser takes the key (the trailing bytes are ignored); crypto/tls then refuses its size
    // at the client's CertificateVerify.
    'tls: invalid signature by the client certificate: crypto/rsa: 8-bit keys are insecure (see https://go.dev/pkg/crypto/rsa#hdr-Minimum_key_size)',
  );
  const ncBad = (label: string, ...subtrees: Uint8Array[]): Uint8Array => caCert(cn(label), key(label), { extensions: [ext.basicConstraints(true), ext.nameConstraints(subtrees, [])] });
  add(
    'a 5-byte IP name constraint',
    [leafOf({ subject: cn('ncb1'), key: key('ncb1'), der: ncBad('ncb1', ext.ip(1, 2, 3, 4, 5)) }), ncBad('ncb1', ext.ip(1, 2, 3, 4, 5))],
    `${PARSE}x509: IP constraint contained value of length 5`,
  );
  add('a non-contiguous IP mask', [ncBad('ncb2', ext.ip(10, 0, 0, 0, 255, 0, 255, 0))], `${PARSE}x509: IP constraint contained invalid mask ff00ff00`);
  add('a URI constraint that is an IP', [ncBad('ncb3', ext.uri('10.0.0.1'))], `${PARSE}x509: failed to parse URI constraint "10.0.0.1": cannot be IP address`);
  add('a DNS constraint with an empty label', [ncBad('ncb4', ext.dns('a..b'))], `${PARSE}x509: failed to parse dnsName constraint "a..b"`);
  add('an email constraint that is not a mailbox', [ncBad('ncb5', ext.email('a..b@x'))], `${PARSE}x509: failed to parse rfc822Name constraint "a..b@x"`);
  add(
    'an empty name constraints extension',
    [caCert(cn('ncb6'), key('ncb6'), { extensions: [ext.basicConstraints(true), extension('2.5.29.30', true, seq())] })],
    `${PARSE}x509: empty name constraints extension`,
  );
  const ncMail = ncRoot('ncmail', [ext.email('ops@example.com')], [ext.email('.example.org')]);
  const mailLeaf = (...names: Uint8Array[]): Uint8Array => leafOf(ncMail, { extensions: [ext.eku(OID.clientAuth), ext.san(false, ...names)] });
  add('name constraints: an exact mailbox', [mailLeaf(ext.email('ops@EXAMPLE.com'))], 'accept', [toPem(ncMail.der)]);
  add('name constraints: another mailbox', [mailLeaf(ext.email('dev@example.com'))], `${NOT_AUTHORIZED}email address "dev@example.com" is not permitted by any constraint`, [toPem(ncMail.der)]);
  add('name constraints: an excluded mail domain', [mailLeaf(ext.email('a@x.example.org'))], `${NOT_AUTHORIZED}email address "a@x.example.org" is not permitted by any constraint`, [
    toPem(ncMail.der),
  ]);
  add('name constraints: an unparseable email SAN', [mailLeaf(ext.email('not a mailbox'))], `${NOT_AUTHORIZED}cannot parse rfc822Name "not a mailbox"`, [toPem(ncMail.der)]);
  add('name constraints: an unparseable DNS SAN', [mailLeaf(ext.dns('a..b'))], `${NOT_AUTHORIZED}x509: cannot parse dnsName "a..b"`, [toPem(ncMail.der)]);
  add(
    'name constraints: a URI without a host',
    [leafOf(ncUri, { extensions: [ext.eku(OID.clientAuth), ext.san(false, ext.uri('urn:x:y'))] })],
    `${NOT_AUTHORIZED}URI with empty host ("urn:x:y") cannot be matched against constraints`,
    [toPem(ncUri.der)],
  );
  add(
    'name constraints: a URI host with too many colons',
    [leafOf(ncUri, { extensions: [ext.eku(OID.clientAuth), ext.san(false, ext.uri('https://a:1:2/'))] })],
    `${PARSE}x509: cannot parse URI "https://a:1:2/": parse "https://a:1:2/": invalid port ":1:2" after host`,
    [toPem(ncUri.der)],
  );
  const ncSelf = ncRoot('ncself', [ext.dns('example.com')], []);
  const ncSelfWithSan = caCert(cn('ncself'), key('ncself'), {
    extensions: [ext.basicConstraints(true), ext.nameConstraints([ext.dns('example.com')], []), ext.san(false, ext.dns('ca.other.net'))],
    serial: 99n,
  });
  add("name constraints do not apply to the constraining CA's own SAN", [leafOf(ncSelf, { extensions: [ext.eku(OID.clientAuth), ext.san(false, ext.dns('a.example.com'))] })], 'accept', [
    toPem(ncSelfWithSan),
  ]);

  // Pool building.
  const headerPem = toPem(root.der).replace('-----\n', '-----\nProc-Type: 4,ENCRYPTED\n\n');
  add('a CA block with PEM headers is not an anchor', [leaf, inter.der], UNKNOWN, [headerPem]);
  add('a CA file with CRLF line ends', [leaf, inter.der], 'accept', [toPem(root.der).replace(/\n/g, '\r\n')]);
  add('a TRUSTED CERTIFICATE block is not an anchor', [leaf, inter.der], UNKNOWN, [toPem(root.der, 'TRUSTED CERTIFICATE')]);
  const badRoot = caCert(cn('badroot'), key('badroot'), { extensions: [ext.basicConstraints(true), ext.basicConstraints(true)] });
  add('a CA Go cannot parse is skipped', [leafOf({ subject: cn('badroot'), key: key('badroot'), der: badRoot })], UNKNOWN, [toPem(badRoot) + toPem(stranger.der)]);
  add('an intermediate in the pool is an anchor', [leaf], 'accept', [toPem(inter.der)]);

  return cases;
}
