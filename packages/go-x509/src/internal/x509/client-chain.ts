import { appendCertsFromPemSteps, CertPool, type SkippedBlock } from './pool.ts';
import type { Certificate } from './certificate.ts';
import { rsaKeyProblem } from './signature.ts';
import { nextValidityChange, OverLimits, verifyPresented, type ClientChainVerdict, type SignatureLimits } from './verify.ts';

export type { ClientChainVerdict, SignatureLimits };

/** A verdict and the first moment it may stop holding. */
export interface TimedClientChainVerdict {
  readonly verdict: ClientChainVerdict;
  /**
   * The first instant (ms since the epoch) after `now` at which a certificate the client sent,
   * or one the pool holds, begins or ends its validity period, as Go's parser reads the dates;
   * undefined when there is none ahead. Until then the same list gets the same verdict from the
   * same pool.
   */
  readonly changesAt: number | undefined;
}

/** The client CA files as Go's CertPool holds them: every certificate Go can parse is an anchor. */
export interface ClientTrustPool {
  /** Distinct certificates held (by DER), as CertPool counts them. */
  readonly size: number;
  /** PEM blocks Go's AppendCertsFromPEM passes over, by index of the file they came from. */
  readonly skipped: readonly { readonly file: number; readonly reason: string }[];
}

const pools = new WeakMap<ClientTrustPool, CertPool>();

/**
 * Builds the trust pool from the text of each client-CA file (one entry per file), with
 * x509.CertPool.AppendCertsFromPEM's rules: blocks of type CERTIFICATE without headers, parsed
 * by Go's parser; blocks it cannot use are skipped and listed, never fatal.
 */
export function createClientTrustPool(pemTexts: readonly string[]): ClientTrustPool {
  const steps = clientTrustPoolSteps(pemTexts);
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}

/**
 * `createClientTrustPool` one PEM block at a time: each `next()` reads one block, the last returns
 * the pool. A caller on an event loop builds a large pool in slices between other work; nothing
 * can use the pool before it is complete.
 */
export function* clientTrustPoolSteps(pemTexts: readonly string[]): Generator<void, ClientTrustPool> {
  const pool = new CertPool();
  const skipped: SkippedBlock[] = [];
  for (const [file, text] of pemTexts.entries()) yield* appendCertsFromPemSteps(pool, text, file, skipped);
  const handle: ClientTrustPool = Object.freeze({ size: pool.length, skipped: Object.freeze(skipped) });
  pools.set(handle, pool);
  return handle;
}

/**
 * Decides, as a Go 1.26.4 crypto/tls server with these client CAs does (Fabric v2.5.16, v3.1.5), whether a client that sent
 * `presented` (leaf first, then every other certificate exactly as sent) is admitted. Pure and
 * synchronous; its cost is bounded by Go's own limit of 100 candidates per chain search.
 */
export function verifyClientChain(presented: readonly Uint8Array[], pool: ClientTrustPool, now: Date = new Date()): ClientChainVerdict {
  const certPool = pools.get(pool);
  if (certPool === undefined) throw new TypeError('verifyClientChain: the pool was not made by createClientTrustPool');
  const parsed: Certificate[] = [];
  return afterChain(verifyPresented(presented, certPool, now.getTime(), parsed), parsed);
}

/**
 * `verifyClientChain`, and when its verdict may change: for a caller that remembers verdicts
 * (a cache keyed by the list the client sent). The certificates are parsed once, for both.
 */
export function verifyClientChainUntil(presented: readonly Uint8Array[], pool: ClientTrustPool, now: Date = new Date()): TimedClientChainVerdict {
  const certPool = pools.get(pool);
  if (certPool === undefined) throw new TypeError('verifyClientChainUntil: the pool was not made by createClientTrustPool');
  return timedVerdict(presented, certPool, now.getTime(), undefined);
}

/**
 * `verifyClientChainUntil` for a caller that can decide elsewhere (a worker thread) and wants
 * only the cheap verdicts here: undefined as soon as deciding would verify more signatures than
 * `limits.maxSignatureChecks`, or one with an RSA key over `limits.maxRsaBits`. Any verdict it
 * gives is the one `verifyClientChainUntil` gives. The certificates sent are parsed in any case,
 * so the caller bounds their size.
 */
export function verifyClientChainWithin(presented: readonly Uint8Array[], pool: ClientTrustPool, limits: SignatureLimits, now: Date = new Date()): TimedClientChainVerdict | undefined {
  const certPool = pools.get(pool);
  if (certPool === undefined) throw new TypeError('verifyClientChainWithin: the pool was not made by createClientTrustPool');
  try {
    return timedVerdict(presented, certPool, now.getTime(), limits);
  } catch (error) {
    if (error instanceof OverLimits) return undefined;
    throw error;
  }
}

/**
 * What crypto/tls checks after the chain: the client's CertificateVerify, signed with the
 * leaf's key. OpenSSL has checked that signature already; Go's check (rsa.VerifyPKCS1v15 and
 * rsa.VerifyPSS, at TLS 1.2 and 1.3 alike) also refuses the key itself before any arithmetic:
 * under 1,024 bits (crypto/rsa's checkPublicKeySize, GODEBUG rsa1024min unset), an even modulus,
 * an exponent that is even, under 2 or over 2^31 - 1 (checkPublicKey), all of which Go's x509
 * parser admits in a leaf.
 */
function afterChain(verdict: ClientChainVerdict, parsed: readonly Certificate[]): ClientChainVerdict {
  const key = parsed[0]?.publicKey;
  if (!verdict.accept || key?.kind !== 'RSA') return verdict;
  const problem = rsaKeyProblem(key);
  return problem === undefined ? verdict : { accept: false, reason: `tls: invalid signature by the client certificate: ${problem}` };
}

function timedVerdict(presented: readonly Uint8Array[], certPool: CertPool, nowMs: number, limits: SignatureLimits | undefined): TimedClientChainVerdict {
  const parsed: Certificate[] = [];
  const verdict = afterChain(verifyPresented(presented, certPool, nowMs, parsed, limits), parsed);
  const sent = nextValidityChange(parsed, nowMs);
  const held = nextValidityChange(certPool.certificates(), nowMs);
  return { verdict, changesAt: sent === undefined || (held !== undefined && held < sent) ? held : sent };
}
