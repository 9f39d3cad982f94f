import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { explicit, int, nul, oid, pssAlgorithm, seq } from '../../../test/x509-fixtures.ts';
import { parseAlgorithmIdentifier, signatureAlgorithmOf, type AlgorithmIdentifier } from './algorithms.ts';
import { checkSignature } from './signature.ts';

function ai(der: Uint8Array): AlgorithmIdentifier {
  const parsed = parseAlgorithmIdentifier(der.subarray(2));
  if (typeof parsed === 'string') throw new Error(parsed);
  return parsed;
}

const sha256 = seq(oid('2.16.840.1.101.3.4.2.1'), nul());
const sha256Bare = seq(oid('2.16.840.1.101.3.4.2.1'));
const mgf1 = (hash: Uint8Array): Uint8Array => seq(oid('1.2.840.113549.1.1.8'), hash);
const pss = (...fields: Uint8Array[]): Uint8Array => seq(oid('1.2.840.113549.1.1.10'), seq(...fields));

describe("signature AlgorithmIdentifiers as Go 1.19's getSignatureAlgorithmFromAI maps them", () => {
  it.each([
    ['ECDSA-SHA256', seq(oid('1.2.840.10045.4.3.2')), 'ECDSA-SHA256'],
    ['SHA256-RSA', seq(oid('1.2.840.113549.1.1.11'), nul()), 'SHA256-RSA'],
    ['SHA1-RSA by its ISO OID', seq(oid('1.3.14.3.2.29')), 'SHA1-RSA'],
    ['Ed25519', seq(oid('1.3.101.112')), 'Ed25519'],
    ['Ed25519 with NULL parameters', seq(oid('1.3.101.112'), nul()), undefined],
    ['PSS SHA-256 salt 32', pssAlgorithm(32), 'SHA256-RSAPSS'],
    ['PSS salt 20', pssAlgorithm(20), undefined],
    ['PSS hash without NULL', pss(explicit(0, sha256Bare), explicit(1, mgf1(sha256Bare)), explicit(2, int(32))), 'SHA256-RSAPSS'],
    ['PSS with an explicit trailer 1', pss(explicit(0, sha256), explicit(1, mgf1(sha256)), explicit(2, int(32)), explicit(3, int(1))), 'SHA256-RSAPSS'],
    ['PSS with trailer 2', pss(explicit(0, sha256), explicit(1, mgf1(sha256)), explicit(2, int(32)), explicit(3, int(2))), undefined],
    ['PSS with MGF1 over another hash', pss(explicit(0, sha256), explicit(1, mgf1(seq(oid('2.16.840.1.101.3.4.2.2')))), explicit(2, int(32))), undefined],
    ['PSS without parameters', seq(oid('1.2.840.113549.1.1.10')), undefined],
    ['PSS with default (absent) hash', pss(explicit(2, int(32))), undefined],
    ['an unknown OID', seq(oid('1.2.3.4')), undefined],
  ] as const)('%s', (_name, der, name) => {
    expect(signatureAlgorithmOf(ai(der))?.name).toBe(name);
  });
});

describe('checkSignature refuses what Go refuses before any arithmetic', () => {
  const data = Buffer.from('tbs');
  it.each([
    ['SHA1-RSA', 'x509: cannot verify signature: insecure algorithm SHA1-RSA'],
    ['MD5-RSA', 'x509: cannot verify signature: insecure algorithm MD5-RSA'],
    ['MD2-RSA', 'x509: cannot verify signature: algorithm unimplemented'],
  ] as const)('%s', (name, error) => {
    const algorithm = { name, publicKey: 'RSA' as const, hash: name === 'SHA1-RSA' ? ('sha1' as const) : name === 'MD5-RSA' ? ('md5' as const) : undefined, pss: false };
    expect(checkSignature(algorithm, data, new Uint8Array(1), { kind: 'RSA', n: 3233n, e: 17n, bits: 12 })).toBe(error);
  });

  it('verifies RSA inside the range OpenSSL shares with Go, and refuses a signature value not below n as Go 1.26 does', () => {
    const algorithm = signatureAlgorithmOf(ai(seq(oid('1.2.840.113549.1.1.11'), nul())))!;
    // A modulus well below 2^1024 leaves room for s + n in 128 bytes.
    let privateKey;
    let n = 0n;
    do {
      const pair = generateKeyPairSync('rsa', { modulusLength: 1024 });
      privateKey = pair.privateKey;
      n = BigInt(`0x${Buffer.from(pair.publicKey.export({ format: 'jwk' }).n!, 'base64url').toString('hex')}`);
    } while (n >= 3n << 1022n);
    const key = { kind: 'RSA' as const, n, e: 65537n, bits: 1024 };
    let signed = Buffer.from('tbs');
    let signature = new Uint8Array(sign('sha256', signed, privateKey));
    for (let i = 0; BigInt(`0x${Buffer.from(signature).toString('hex')}`) + n >= 1n << 1024n; i++) {
      signed = Buffer.from(`tbs${i}`);
      signature = new Uint8Array(sign('sha256', signed, privateKey));
    }
    expect(checkSignature(algorithm, signed, signature, key)).toBeUndefined();
    const shifted = Uint8Array.from(Buffer.from((BigInt(`0x${Buffer.from(signature).toString('hex')}`) + n).toString(16).padStart(256, '0'), 'hex'));
    // Go 1.19 reduced s + n modulo n and accepted it; Go 1.26 (bigmod) refuses a value not below n.
    expect(checkSignature(algorithm, signed, shifted, key)).toBe('crypto/rsa: verification error');
    expect(checkSignature(algorithm, signed, signature.subarray(1), key)).toBe('crypto/rsa: verification error');
    shifted[127] = shifted[127]! ^ 1;
    expect(checkSignature(algorithm, signed, shifted, key)).toBe('crypto/rsa: verification error');
  });

  it('refuses RSA keys crypto/rsa refuses (Go 1.24+) and moduli OpenSSL cannot verify with (over 16384 bits)', () => {
    const algorithm = signatureAlgorithmOf(ai(seq(oid('1.2.840.113549.1.1.11'), nul())))!;
    const big = (1n << 16400n) + 1n;
    expect(checkSignature(algorithm, data, new Uint8Array(2051), { kind: 'RSA', n: big, e: 65537n, bits: 16401 })).toBe('crypto/rsa: verification error');
    const n1024 = (1n << 1023n) + 1n;
    expect(checkSignature(algorithm, data, new Uint8Array(128), { kind: 'RSA', n: 1n << 1023n, e: 65537n, bits: 1024 })).toBe('crypto/rsa: public modulus is even');
    expect(checkSignature(algorithm, data, new Uint8Array(128), { kind: 'RSA', n: n1024, e: 65536n, bits: 1024 })).toBe('crypto/rsa: public exponent is even');
    expect(checkSignature(algorithm, data, new Uint8Array(128), { kind: 'RSA', n: n1024, e: 1n, bits: 1024 })).toBe('crypto/rsa: public exponent too small or negative');
    expect(checkSignature(algorithm, data, new Uint8Array(128), { kind: 'RSA', n: n1024, e: (1n << 31n) | 1n, bits: 1024 })).toBe('crypto/rsa: public exponent too large');
    expect(checkSignature(algorithm, data, new Uint8Array(64), { kind: 'RSA', n: (1n << 511n) + 1n, e: 65537n, bits: 512 })).toBe(
      'crypto/rsa: 512-bit keys are insecure (see https://go.dev/pkg/crypto/rsa#hdr-Minimum_key_size)',
    );
  });
});
