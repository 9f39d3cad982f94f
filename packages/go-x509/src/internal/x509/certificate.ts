import {
  parseAlgorithmIdentifier,
  parsePublicKey,
  rightAlign,
  publicKeyAlgorithmOf,
  signatureAlgorithmOf,
  type PublicKey,
  type PublicKeyAlgorithm,
  type SignatureAlgorithm,
} from './algorithms.ts';
import {
  binaryString,
  bytesEqual,
  ctx,
  ctxc,
  DerReader,
  oidString,
  parseGeneralizedTime,
  parseUTCTime,
  TAG,
  type GoTime,
} from './der.ts';
import { isIA5, nameSummary, parseName } from './name.ts';
import { domainToReverseLabels, looksLikeIP, parseMailbox, type IpNet } from './names.ts';
import { goQuote, goQuoteBytes } from './quote.ts';
import { parseUrl } from './uri.ts';

// x509.ParseCertificate of Go 1.19 (crypto/x509/parser.go): the same fields read with the same
// strictness and the same error texts. Only what verification needs is kept.

export interface Extension {
  readonly oid: string;
  readonly critical: boolean;
  readonly value: Uint8Array;
}

export interface NameConstraints {
  readonly permittedDNS: readonly string[];
  readonly excludedDNS: readonly string[];
  readonly permittedIPs: readonly IpNet[];
  readonly excludedIPs: readonly IpNet[];
  readonly permittedEmails: readonly string[];
  readonly excludedEmails: readonly string[];
  readonly permittedURIs: readonly string[];
  readonly excludedURIs: readonly string[];
}

export interface Certificate {
  readonly raw: Uint8Array;
  readonly rawTBS: Uint8Array;
  readonly rawIssuer: Uint8Array;
  readonly rawSubject: Uint8Array;
  readonly version: number;
  readonly serial: bigint;
  readonly signatureAlgorithm: SignatureAlgorithm | undefined;
  readonly signature: Uint8Array;
  readonly notBefore: GoTime;
  readonly notAfter: GoTime;
  readonly commonName: string;
  readonly organization: string | undefined;
  readonly publicKeyAlgorithm: PublicKeyAlgorithm | undefined;
  readonly publicKey: PublicKey | undefined;
  readonly extensions: readonly Extension[];
  readonly keyUsage: number;
  readonly basicConstraintsValid: boolean;
  readonly isCA: boolean;
  readonly maxPathLen: number;
  readonly subjectKeyId: Uint8Array;
  readonly authorityKeyId: Uint8Array;
  /** Known EKUs by Go's name (`any`, `clientAuth`, ...). */
  readonly extKeyUsage: readonly string[];
  readonly unknownExtKeyUsage: number;
  readonly unhandledCritical: readonly string[];
  readonly nameConstraints: NameConstraints | undefined;
  /** The subjectAltName extension's value when the certificate has one (v3 only). */
  readonly sanValue: Uint8Array | undefined;
}

export const KEY_USAGE_CERT_SIGN: number = 1 << 5;

const EKU_NAMES = new Map<string, string>([
  ['2.5.29.37.0', 'any'],
  ['1.3.6.1.5.5.7.3.1', 'serverAuth'],
  ['1.3.6.1.5.5.7.3.2', 'clientAuth'],
  ['1.3.6.1.5.5.7.3.3', 'codeSigning'],
  ['1.3.6.1.5.5.7.3.4', 'emailProtection'],
  ['1.3.6.1.5.5.7.3.5', 'ipsecEndSystem'],
  ['1.3.6.1.5.5.7.3.6', 'ipsecTunnel'],
  ['1.3.6.1.5.5.7.3.7', 'ipsecUser'],
  ['1.3.6.1.5.5.7.3.8', 'timeStamping'],
  ['1.3.6.1.5.5.7.3.9', 'ocspSigning'],
  ['1.3.6.1.4.1.311.10.3.3', 'microsoftServerGatedCrypto'],
  ['2.16.840.1.113730.4.1', 'netscapeServerGatedCrypto'],
  ['1.3.6.1.4.1.311.2.1.22', 'microsoftCommercialCodeSigning'],
  ['1.3.6.1.4.1.311.61.1.1', 'microsoftKernelCodeSigning'],
]);

