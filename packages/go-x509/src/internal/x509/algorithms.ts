import { bytesEqual, DerReader, oidString, TAG, unsignedValue } from './der.ts';

// Go 1.19's signature and public-key algorithm tables, read from crypto/x509's x509.go and
// parser.go: which AlgorithmIdentifier maps to which algorithm, and which SubjectPublicKeyInfo
// becomes which key (or no key at all).

export type HashName = 'md5' | 'sha1' | 'sha256' | 'sha384' | 'sha512';
export type PublicKeyAlgorithm = 'RSA' | 'DSA' | 'ECDSA' | 'Ed25519';

export interface SignatureAlgorithm {
  /** Go's SignatureAlgorithm.String(). */
  readonly name: string;
  readonly publicKey: PublicKeyAlgorithm;
  /** undefined: MD2 (no usable hash) or Ed25519 (no pre-hash). */
  readonly hash: HashName | undefined;
  readonly pss: boolean;
}

const RSA = (name: string, hash: HashName | undefined): SignatureAlgorithm => ({ name, publicKey: 'RSA', hash, pss: false });

const BY_OID = new Map<string, SignatureAlgorithm>([
  ['1.2.840.113549.1.1.2', RSA('MD2-RSA', undefined)],
  ['1.2.840.113549.1.1.4', RSA('MD5-RSA', 'md5')],
  ['1.2.840.113549.1.1.5', RSA('SHA1-RSA', 'sha1')],
  ['1.3.14.3.2.29', RSA('SHA1-RSA', 'sha1')],
  ['1.2.840.113549.1.1.11', RSA('SHA256-RSA', 'sha256')],
  ['1.2.840.113549.1.1.12', RSA('SHA384-RSA', 'sha384')],
  ['1.2.840.113549.1.1.13', RSA('SHA512-RSA', 'sha512')],
  ['1.2.840.10040.4.3', { name: 'DSA-SHA1', publicKey: 'DSA', hash: 'sha1', pss: false }],
  ['2.16.840.1.101.3.4.3.2', { name: 'DSA-SHA256', publicKey: 'DSA', hash: 'sha256', pss: false }],
  ['1.2.840.10045.4.1', { name: 'ECDSA-SHA1', publicKey: 'ECDSA', hash: 'sha1', pss: false }],
  ['1.2.840.10045.4.3.2', { name: 'ECDSA-SHA256', publicKey: 'ECDSA', hash: 'sha256', pss: false }],
  ['1.2.840.10045.4.3.3', { name: 'ECDSA-SHA384', publicKey: 'ECDSA', hash: 'sha384', pss: false }],
  ['1.2.840.10045.4.3.4', { name: 'ECDSA-SHA512', publicKey: 'ECDSA', hash: 'sha512', pss: false }],
  ['1.3.101.112', { name: 'Ed25519', publicKey: 'Ed25519', hash: undefined, pss: false }],
]);

const PSS_OID = '1.2.840.113549.1.1.10';
const MGF1_OID = '1.2.840.113549.1.1.8';
const PSS_BY_HASH = new Map<string, { salt: number; algorithm: SignatureAlgorithm }>([
  ['2.16.840.1.101.3.4.2.1', { salt: 32, algorithm: { name: 'SHA256-RSAPSS', publicKey: 'RSA', hash: 'sha256', pss: true } }],
  ['2.16.840.1.101.3.4.2.2', { salt: 48, algorithm: { name: 'SHA384-RSAPSS', publicKey: 'RSA', hash: 'sha384', pss: true } }],
  ['2.16.840.1.101.3.4.2.3', { salt: 64, algorithm: { name: 'SHA512-RSAPSS', publicKey: 'RSA', hash: 'sha512', pss: true } }],
]);

const NULL_BYTES = new Uint8Array([0x05, 0x00]);

export interface AlgorithmIdentifier {
  readonly oid: string;
  /** The parameters element, header included; empty when absent. */
  readonly params: Uint8Array;
}

