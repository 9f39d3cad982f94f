import { constants, createPublicKey, verify as cryptoVerify, type KeyObject } from 'node:crypto';
import { goKeyType, type PublicKey, type SignatureAlgorithm } from './algorithms.ts';
import { KEY_USAGE_CERT_SIGN, type Certificate } from './certificate.ts';

// Certificate.CheckSignatureFrom of Go 1.19 with node:crypto doing the arithmetic. Where OpenSSL
// cannot reproduce Go's arithmetic (RSA moduli over 16384 bits, even or under 512 bits, an
// exponent OpenSSL refuses), the check fails: Go might accept such a signature, so this is a
// documented refusal, never an admission Go would not make.

export const ERR_UNSUPPORTED = 'x509: cannot verify signature: algorithm unimplemented';
export const ERR_CONSTRAINT = 'x509: invalid signature: parent certificate cannot sign this kind of certificate';
const ERR_RSA_VERIFY = 'crypto/rsa: verification error';

const MAX_OPENSSL_RSA_BITS = 16384;

const keyObjects = new WeakMap<PublicKey, KeyObject | null>();

function b64url(v: bigint, length?: number): string {
  let hex = v.toString(16);
  if (hex.length % 2 === 1) hex = `0${hex}`;
  let buf = Buffer.from(hex, 'hex');
  if (length !== undefined && buf.length < length) buf = Buffer.concat([Buffer.alloc(length - buf.length), buf]);
  return buf.toString('base64url');
}

const CURVE_BYTES = { 'P-224': 28, 'P-256': 32, 'P-384': 48, 'P-521': 66 } as const;
// id-ecPublicKey followed by the named curve, as DER OIDs (JWK import has no P-224).
const CURVE_ALGORITHM_IDS = {
  'P-224': '301006072a8648ce3d020106052b81040021',
  'P-256': '301306072a8648ce3d020106082a8648ce3d030107',
  'P-384': '301006072a8648ce3d020106052b81040022',
  'P-521': '301006072a8648ce3d020106052b81040023',
} as const;

function derLength(n: number): Buffer {
  if (n < 128) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function ecSpki(curve: keyof typeof CURVE_BYTES, x: bigint, y: bigint): Buffer {
  const len = CURVE_BYTES[curve];
  const point = Buffer.from(`00${'04'}${x.toString(16).padStart(len * 2, '0')}${y.toString(16).padStart(len * 2, '0')}`, 'hex');
  const bitString = Buffer.concat([Buffer.from([0x03]), derLength(point.length), point]);
  const body = Buffer.concat([Buffer.from(CURVE_ALGORITHM_IDS[curve], 'hex'), bitString]);
  return Buffer.concat([Buffer.from([0x30]), derLength(body.length), body]);
}

function keyObjectOf(key: PublicKey): KeyObject | null {
  let ko = keyObjects.get(key);
  if (ko !== undefined) return ko;
  try {
    switch (key.kind) {
      case 'RSA':
        ko = createPublicKey({ key: { kty: 'RSA', n: b64url(key.n), e: b64url(key.e) }, format: 'jwk' });
        break;
      case 'ECDSA':
        ko = createPublicKey({ key: ecSpki(key.curve, key.x, key.y), format: 'der', type: 'spki' });
        break;
      case 'Ed25519':
        ko = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(key.key).toString('base64url') }, format: 'jwk' });
        break;
      default:
        ko = null;
    }
  } catch {
    ko = null;
  }
  keyObjects.set(key, ko);
  return ko;
}

function insecure(algorithm: SignatureAlgorithm): string {
  const override = algorithm.name === 'SHA1-RSA' || algorithm.name === 'ECDSA-SHA1' ? ' (temporarily override with GODEBUG=x509sha1=1)' : '';
  return `x509: cannot verify signature: insecure algorithm ${algorithm.name}${override}`;
}

function mismatch(expected: string, key: PublicKey): string {
  return `x509: signature algorithm specifies an ${expected} public key, but have public key of type ${goKeyType(key)}`;
}

function unsigned(bytes: Uint8Array): bigint {
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  return v;
}