export const SAN_OID = '2.5.29.17';
const AIA_OID = '1.3.6.1.5.5.7.1.1';

class ParseError extends Error {}

function fail(message: string): never {
  throw new ParseError(message);
}

function parseTime(r: DerReader): GoTime {
  if (r.peekTag(TAG.UTCTime)) {
    const body = r.read(TAG.UTCTime);
    const t = body === undefined ? undefined : parseUTCTime(body);
    return t ?? fail('x509: malformed UTCTime');
  }
  if (r.peekTag(TAG.GeneralizedTime)) {
    const body = r.read(TAG.GeneralizedTime);
    const t = body === undefined ? undefined : parseGeneralizedTime(body);
    return t ?? fail('x509: malformed GeneralizedTime');
  }
  return fail('x509: unsupported time format');
}

function parseExtension(body: Uint8Array): Extension {
  const r = new DerReader(body);
  const oid = r.readOID();
  if (oid === undefined) fail('x509: malformed extension OID field');
  let critical = false;
  if (r.peekTag(TAG.BOOLEAN)) {
    const c = r.readBoolean();
    if (c === undefined) fail('x509: malformed extension critical field');
    critical = c;
  }
  const value = r.read(TAG.OCTET_STRING);
  if (value === undefined) fail('x509: malformed extension value field');
  return { oid: oidString(oid), critical, value };
}

/** Calls back for every GeneralName in a SAN value with Go's tag numbering (tag ^ 0x80). */
export function forEachSAN(value: Uint8Array, callback: (tag: number, data: Uint8Array) => void): void {
  const seq = new DerReader(value).read(TAG.SEQUENCE);
  if (seq === undefined) fail('x509: invalid subject alternative names');
  const r = new DerReader(seq);
  while (!r.empty()) {
    const e = r.readAny();
    if (e === undefined) fail('x509: invalid subject alternative name');
    callback(e.tag ^ 0x80, e.body);
  }
}

/** Go's forEachSAN for a caller that needs the error text instead of an exception. */
export function forEachSanChecked(value: Uint8Array, callback: (tag: number, data: Uint8Array) => void): string | undefined {
  try {
    forEachSAN(value, callback);
    return undefined;
  } catch (e) {
    if (e instanceof ParseError) return e.message;
    throw e;
  }
}

interface SanSummary {
  readonly count: number;
}

function parseSAN(value: Uint8Array): SanSummary {
  let count = 0;
  forEachSAN(value, (tag, data) => {
    switch (tag) {
      case 1:
        if (!isIA5(data)) fail('x509: SAN rfc822Name is malformed');
        count++;
        break;
      case 2:
        if (!isIA5(data)) fail('x509: SAN dNSName is malformed');
        count++;
        break;
      case 6: {
        if (!isIA5(data)) fail('x509: SAN uniformResourceIdentifier is malformed');
        const text = binaryString(data);
        const parsed = parseUrl(text);
        if ('error' in parsed) fail(`x509: cannot parse URI ${goQuote(text)}: ${parsed.error}`);
        if (parsed.host.length > 0 && domainToReverseLabels(parsed.host) === undefined) {
          fail(`x509: cannot parse URI ${goQuote(text)}: invalid domain`);
        }
        count++;
        break;
      }
      case 7:
        if (data.length !== 4 && data.length !== 16) fail(`x509: cannot parse IP address of length ${data.length}`);
        count++;
        break;
      default:
        break;
    }
  });
  return { count };
}

function isValidIPMask(mask: Uint8Array): boolean {
  let seenZero = false;
  for (const b of mask) {
    if (seenZero) {
      if (b !== 0) return false;
      continue;
    }
    if ([0x00, 0x80, 0xc0, 0xe0, 0xf0, 0xf8, 0xfc, 0xfe].includes(b)) seenZero = true;
    else if (b !== 0xff) return false;
  }
  return true;
}

function hexOf(b: Uint8Array): string {
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}

interface Subtrees {
  dns: string[];
  ips: IpNet[];
  emails: string[];
  uris: string[];
}