/** Go's parseAI over the contents of an AlgorithmIdentifier SEQUENCE (trailing data ignored, as Go does). */
export function parseAlgorithmIdentifier(body: Uint8Array): AlgorithmIdentifier | string {
  const r = new DerReader(body);
  const oid = r.readOID();
  if (oid === undefined) return 'x509: malformed OID';
  if (r.empty()) return { oid: oidString(oid), params: new Uint8Array(0) };
  const params = r.readAny();
  if (params === undefined) return 'x509: malformed parameters';
  return { oid: oidString(oid), params: params.full };
}

// encoding/asn1 reads the PSS parameters: an explicitly tagged field is present when its tag is
// next; extra elements at the end of a SEQUENCE are allowed; trailing bytes after the outer
// value are ignored.
function explicit(r: DerReader, n: number): DerReader | undefined | false {
  if (!r.peekTag(0xa0 | n)) return undefined;
  const body = r.read(0xa0 | n);
  if (body === undefined) return false;
  return new DerReader(body);
}

function readAlgorithmIdentifierValue(r: DerReader): AlgorithmIdentifier | undefined {
  const seq = r.read(TAG.SEQUENCE);
  if (seq === undefined) return undefined;
  const ai = parseAlgorithmIdentifier(seq);
  return typeof ai === 'string' ? undefined : ai;
}

function readPssParameters(params: Uint8Array): { hash: AlgorithmIdentifier; mgf: AlgorithmIdentifier; salt: bigint; trailer: bigint } | undefined {
  const outer = new DerReader(params);
  const seq = outer.read(TAG.SEQUENCE);
  if (seq === undefined) return undefined;
  const r = new DerReader(seq);
  const hashField = explicit(r, 0);
  if (!hashField) return undefined;
  const hash = readAlgorithmIdentifierValue(hashField);
  const mgfField = explicit(r, 1);
  if (!mgfField || hash === undefined) return undefined;
  const mgf = readAlgorithmIdentifierValue(mgfField);
  const saltField = explicit(r, 2);
  if (!saltField || mgf === undefined) return undefined;
  const salt = saltField.readInt64();
  if (salt === undefined) return undefined;
  let trailer = 1n;
  const trailerField = explicit(r, 3);
  if (trailerField === false) return undefined;
  if (trailerField !== undefined) {
    const t = trailerField.readInt64();
    if (t === undefined) return undefined;
    trailer = t;
  }
  return { hash, mgf, salt, trailer };
}

function nullOrAbsent(params: Uint8Array): boolean {
  return params.length === 0 || bytesEqual(params, NULL_BYTES);
}

/** Go's getSignatureAlgorithmFromAI: undefined is UnknownSignatureAlgorithm. */
export function signatureAlgorithmOf(ai: AlgorithmIdentifier): SignatureAlgorithm | undefined {
  if (ai.oid === '1.3.101.112' && ai.params.length !== 0) return undefined;
  if (ai.oid !== PSS_OID) return BY_OID.get(ai.oid);
  const p = readPssParameters(ai.params);
  if (p === undefined) return undefined;
  const mgfHash = p.mgf.params.length === 0 ? undefined : readAlgorithmIdentifierValue(new DerReader(p.mgf.params));
  if (mgfHash === undefined) return undefined;
  if (!nullOrAbsent(p.hash.params) || p.mgf.oid !== MGF1_OID || mgfHash.oid !== p.hash.oid || !nullOrAbsent(mgfHash.params) || p.trailer !== 1n) {
    return undefined;
  }
  const bucket = PSS_BY_HASH.get(p.hash.oid);
  if (bucket === undefined || BigInt(bucket.salt) !== p.salt) return undefined;
  return bucket.algorithm;
}

export type Curve = 'P-224' | 'P-256' | 'P-384' | 'P-521';

export type PublicKey =
  | { readonly kind: 'RSA'; readonly n: bigint; readonly e: bigint; readonly bits: number }
  | { readonly kind: 'ECDSA'; readonly curve: Curve; readonly x: bigint; readonly y: bigint }
  | { readonly kind: 'Ed25519'; readonly key: Uint8Array }
  | { readonly kind: 'DSA' };

