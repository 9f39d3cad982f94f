import { binaryString, ctx, ctxc, DerReader, oidString, TAG } from './der.ts';
import { isIA5 } from './name.ts';
import { domainNameValid } from './names.ts';
import { hexOf, parseNameConstraints, type NameConstraints } from './name-constraints-extension.ts';
import { fail } from './parse-error.ts';
import { goQuote } from './quote.ts';
import { parseUrl, type ParsedUri } from './uri.ts';

export type { NameConstraints };

// The extensions x509.ParseCertificate of Go 1.26 reads (crypto/x509/parser.go,
// processExtensions), with its strictness and error texts. Only what verification needs is kept.

export interface Extension {
  readonly oid: string;
  readonly critical: boolean;
  readonly value: Uint8Array;
}

/** One policyMappings entry: the DER bodies of the two OIDs, as hex (Go compares OIDs by DER). */
export interface PolicyMapping {
  readonly issuerDomainPolicy: string;
  readonly subjectDomainPolicy: string;
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
export const NAME_CONSTRAINTS_OID = '2.5.29.30';
const AIA_OID = '1.3.6.1.5.5.7.1.1';

/** A reader over the SEQUENCE an extension's value must be; `invalid` is Go's text when it is not one. */
function sequenceOf(value: Uint8Array, invalid: string): DerReader {
  const seq = new DerReader(value).read(TAG.SEQUENCE);
  if (seq === undefined) fail(invalid);
  return new DerReader(seq);
}

/** Calls back for every GeneralName in a SAN value with Go's tag numbering (tag ^ 0x80). */
export function forEachSAN(value: Uint8Array, callback: (tag: number, data: Uint8Array) => void): void {
  const r = sequenceOf(value, 'x509: invalid subject alternative names');
  while (!r.empty()) {
    const e = r.readAny();
    if (e === undefined) fail('x509: invalid subject alternative name');
    callback(e.tag ^ 0x80, e.body);
  }
}

/** The names of a subjectAltName extension Go keeps (dNSName, rfc822Name, URI, iPAddress). */
export interface SubjectAltNames {
  readonly dnsNames: readonly string[];
  readonly emailAddresses: readonly string[];
  readonly ipAddresses: readonly Uint8Array[];
  readonly uris: readonly ParsedUri[];
}

function parseSAN(value: Uint8Array): SubjectAltNames {
  const dnsNames: string[] = [];
  const emailAddresses: string[] = [];
  const ipAddresses: Uint8Array[] = [];
  const uris: ParsedUri[] = [];
  forEachSAN(value, (tag, data) => {
    switch (tag) {
      case 1:
        if (!isIA5(data)) fail('x509: SAN rfc822Name is malformed');
        emailAddresses.push(binaryString(data));
        break;
      case 2:
        if (!isIA5(data)) fail('x509: SAN dNSName is malformed');
        dnsNames.push(binaryString(data));
        break;
      case 6: {
        if (!isIA5(data)) fail('x509: SAN uniformResourceIdentifier is malformed');
        const text = binaryString(data);
        const parsed = parseUrl(text);
        if ('error' in parsed) fail(`x509: cannot parse URI ${goQuote(text)}: ${parsed.error}`);
        if (parsed.host.length > 0 && !domainNameValid(parsed.host, false)) {
          fail(`x509: cannot parse URI ${goQuote(text)}: invalid domain`);
        }
        uris.push(parsed);
        break;
      }
      case 7:
        if (data.length !== 4 && data.length !== 16) fail(`x509: cannot parse IP address of length ${data.length}`);
        ipAddresses.push(data);
        break;
      default:
        break;
    }
  });
  return { dnsNames, emailAddresses, ipAddresses, uris };
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
  const invalid = 'x509: invalid basic constraints';
  const r = sequenceOf(value, invalid);
  let isCA = false;
  if (r.peekTag(TAG.BOOLEAN)) {
    const b = r.readBoolean();
    if (b === undefined) fail(invalid);
    isCA = b;
  }
  let maxPathLen = -1;
  if (r.peekTag(TAG.INTEGER)) {
    // Read as an unsigned int no larger than Go's MaxInt: a negative pathLenConstraint fails to
    // parse (Go 1.25).
    const n = r.readInt64();
    if (n === undefined || n < 0n) fail(invalid);
    // A path length beyond any chain Go could build behaves like an unbounded one.
    maxPathLen = n > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(n);
  }
  return { isCA, maxPathLen };
}

function parseExtKeyUsage(value: Uint8Array): { known: string[]; unknown: number } {
  const r = sequenceOf(value, 'x509: invalid extended key usages');
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

/** An OID's DER body as Go's newOIDFromDER accepts it (any arc size, fewest octets), as hex. */
function policyOid(body: Uint8Array): string | undefined {
  if (body.length === 0 || (body[body.length - 1]! & 0x80) !== 0) return undefined;
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    if (i === start && body[i] === 0x80) return undefined;
    if ((body[i]! & 0x80) === 0) start = i + 1;
  }
  return hexOf(body);
}

// certificatePolicies as Go 1.22+ reads it: OIDs of any arc size (x509.OID), a repeated OID refused.
function parseCertificatePolicies(value: Uint8Array): string[] {
  const invalid = 'x509: invalid certificate policies';
  const r = sequenceOf(value, invalid);
  const policies: string[] = [];
  const seen = new Set<string>();
  while (!r.empty()) {
    const cp = r.read(TAG.SEQUENCE);
    const body = cp === undefined ? undefined : new DerReader(cp).read(TAG.OID);
    if (body === undefined) fail(invalid);
    const key = hexOf(body);
    if (seen.has(key)) fail(invalid);
    seen.add(key);
    const oid = policyOid(body);
    if (oid === undefined) fail(invalid);
    policies.push(oid);
  }
  return policies;
}

interface PolicyConstraints {
  requireExplicitPolicy: number;
  requireExplicitPolicyZero: boolean;
  inhibitPolicyMapping: number;
  inhibitPolicyMappingZero: boolean;
}

// Go's int is int64; only the comparison with a chain length matters, so a safe integer suffices.
function clampInt64(v: bigint): number {
  const max = BigInt(Number.MAX_SAFE_INTEGER);
  return v > max ? Number.MAX_SAFE_INTEGER : v < -max ? -Number.MAX_SAFE_INTEGER : Number(v);
}

function parsePolicyConstraints(value: Uint8Array): PolicyConstraints {
  const invalid = 'x509: invalid policy constraints extension';
  const r = sequenceOf(value, invalid);
  const out: PolicyConstraints = { requireExplicitPolicy: 0, requireExplicitPolicyZero: false, inhibitPolicyMapping: 0, inhibitPolicyMappingZero: false };
  if (r.peekTag(ctx(0))) {
    const v = r.readInt64(ctx(0));
    if (v === undefined) fail(invalid);
    out.requireExplicitPolicy = clampInt64(v);
    out.requireExplicitPolicyZero = v === 0n;
  }
  if (r.peekTag(ctx(1))) {
    const v = r.readInt64(ctx(1));
    if (v === undefined) fail(invalid);
    out.inhibitPolicyMapping = clampInt64(v);
    out.inhibitPolicyMappingZero = v === 0n;
  }
  return out;
}

function parsePolicyMappings(value: Uint8Array): PolicyMapping[] {
  const invalid = 'x509: invalid policy mappings extension';
  const r = sequenceOf(value, invalid);
  const mappings: PolicyMapping[] = [];
  while (!r.empty()) {
    const s = r.read(TAG.SEQUENCE);
    const m = s === undefined ? undefined : new DerReader(s);
    const issuer = m?.read(TAG.OID);
    const subject = issuer === undefined ? undefined : m!.read(TAG.OID);
    if (issuer === undefined || subject === undefined) fail(invalid);
    // Go keeps the raw OID bytes here, unchecked.
    mappings.push({ issuerDomainPolicy: hexOf(issuer), subjectDomainPolicy: hexOf(subject) });
  }
  return mappings;
}

function checkCrlDistributionPoints(value: Uint8Array): void {
  const r = sequenceOf(value, 'x509: invalid CRL distribution points');
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

function checkAuthorityInfoAccess(value: Uint8Array, critical: boolean): void {
  if (critical) fail('x509: authority info access incorrectly marked critical');
  const r = sequenceOf(value, 'x509: invalid authority info access');
  while (!r.empty()) {
    const ad = r.read(TAG.SEQUENCE);
    if (ad === undefined) fail('x509: invalid authority info access');
    const a = new DerReader(ad);
    if (a.readOID() === undefined) fail('x509: invalid authority info access');
    if (!a.peekTag(ctx(6))) continue;
    if (a.read(ctx(6)) === undefined) fail('x509: invalid authority info access');
  }
}

export interface ExtensionFacts {
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
  /** The subjectAltName extension's names when the certificate has one (v3 only). */
  subjectAltNames: SubjectAltNames | undefined;
  /** The subjectAltName extension's value when the certificate has one (v3 only). */
  sanValue: Uint8Array | undefined;
  /** certificatePolicies, each OID's DER body as hex. */
  policies: string[];
  policyMappings: PolicyMapping[];
  requireExplicitPolicy: number;
  requireExplicitPolicyZero: boolean;
  inhibitPolicyMapping: number;
  inhibitPolicyMappingZero: boolean;
  inhibitAnyPolicy: number;
  inhibitAnyPolicyZero: boolean;
}

export function processExtensions(extensions: readonly Extension[]): ExtensionFacts {
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
    subjectAltNames: undefined,
    sanValue: undefined,
    policies: [],
    policyMappings: [],
    requireExplicitPolicy: 0,
    requireExplicitPolicyZero: false,
    inhibitPolicyMapping: 0,
    inhibitPolicyMappingZero: false,
    inhibitAnyPolicy: 0,
    inhibitAnyPolicyZero: false,
  };
  // Duplicate extensions are refused before this runs, so each case below runs at most once.
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
      case SAN_OID: {
        const names = parseSAN(e.value);
        if (names.dnsNames.length + names.emailAddresses.length + names.ipAddresses.length + names.uris.length === 0) unhandled = true;
        f.subjectAltNames = names;
        f.sanValue = e.value;
        break;
      }
      case NAME_CONSTRAINTS_OID: {
        const nc = parseNameConstraints(e.value);
        f.nameConstraints = nc.constraints;
        unhandled = nc.unhandled;
        break;
      }
      case '2.5.29.31':
        checkCrlDistributionPoints(e.value);
        break;
      case '2.5.29.35': {
        if (e.critical) fail('x509: authority key identifier incorrectly marked critical');
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
      case '2.5.29.36':
        Object.assign(f, parsePolicyConstraints(e.value));
        break;
      case '2.5.29.37': {
        const eku = parseExtKeyUsage(e.value);
        f.extKeyUsage = eku.known;
        f.unknownExtKeyUsage = eku.unknown;
        break;
      }
      case '2.5.29.14': {
        if (e.critical) fail('x509: subject key identifier incorrectly marked critical');
        const skid = new DerReader(e.value).read(TAG.OCTET_STRING);
        if (skid === undefined) fail('x509: invalid subject key identifier');
        f.subjectKeyId = skid;
        break;
      }
      case '2.5.29.32':
        f.policies = parseCertificatePolicies(e.value);
        break;
      case '2.5.29.33':
        f.policyMappings = parsePolicyMappings(e.value);
        break;
      case '2.5.29.54': {
        const v = new DerReader(e.value).readInt64();
        if (v === undefined) fail('x509: invalid inhibit any policy extension');
        f.inhibitAnyPolicy = clampInt64(v);
        f.inhibitAnyPolicyZero = v === 0n;
        break;
      }
      case AIA_OID:
        checkAuthorityInfoAccess(e.value, e.critical);
        break;
      default:
        unhandled = true;
    }
    if (e.critical && unhandled) f.unhandledCritical.push(e.oid);
  }
  return f;
}