function parseNameConstraints(value: Uint8Array): { constraints: NameConstraints; unhandled: boolean } {
  const outer = new DerReader(value);
  const top = outer.read(TAG.SEQUENCE);
  const invalid = 'x509: invalid NameConstraints extension';
  if (top === undefined || !outer.empty()) fail(invalid);
  const t = new DerReader(top);
  const permitted = t.readOptional(ctxc(0));
  if (permitted === false) fail(invalid);
  const excluded = t.readOptional(ctxc(1));
  if (excluded === false || !t.empty()) fail(invalid);
  if ((!permitted.present && !excluded.present) || (permitted.body.length === 0 && excluded.body.length === 0)) {
    fail('x509: empty name constraints extension');
  }
  let unhandled = false;
  const values = (body: Uint8Array): Subtrees => {
    const out: Subtrees = { dns: [], ips: [], emails: [], uris: [] };
    const r = new DerReader(body);
    while (!r.empty()) {
      const seq = r.read(TAG.SEQUENCE);
      const base = seq === undefined ? undefined : new DerReader(seq).readAny();
      if (base === undefined) fail('x509: invalid NameConstraints extension');
      const data = base.body;
      switch (base.tag) {
        case ctx(2): {
          if (!isIA5(data)) fail(`x509: invalid constraint value: x509: ${goQuoteBytes(binaryString(data))} cannot be encoded as an IA5String`);
          const domain = binaryString(data);
          const trimmed = domain.startsWith('.') ? domain.slice(1) : domain;
          if (domainToReverseLabels(trimmed) === undefined) fail(`x509: failed to parse dnsName constraint ${goQuote(domain)}`);
          out.dns.push(domain);
          break;
        }
        case ctx(7): {
          let ip: Uint8Array;
          let mask: Uint8Array;
          if (data.length === 8) {
            ip = data.subarray(0, 4);
            mask = data.subarray(4);
          } else if (data.length === 32) {
            ip = data.subarray(0, 16);
            mask = data.subarray(16);
          } else {
            fail(`x509: IP constraint contained value of length ${data.length}`);
          }
          if (!isValidIPMask(mask)) fail(`x509: IP constraint contained invalid mask ${hexOf(mask)}`);
          out.ips.push({ ip, mask });
          break;
        }
        case ctx(1): {
          if (!isIA5(data)) fail(`x509: invalid constraint value: x509: ${goQuoteBytes(binaryString(data))} cannot be encoded as an IA5String`);
          const constraint = binaryString(data);
          if (constraint.includes('@')) {
            if (parseMailbox(constraint) === undefined) fail(`x509: failed to parse rfc822Name constraint ${goQuote(constraint)}`);
          } else {
            const domain = constraint.startsWith('.') ? constraint.slice(1) : constraint;
            if (domainToReverseLabels(domain) === undefined) fail(`x509: failed to parse rfc822Name constraint ${goQuote(constraint)}`);
          }
          out.emails.push(constraint);
          break;
        }
        case ctx(6): {
          if (!isIA5(data)) fail(`x509: invalid constraint value: x509: ${goQuoteBytes(binaryString(data))} cannot be encoded as an IA5String`);
          const domain = binaryString(data);
          if (looksLikeIP(domain)) fail(`x509: failed to parse URI constraint ${goQuote(domain)}: cannot be IP address`);
          const trimmed = domain.startsWith('.') ? domain.slice(1) : domain;
          if (domainToReverseLabels(trimmed) === undefined) fail(`x509: failed to parse URI constraint ${goQuote(domain)}`);
          out.uris.push(domain);
          break;
        }
        default:
          unhandled = true;
      }
    }
    return out;
  };
  const p = values(permitted.body);
  const x = values(excluded.body);
  return {
    constraints: {
      permittedDNS: p.dns,
      excludedDNS: x.dns,
      permittedIPs: p.ips,
      excludedIPs: x.ips,
      permittedEmails: p.emails,
      excludedEmails: x.emails,
      permittedURIs: p.uris,
      excludedURIs: x.uris,
    },
    unhandled,
  };
}

function parseKeyUsage(value: Uint8Array): number {
  const bits = new DerReader(value).readBitString();
  if (bits === undefined) fail('x509: invalid key usage');
  let usage = 0;
  for (let i = 0; i < 9; i++) {
    const byte = i >> 3;
    if (byte < bits.bytes.length && i < bits.bitLength && ((bits.bytes[byte]! >> (7 - (i & 7))) & 1) !== 0) usage |= 1 << i;
  }
  return usage;
}