const PUBLIC_KEY_OIDS = new Map<string, PublicKeyAlgorithm>([
  ['1.2.840.113549.1.1.1', 'RSA'],
  ['1.2.840.10040.4.1', 'DSA'],
  ['1.2.840.10045.2.1', 'ECDSA'],
  ['1.3.101.112', 'Ed25519'],
]);

export function publicKeyAlgorithmOf(oid: string): PublicKeyAlgorithm | undefined {
  return PUBLIC_KEY_OIDS.get(oid);
}

interface CurveParams {
  readonly p: bigint;
  readonly b: bigint;
  readonly bits: number;
}

const CURVES = new Map<string, { name: Curve; params: CurveParams }>([
  [
    '1.3.132.0.33',
    {
      name: 'P-224',
      params: {
        p: 0xffffffffffffffffffffffffffffffff000000000000000000000001n,
        b: 0xb4050a850c04b3abf54132565044b0b7d7bfd8ba270b39432355ffb4n,
        bits: 224,
      },
    },
  ],
  [
    '1.2.840.10045.3.1.7',
    {
      name: 'P-256',
      params: {
        p: 0xffffffff00000001000000000000000000000000ffffffffffffffffffffffffn,
        b: 0x5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604bn,
        bits: 256,
      },
    },
  ],
  [
    '1.3.132.0.34',
    {
      name: 'P-384',
      params: {
        p: 0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffeffffffff0000000000000000ffffffffn,
        b: 0xb3312fa7e23ee7e4988e056be3f82d19181d9c6efe8141120314088f5013875ac656398d8a2ed19d2a85c8edd3ec2aefn,
        bits: 384,
      },
    },
  ],
  [
    '1.3.132.0.35',
    {
      name: 'P-521',
      params: {
        p: (1n << 521n) - 1n,
        b: 0x0051953eb9618e1c9a1f929a21a0b68540eea2da725b99b315f3b8b489918ef109e156193951ec7e937b1652c0bd3bb1bf073573df883d2c34f1ef451fd46b503f00n,
        bits: 521,
      },
    },
  ],
]);

function mod(a: bigint, m: bigint): bigint {
  const r = a % m;
  return r < 0n ? r + m : r;
}

/** Bits of a BIT STRING moved to the right, as asn1.BitString.RightAlign does. */
export function rightAlign(bytes: Uint8Array, bitLength: number): Uint8Array {
  const shift = 8 - (bitLength % 8);
  if (shift === 8 || bytes.length === 0) return bytes;
  const out = new Uint8Array(bytes.length);
  let carry = 0;
  for (let i = 0; i < bytes.length; i++) {
    out[i] = (carry << (8 - shift)) | (bytes[i]! >> shift);
    carry = bytes[i]! & ((1 << shift) - 1);
  }
  return out;
}

function bitLength(v: bigint): number {
  return v === 0n ? 0 : v.toString(2).length;
}

/**
 * Go's parsePublicKey: the key, undefined for an algorithm Go does not know (Certificate.PublicKey
 * nil, which is not an error), or Go's error text.
 */
