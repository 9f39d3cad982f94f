import { createSecureContext, type SecureContextOptions, type TlsOptions } from 'node:tls';
import type { TlsCredentials } from './credentials.ts';

/**
 * Fabric's TLS 1.2 suites, in Fabric's order (OpenSSL names): only AEAD, forward-secret
 * ECDHE first, then the two RSA key-exchange suites Go still offers.
 */
export const FABRIC_TLS12_CIPHERS: readonly string[] = [
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'AES128-GCM-SHA256',
  'AES256-GCM-SHA384',
];

/**
 * Go's three TLS 1.3 suites. Listed explicitly because Node caps the protocol at TLS 1.2
 * when a `ciphers` string names no TLS 1.3 suite.
 */
export const TLS13_CIPHERS: readonly string[] = ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256'];

/**
 * Go 1.26's handshake signature algorithms (crypto/tls defaultSupportedSignatureAlgorithms), in
 * its order, as OpenSSL names them, without the two SHA-1 ones: Go 1.25 stopped accepting SHA-1
 * in TLS 1.2 (GODEBUG tlssha1, unset in Fabric), so a client's TLS 1.2 CertificateVerify signed
 * with SHA-1 is refused and SHA-1 is not offered in the CertificateRequest. TLS 1.3 leaves out
 * PKCS#1 v1.5 by itself, as Go does.
 */
export const GO_SIGNATURE_ALGORITHMS: readonly string[] = [
  'rsa_pss_rsae_sha256',
  'ecdsa_secp256r1_sha256',
  'ed25519',
  'rsa_pss_rsae_sha384',
  'rsa_pss_rsae_sha512',
  'rsa_pkcs1_sha256',
  'rsa_pkcs1_sha384',
  'rsa_pkcs1_sha512',
  'ecdsa_secp384r1_sha384',
  'ecdsa_secp521r1_sha512',
];

/** Go 1.26's key-exchange groups (crypto/tls defaultCurvePreferences), in its order, as OpenSSL names them. */
export const GO_KEY_EXCHANGE_GROUPS: readonly string[] = ['X25519MLKEM768', 'SecP256r1MLKEM768', 'SecP384r1MLKEM1024', 'X25519', 'P-256', 'P-384', 'P-521'];

let availableGroups: string | undefined;
/**
 * Go's groups that this Node's OpenSSL has, in Go's order. OpenSSL 3.0 (Node 20) has no ML-KEM
 * hybrids, and naming a group it lacks fails the whole list, so each is tried on its own once.
 */
export function keyExchangeGroups(): string {
  availableGroups ??= GO_KEY_EXCHANGE_GROUPS.filter((group) => {
    try {
      createSecureContext({ ecdhCurve: group });
      return true;
    } catch {
      return false;
    }
  }).join(':');
  return availableGroups;
}

/** What `setSecureContext` accepts: everything tied to the credentials and the protocol. */
export function secureContextOptions(credentials: TlsCredentials): SecureContextOptions {
  return {
    cert: credentials.cert,
    key: credentials.key,
    // An empty list must stay a list: `undefined` would make Node trust its public roots.
    ca: [...credentials.ca],
    minVersion: 'TLSv1.2',
    ciphers: [...TLS13_CIPHERS, ...FABRIC_TLS12_CIPHERS].join(':'),
    honorCipherOrder: true,
    sigalgs: GO_SIGNATURE_ALGORITHMS.join(':'),
    ecdhCurve: keyExchangeGroups(),
  };
}

/**
 * Options for `https.createServer`. A client certificate is always requested, and OpenSSL never
 * refuses one by itself: the decision is Go's, made by `createTlsServer` once the handshake is
 * done (OpenSSL's own checks disagree with Go's; see x509/). Never use these
 * options without that check.
 */
export function tlsServerOptions(credentials: TlsCredentials, handshakeTimeoutMs: number): TlsOptions {
  return {
    ...secureContextOptions(credentials),
    ALPNProtocols: ['http/1.1'],
    requestCert: true,
    rejectUnauthorized: false,
    handshakeTimeout: handshakeTimeoutMs,
  };
}