function parseBasicConstraints(value: Uint8Array): { isCA: boolean; maxPathLen: number } {
  const seq = new DerReader(value).read(TAG.SEQUENCE);
  if (seq === undefined) fail('x509: invalid basic constraints a');
  const r = new DerReader(seq);
  let isCA = false;
  if (r.peekTag(TAG.BOOLEAN)) {
    const b = r.readBoolean();
    if (b === undefined) fail('x509: invalid basic constraints b');
    isCA = b;
  }
  let maxPathLen = -1;
  if (!r.empty() && r.peekTag(TAG.INTEGER)) {
    const n = r.readInt64();
    if (n === undefined) fail('x509: invalid basic constraints c');
    // A path length beyond any chain Go could build behaves like an unbounded one.
    maxPathLen = n > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : n < -BigInt(Number.MAX_SAFE_INTEGER) ? -Number.MAX_SAFE_INTEGER : Number(n);
  }
  return { isCA, maxPathLen };
}

function parseExtKeyUsage(value: Uint8Array): { known: string[]; unknown: number } {
  const seq = new DerReader(value).read(TAG.SEQUENCE);
  if (seq === undefined) fail('x509: invalid extended key usages');
  const r = new DerReader(seq);
  const known: string[] = [];
  let unknown = 0;
  while (!r.empty()) {
    const oid = r.readOID();
    if (oid === undefined) fail('x509: invalid extended key usages');
    const name = EKU_NAMES.get(oidString(oid));
    if (name === undefined) unknown++;
    else known.push(name);
  }
  return { known, unknown };
}

function checkCertificatePolicies(value: Uint8Array): void {
  const seq = new DerReader(value).read(TAG.SEQUENCE);
  if (seq === undefined) fail('x509: invalid certificate policies');
  const r = new DerReader(seq);
  while (!r.empty()) {
    const cp = r.read(TAG.SEQUENCE);
    if (cp === undefined || new DerReader(cp).readOID() === undefined) fail('x509: invalid certificate policies');
  }
}

function checkCrlDistributionPoints(value: Uint8Array): void {
  const seq = new DerReader(value).read(TAG.SEQUENCE);
  if (seq === undefined) fail('x509: invalid CRL distribution points');
  const r = new DerReader(seq);
  while (!r.empty()) {
    const dp = r.read(TAG.SEQUENCE);
    if (dp === undefined) fail('x509: invalid CRL distribution point');
    const d = new DerReader(dp);
    const name = d.readOptional(ctxc(0));
    if (name === false) fail('x509: invalid CRL distribution point');
    if (!name.present) continue;
    const full = new DerReader(name.body).read(ctxc(0));
    if (full === undefined) fail('x509: invalid CRL distribution point');
    const f = new DerReader(full);
    while (!f.empty()) {
      if (!f.peekTag(ctx(6))) break;
      if (f.read(ctx(6)) === undefined) fail('x509: invalid CRL distribution point');
    }
  }
}

function checkAuthorityInfoAccess(value: Uint8Array): void {
  const seq = new DerReader(value).read(TAG.SEQUENCE);
  if (seq === undefined) fail('x509: invalid authority info access');
  const r = new DerReader(seq);
  while (!r.empty()) {
    const ad = r.read(TAG.SEQUENCE);
    if (ad === undefined) fail('x509: invalid authority info access');
    const a = new DerReader(ad);
    if (a.readOID() === undefined) fail('x509: invalid authority info access');
    if (!a.peekTag(ctx(6))) continue;
    if (a.read(ctx(6)) === undefined) fail('x509: invalid authority info access');
  }
}

interface ExtensionFacts {
  keyUsage: number;
  basicConstraintsValid: boolean;
  isCA: boolean;
  maxPathLen: number;
  subjectKeyId: Uint8Array;
  authorityKeyId: Uint8Array;
  extKeyUsage: string[];
  unknownExtKeyUsage: number;
  unhandledCritical: string[];
  nameConstraints: NameConstraints | undefined;
  sanValue: Uint8Array | undefined;
}

