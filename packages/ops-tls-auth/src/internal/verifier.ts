// The one place the TLS server's worker takes its verifier from. Interim: adapts the previous
// verifier to the x509 contract (createClientTrustPool / verifyClientChain) until the Go-exact
// one lands; the worker and the server only see this contract.
import { X509Certificate } from 'node:crypto';
import { createTrustPool, verifyClientCertificate, type TrustPool } from './verify-client.ts';

export type ClientTrustPool = TrustPool;
export type ChainVerdict = { accept: true } | { accept: false; reason: string };

export function createClientTrustPool(pemTexts: readonly string[]): ClientTrustPool {
  return createTrustPool(pemTexts);
}

export function verifyClientChain(presented: readonly Uint8Array[], pool: ClientTrustPool, now?: Date): ChainVerdict {
  try {
    const [leaf, ...rest] = presented.map((der) => new X509Certificate(der));
    if (leaf === undefined) return { accept: false, reason: 'x509: no certificate' };
    return verifyClientCertificate(leaf, rest, pool, now);
  } catch {
    return { accept: false, reason: 'x509: malformed certificate' };
  }
}