export function parsePublicKey(algorithm: PublicKeyAlgorithm | undefined, ai: AlgorithmIdentifier, keyBits: { bytes: Uint8Array; bitLength: number }): PublicKey | undefined | string {
  const data = rightAlign(keyBits.bytes, keyBits.bitLength);
  switch (algorithm) {
    case 'RSA': {
      if (!bytesEqual(ai.params, NULL_BYTES)) return 'x509: RSA key missing NULL parameters';
      const seq = new DerReader(data).read(TAG.SEQUENCE);
      if (seq === undefined) return 'x509: invalid RSA public key';
      const r = new DerReader(seq);
      const n = r.readBigInt();
      if (n === undefined) return 'x509: invalid RSA modulus';
      const e = r.readInt64();
      if (e === undefined) return 'x509: invalid RSA public exponent';
      if (n <= 0n) return 'x509: RSA modulus is not a positive number';
      if (e <= 0n) return 'x509: RSA public exponent is not a positive number';
      return { kind: 'RSA', n, e, bits: bitLength(n) };
    }
    case 'ECDSA': {
      const curveOid = new DerReader(ai.params).readOID();
      if (curveOid === undefined) return 'x509: invalid ECDSA parameters';
      const curve = CURVES.get(oidString(curveOid));
      if (curve === undefined) return 'x509: unsupported elliptic curve';
      // ecdsa.ParseUncompressedPublicKey (Go 1.25+): its own error texts, not wrapped by x509.
      if (data.length < 1 || data[0] !== 4) return 'ecdsa: invalid uncompressed public key';
      const point = unmarshalPoint(curve.params, data);
      if (typeof point === 'string') return point.replaceAll('Pxxx', curve.name.replace('-', ''));
      return { kind: 'ECDSA', curve: curve.name, x: point.x, y: point.y };
    }
    case 'Ed25519':
      if (ai.params.length !== 0) return 'x509: Ed25519 key encoded with illegal parameters';
      if (data.length !== 32) return 'x509: wrong Ed25519 public key size';
      return { kind: 'Ed25519', key: data };
    case 'DSA': {
      const y = new DerReader(data).readBigInt();
      if (y === undefined) return 'x509: invalid DSA public key';
      const seq = new DerReader(ai.params).read(TAG.SEQUENCE);
      const r = new DerReader(seq ?? new Uint8Array(0));
      const p = seq === undefined ? undefined : r.readBigInt();
      const q = p === undefined ? undefined : r.readBigInt();
      const g = q === undefined ? undefined : r.readBigInt();
      if (p === undefined || q === undefined || g === undefined) return 'x509: invalid DSA parameters';
      if (y <= 0n || p <= 0n || q <= 0n || g <= 0n) return 'x509: zero or negative DSA parameter';
      return { kind: 'DSA' };
    }
    default:
      return undefined;
  }
}

// nistec's SetBytes on an uncompressed point: the length, coordinates below p, on the curve; the
// texts name the curve as Pxxx, filled in by the caller.
function unmarshalPoint(c: CurveParams, data: Uint8Array): { x: bigint; y: bigint } | string {
  const byteLen = (c.bits + 7) >> 3;
  if (data.length !== 1 + 2 * byteLen) return 'invalid Pxxx point encoding';
  const x = unsignedValue(data.subarray(1, 1 + byteLen));
  const y = unsignedValue(data.subarray(1 + byteLen));
  if (x >= c.p || y >= c.p) return 'invalid PxxxElement encoding';
  const lhs = mod(y * y, c.p);
  const rhs = mod(x * x * x - 3n * x + c.b, c.p);
  return lhs === rhs ? { x, y } : 'Pxxx point not on curve';
}

/** crypto.PublicKey.Equal as alreadyInChain calls it; DSA and unknown keys have no Equal method. */
export function publicKeysEqual(a: PublicKey, b: PublicKey): boolean {
  if (a.kind === 'RSA' && b.kind === 'RSA') return a.n === b.n && a.e === b.e;
  if (a.kind === 'ECDSA' && b.kind === 'ECDSA') return a.curve === b.curve && a.x === b.x && a.y === b.y;
  if (a.kind === 'Ed25519' && b.kind === 'Ed25519') return bytesEqual(a.key, b.key);
  return false;
}

/** Go's %T of Certificate.PublicKey, for error texts. */
export function goKeyType(key: PublicKey | undefined): string {
  switch (key?.kind) {
    case 'RSA':
      return '*rsa.PublicKey';
    case 'ECDSA':
      return '*ecdsa.PublicKey';
    case 'Ed25519':
      return 'ed25519.PublicKey';
    case 'DSA':
      return '*dsa.PublicKey';
    default:
      return '<nil>';
  }
}