function processExtensions(extensions: readonly Extension[]): ExtensionFacts {
  const f: ExtensionFacts = {
    keyUsage: 0,
    basicConstraintsValid: false,
    isCA: false,
    maxPathLen: -1,
    subjectKeyId: new Uint8Array(0),
    authorityKeyId: new Uint8Array(0),
    extKeyUsage: [],
    unknownExtKeyUsage: 0,
    unhandledCritical: [],
    nameConstraints: undefined,
    sanValue: undefined,
  };
  // Go keeps only the last value for the fields below, but duplicates are refused earlier anyway.
  // The SAN extension Go finds later by OID is the first one, which is also the only one.
  for (const e of extensions) {
    let unhandled = false;
    switch (e.oid) {
      case '2.5.29.15':
        f.keyUsage = parseKeyUsage(e.value);
        break;
      case '2.5.29.19': {
        const bc = parseBasicConstraints(e.value);
        f.isCA = bc.isCA;
        f.maxPathLen = bc.maxPathLen;
        f.basicConstraintsValid = true;
        break;
      }
      case SAN_OID:
        if (parseSAN(e.value).count === 0) unhandled = true;
        f.sanValue ??= e.value;
        break;
      case '2.5.29.30': {
        const nc = parseNameConstraints(e.value);
        f.nameConstraints = nc.constraints;
        unhandled = nc.unhandled;
        break;
      }
      case '2.5.29.31':
        checkCrlDistributionPoints(e.value);
        break;
      case '2.5.29.35': {
        const akid = new DerReader(e.value).read(TAG.SEQUENCE);
        if (akid === undefined) fail('x509: invalid authority key identifier');
        const r = new DerReader(akid);
        if (r.peekTag(ctx(0))) {
          const id = r.read(ctx(0));
          if (id === undefined) fail('x509: invalid authority key identifier');
          f.authorityKeyId = id;
        }
        break;
      }
      case '2.5.29.37': {
        const eku = parseExtKeyUsage(e.value);
        f.extKeyUsage = eku.known;
        f.unknownExtKeyUsage = eku.unknown;
        break;
      }
      case '2.5.29.14': {
        const skid = new DerReader(e.value).read(TAG.OCTET_STRING);
        if (skid === undefined) fail('x509: invalid subject key identifier');
        f.subjectKeyId = skid;
        break;
      }
      case '2.5.29.32':
        checkCertificatePolicies(e.value);
        break;
      case AIA_OID:
        checkAuthorityInfoAccess(e.value);
        break;
      default:
        unhandled = true;
    }
    if (e.critical && unhandled) f.unhandledCritical.push(e.oid);
  }
  return f;
}

