import { constants, createPublicKey, verify as cryptoVerify, type KeyObject } from 'node:crypto';
import { goKeyType, type PublicKey, type SignatureAlgorithm } from './algorithms.ts';
import { KEY_USAGE_CERT_SIGN, type Certificate } from './certificate.ts';

// Certificate.CheckSignatureFrom of Go 1.26 with node:crypto doing the arithmetic. crypto/rsa's own
// key checks come first, as Go runs them; past them OpenSSL computes what Go does, except for RSA
// moduli over 16,384 bits, where the check fails: a documented refusal, never an admission Go would
// not make.

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
  return `x509: cannot verify signature: insecure algorithm ${algorithm.name}`;
}

function mismatch(expected: string, key: PublicKey): string {
  return `x509: signature algorithm specifies an ${expected} public key, but have public key of type ${goKeyType(key)}`;
}

function unsigned(bytes: Uint8Array): bigint {
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  return v;
}

/**
 * crypto/rsa's checks on a public key before it verifies anything (Go 1.24+): at least 1,024 bits,
 * an odd modulus, an odd exponent from 3 to 2^31 - 1. Undefined when the key passes, else Go's text.
 */
export function rsaKeyProblem(key: { n: bigint; e: bigint; bits: number }): string | undefined {
  if (key.bits < 1024) return `crypto/rsa: ${key.bits}-bit keys are insecure (see https://go.dev/pkg/crypto/rsa#hdr-Minimum_key_size)`;
  if ((key.n & 1n) === 0n) return 'crypto/rsa: public modulus is even';
  if (key.e < 2n) return 'crypto/rsa: public exponent too small or negative';
  if ((key.e & 1n) === 0n) return 'crypto/rsa: public exponent is even';
  if (key.e > 0x7fffffffn) return 'crypto/rsa: public exponent too large';
  return undefined;
}

// Go refuses a signature that is not exactly the modulus's length or not below the modulus;
// OpenSSL refuses the same. Past 16,384 bits OpenSSL refuses what Go would compute: a refusal Go
// might not make (only a CA-file key can be that large: crypto/tls refuses a sent one over 8,192).
function rsaSignatureUsable(key: { n: bigint; bits: number }, signature: Uint8Array): boolean {
  if (key.bits > MAX_OPENSSL_RSA_BITS) return false;
  return signature.length === (key.bits + 7) >> 3 && unsigned(signature) < key.n;
}

/** Go's checkSignature(algo, signed, signature, publicKey, allowSHA1=false); undefined is success. */
export function checkSignature(algorithm: SignatureAlgorithm | undefined, signed: Uint8Array, signature: Uint8Array, key: PublicKey | undefined): string | undefined {
  if (algorithm === undefined) return ERR_UNSUPPORTED;
  if (algorithm.hash === undefined && algorithm.publicKey !== 'Ed25519') return ERR_UNSUPPORTED;
  if (algorithm.hash === 'md5' || algorithm.hash === 'sha1') return insecure(algorithm);
  if (key === undefined) return ERR_UNSUPPORTED;
  switch (key.kind) {
    case 'RSA': {
      if (algorithm.publicKey !== 'RSA') return mismatch(algorithm.publicKey, key);
      const keyProblem = rsaKeyProblem(key);
      if (keyProblem !== undefined) return keyProblem;
      if (!rsaSignatureUsable(key, signature)) return ERR_RSA_VERIFY;
      const ko = keyObjectOf(key);
      if (ko === null) return ERR_RSA_VERIFY;
      const options = algorithm.pss ? { key: ko, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: hashLength(algorithm.hash!) } : { key: ko, padding: constants.RSA_PKCS1_PADDING };
      return safeVerify(algorithm.hash!, signed, options, signature) ? undefined : ERR_RSA_VERIFY;
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

function safeVerify(hash: string | null, data: Uint8Array, key: Parameters<typeof cryptoVerify>[2], signature: Uint8Array): boolean {
  try {
    return cryptoVerify(hash, data, key, signature);
  } catch {
    return false;
  }
}

/**
 * What CheckSignatureFrom refuses before any arithmetic: a parent that may not sign certificates,
 * or whose key algorithm is unknown. Undefined when the signature itself decides.
 */
export function parentCannotSign(parent: Certificate): string | undefined {
  if ((parent.version === 3 && !parent.basicConstraintsValid) || (parent.basicConstraintsValid && !parent.isCA)) {
    return ERR_CONSTRAINT;
  }
  if (parent.keyUsage !== 0 && (parent.keyUsage & KEY_USAGE_CERT_SIGN) === 0) return ERR_CONSTRAINT;
  if (parent.publicKeyAlgorithm === undefined) return ERR_UNSUPPORTED;
  return undefined;
}

/**
 * Certificate.CheckSignatureFrom: undefined when `parent` signed `child`, else Go's error text.
 * Past parentCannotSign, the answer depends on the child and the parent's SubjectPublicKeyInfo
 * alone (its key and algorithm are both read from those bytes).
 */
export function checkSignatureFrom(child: Certificate, parent: Certificate): string | undefined {
  return parentCannotSign(parent) ?? checkSignature(child.signatureAlgorithm, child.rawTBS, child.signature, parent.publicKey);
}