// OpenSSL computes exactly what Go does inside this domain; outside it the check is refused.
function rsaWithinOpenSsl(key: { n: bigint; e: bigint; bits: number }, signature: Uint8Array): boolean {
  if (key.bits > MAX_OPENSSL_RSA_BITS || key.bits < 512 || (key.n & 1n) === 0n) return false;
  if (key.e < 3n || key.e >= key.n) return false;
  if (key.bits > 3072 && key.e >= 1n << 64n) return false;
  return signature.length === (key.bits + 7) >> 3;
}

// Go raises the signature value to e modulo n without first requiring it to be below n;
// OpenSSL refuses such a value. Reducing it first gives OpenSSL the very number Go computes with.
function reducedSignature(n: bigint, signature: Uint8Array): Uint8Array {
  const s = unsigned(signature);
  if (s < n) return signature;
  return Uint8Array.from(Buffer.from((s % n).toString(16).padStart(signature.length * 2, '0'), 'hex'));
}

/** Go's checkSignature(algo, signed, signature, publicKey, allowSHA1=false); undefined is success. */
export function checkSignature(
  algorithm: SignatureAlgorithm | undefined,
  signed: Uint8Array,
  signature: Uint8Array,
  key: PublicKey | undefined,
): string | undefined {
  if (algorithm === undefined) return ERR_UNSUPPORTED;
  if (algorithm.hash === undefined && algorithm.publicKey !== 'Ed25519') return ERR_UNSUPPORTED;
  if (algorithm.hash === 'md5' || algorithm.hash === 'sha1') return insecure(algorithm);
  if (key === undefined) return ERR_UNSUPPORTED;
  switch (key.kind) {
    case 'RSA': {
      if (algorithm.publicKey !== 'RSA') return mismatch(algorithm.publicKey, key);
      if (!rsaWithinOpenSsl(key, signature)) return ERR_RSA_VERIFY;
      const ko = keyObjectOf(key);
      if (ko === null) return ERR_RSA_VERIFY;
      const options = algorithm.pss
        ? { key: ko, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: hashLength(algorithm.hash!) }
        : { key: ko, padding: constants.RSA_PKCS1_PADDING };
      return safeVerify(algorithm.hash!, signed, options, reducedSignature(key.n, signature)) ? undefined : ERR_RSA_VERIFY;
    }
    case 'ECDSA': {
      if (algorithm.publicKey !== 'ECDSA') return mismatch(algorithm.publicKey, key);
      const ko = keyObjectOf(key);
      if (ko === null || !safeVerify(algorithm.hash!, signed, { key: ko, dsaEncoding: 'der' as const }, signature)) {
        return 'x509: ECDSA verification failure';
      }
      return undefined;
    }
    case 'Ed25519': {
      if (algorithm.publicKey !== 'Ed25519') return mismatch(algorithm.publicKey, key);
      const ko = keyObjectOf(key);
      if (ko === null || !safeVerify(null, signed, ko, signature)) return 'x509: Ed25519 verification failure';
      return undefined;
    }
    default:
      return ERR_UNSUPPORTED;
  }
}

function hashLength(hash: string): number {
  return hash === 'sha256' ? 32 : hash === 'sha384' ? 48 : 64;
}

function safeVerify(
  hash: string | null,
  data: Uint8Array,
  key: Parameters<typeof cryptoVerify>[2],
  signature: Uint8Array,
): boolean {
  try {
    return cryptoVerify(hash, data, key, signature);
  } catch {
    return false;
  }
}

/** Certificate.CheckSignatureFrom: undefined when `parent` signed `child`, else Go's error text. */
export function checkSignatureFrom(child: Certificate, parent: Certificate): string | undefined {
  if ((parent.version === 3 && !parent.basicConstraintsValid) || (parent.basicConstraintsValid && !parent.isCA)) {
    return ERR_CONSTRAINT;
  }
  if (parent.keyUsage !== 0 && (parent.keyUsage & KEY_USAGE_CERT_SIGN) === 0) return ERR_CONSTRAINT;
  if (parent.publicKeyAlgorithm === undefined) return ERR_UNSUPPORTED;
  return checkSignature(child.signatureAlgorithm, child.rawTBS, child.signature, parent.publicKey);
}