function parse(der: Uint8Array): Certificate {
  const input0 = new DerReader(der);
  const raw = input0.readElement(TAG.SEQUENCE);
  if (raw === undefined) fail('x509: malformed certificate');
  const outerBody = new DerReader(raw).read(TAG.SEQUENCE);
  if (outerBody === undefined) fail('x509: malformed certificate');
  const input = new DerReader(outerBody);
  const rawTBS = input.readElement(TAG.SEQUENCE);
  if (rawTBS === undefined) fail('x509: malformed tbs certificate');
  const tbsBody = new DerReader(rawTBS).read(TAG.SEQUENCE);
  if (tbsBody === undefined) fail('x509: malformed tbs certificate');
  const tbs = new DerReader(tbsBody);

  let version = 0n;
  const versionField = tbs.readOptional(ctxc(0));
  if (versionField === false) fail('x509: malformed version');
  if (versionField.present) {
    const vr = new DerReader(versionField.body);
    const v = vr.readInt64();
    if (v === undefined || !vr.empty()) fail('x509: malformed version');
    version = v;
  }
  if (version < 0n) fail('x509: malformed version');
  version += 1n;
  if (version > 3n) fail('x509: invalid version');

  const serial = tbs.readBigInt();
  if (serial === undefined) fail('x509: malformed serial number');

  const sigAI = tbs.read(TAG.SEQUENCE);
  if (sigAI === undefined) fail('x509: malformed signature algorithm identifier');
  const outerSigAI = input.read(TAG.SEQUENCE);
  if (outerSigAI === undefined) fail('x509: malformed algorithm identifier');
  if (!bytesEqual(outerSigAI, sigAI)) fail("x509: inner and outer signature algorithm identifiers don't match");
  const ai = parseAlgorithmIdentifier(sigAI);
  if (typeof ai === 'string') fail(ai);
  const signatureAlgorithm = signatureAlgorithmOf(ai);

  const rawIssuer = tbs.readElement(TAG.SEQUENCE);
  if (rawIssuer === undefined) fail('x509: malformed issuer');
  const issuer = parseName(rawIssuer);
  if (typeof issuer === 'string') fail(issuer);

  const validity = tbs.read(TAG.SEQUENCE);
  if (validity === undefined) fail('x509: malformed validity');
  const vr = new DerReader(validity);
  const notBefore = parseTime(vr);
  const notAfter = parseTime(vr);

  const rawSubject = tbs.readElement(TAG.SEQUENCE);
  if (rawSubject === undefined) fail('x509: malformed issuer');
  const subject = parseName(rawSubject);
  if (typeof subject === 'string') fail(subject);

  const spkiElement = tbs.readElement(TAG.SEQUENCE);
  const spkiBody = spkiElement === undefined ? undefined : new DerReader(spkiElement).read(TAG.SEQUENCE);
  if (spkiBody === undefined) fail('x509: malformed spki');
  const spki = new DerReader(spkiBody);
  const pkAISeq = spki.read(TAG.SEQUENCE);
  if (pkAISeq === undefined) fail('x509: malformed public key algorithm identifier');
  const pkAI = parseAlgorithmIdentifier(pkAISeq);
  if (typeof pkAI === 'string') fail(pkAI);
  const publicKeyAlgorithm = publicKeyAlgorithmOf(pkAI.oid);
  const keyBits = spki.readBitString();
  if (keyBits === undefined) fail('x509: malformed subjectPublicKey');
  const publicKey = parsePublicKey(publicKeyAlgorithm, pkAI, keyBits);
  if (typeof publicKey === 'string') fail(publicKey);

  let extensions: Extension[] = [];
  let facts: ExtensionFacts | undefined;
  if (version > 1n) {
    if (!tbs.skipOptional(ctx(1))) fail('x509: malformed issuerUniqueID');
    if (!tbs.skipOptional(ctx(2))) fail('x509: malformed subjectUniqueID');
    if (version === 3n) {
      const exts = tbs.readOptional(ctxc(3));
      if (exts === false) fail('x509: malformed extensions');
      if (exts.present) {
        const seq = new DerReader(exts.body).read(TAG.SEQUENCE);
        if (seq === undefined) fail('x509: malformed extensions');
        const r = new DerReader(seq);
        const seen = new Set<string>();
        while (!r.empty()) {
          const body = r.read(TAG.SEQUENCE);
          if (body === undefined) fail('x509: malformed extension');
          const ext = parseExtension(body);
          if (seen.has(ext.oid)) fail('x509: certificate contains duplicate extensions');
          seen.add(ext.oid);
          extensions.push(ext);
        }
        facts = processExtensions(extensions);
      }
    }
  }
  if (facts === undefined) {
    extensions = [];
    facts = processExtensions([]);
  }

  const signature = input.readBitString();
  if (signature === undefined) fail('x509: malformed signature');
  const summary = nameSummary(subject);

  return {
    raw,
    rawTBS,
    rawIssuer,
    rawSubject,
    version: Number(version),
    serial,
    signatureAlgorithm,
    signature: rightAlign(signature.bytes, signature.bitLength),
    notBefore,
    notAfter,
    commonName: summary.commonName,
    organization: summary.organization,
    publicKeyAlgorithm,
    publicKey,
    extensions,
    ...facts,
  };
}


/** x509.ParseCertificate: the certificate or Go's error text. */
export function parseCertificate(der: Uint8Array): Certificate | string {
  let cert: Certificate;
  try {
    cert = parse(der);
  } catch (e) {
    if (e instanceof ParseError) return e.message;
    throw e;
  }
  if (der.length !== cert.raw.length) return 'x509: trailing data';
  return cert;
}
