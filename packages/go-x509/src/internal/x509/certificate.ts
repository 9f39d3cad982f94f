import { parseAlgorithmIdentifier, parsePublicKey, rightAlign, publicKeyAlgorithmOf, signatureAlgorithmOf, type PublicKey, type PublicKeyAlgorithm, type SignatureAlgorithm } from './algorithms.ts';
import { bytesEqual, ctx, ctxc, DerReader, oidString, parseGeneralizedTime, parseUTCTime, TAG, type GoTime } from './der.ts';
import { processExtensions, type Extension, type ExtensionFacts } from './extensions.ts';
import { nameSummary, parseName, type Attribute } from './name.ts';
import { fail, ParseError } from './parse-error.ts';
import { goQuote } from './quote.ts';

// x509.ParseCertificate of Go 1.26 (crypto/x509/parser.go): the same fields read with the same
// strictness and the same error texts. Only what verification needs is kept; the extensions are
// read in extensions.ts.

export type { Extension, NameConstraints, PolicyMapping, SubjectAltNames } from './extensions.ts';
export { KEY_USAGE_CERT_SIGN, NAME_CONSTRAINTS_OID, SAN_OID } from './extensions.ts';

export interface Certificate extends Readonly<ExtensionFacts> {
  readonly raw: Uint8Array;
  readonly rawTBS: Uint8Array;
  readonly rawIssuer: Uint8Array;
  readonly rawSubject: Uint8Array;
  /** The SubjectPublicKeyInfo element: Go compares keys by these bytes when building chains. */
  readonly rawSubjectPublicKeyInfo: Uint8Array;
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

/** The issuer or the subject Name: its element and its attributes. Go says "malformed issuer" for either. */
function readName(tbs: DerReader): { readonly raw: Uint8Array; readonly attributes: Attribute[] } {
  const raw = tbs.readElement(TAG.SEQUENCE);
  if (raw === undefined) fail('x509: malformed issuer');
  const attributes = parseName(raw);
  if (typeof attributes === 'string') fail(attributes);
  return { raw, attributes };
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
  // Go 1.23 (GODEBUG x509negativeserial, unset in Fabric): a negative serial number fails to parse.
  if (serial < 0n) fail('x509: negative serial number');

  const sigAI = tbs.read(TAG.SEQUENCE);
  if (sigAI === undefined) fail('x509: malformed signature algorithm identifier');
  const outerSigAI = input.read(TAG.SEQUENCE);
  if (outerSigAI === undefined) fail('x509: malformed algorithm identifier');
  if (!bytesEqual(outerSigAI, sigAI)) fail("x509: inner and outer signature algorithm identifiers don't match");
  const ai = parseAlgorithmIdentifier(sigAI);
  if (typeof ai === 'string') fail(ai);
  const signatureAlgorithm = signatureAlgorithmOf(ai);

  const { raw: rawIssuer } = readName(tbs);

  const validity = tbs.read(TAG.SEQUENCE);
  if (validity === undefined) fail('x509: malformed validity');
  const vr = new DerReader(validity);
  const notBefore = parseTime(vr);
  const notAfter = parseTime(vr);

  const { raw: rawSubject, attributes: subject } = readName(tbs);

  const spkiElement = tbs.readElement(TAG.SEQUENCE);
  if (spkiElement === undefined) fail('x509: malformed spki');
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
  // An unknown key algorithm leaves the key unparsed (nil in Go).
  const publicKey = publicKeyAlgorithm === undefined ? undefined : parsePublicKey(publicKeyAlgorithm, pkAI, keyBits);
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
          if (seen.has(ext.oid)) fail(`x509: certificate contains duplicate extension with OID ${goQuote(ext.oid)}`);
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
    rawSubjectPublicKeyInfo: spkiElement,
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
