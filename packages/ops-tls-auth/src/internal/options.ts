import type { SecureContextOptions, TlsOptions } from 'node:tls';
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
