import { goKeyType } from './algorithms.ts';
import { parseCertificate, SAN_OID, type Certificate } from './certificate.ts';
import { checkChainConstraints } from './constraints.ts';
import { bytesEqual, formatRfc3339 } from './der.ts';
import { policiesValid } from './policies.ts';
import { CertPool } from './pool.ts';
import { goQuote } from './quote.ts';
import { checkSignatureFrom, parentCannotSign } from './signature.ts';

// Certificate.Verify of Go 1.26 with the options crypto/tls gives it for a client certificate
// (roots = ClientCAs, intermediates = every other certificate the client sent, KeyUsages =
// [clientAuth]), and processCertsFromClient around it. The search below follows verify.go's
// buildChains step for step, including the order candidates are tried in, the shared budget of
// 100 candidates considered (counted before any other work, as since Go 1.26.2: CVE-2026-32280),
// and which error survives when no chain is found; then every chain found is checked for its
// policy graph, clientAuth and name constraints, as Verify does.

const MAX_SIGNATURE_CHECKS = 100;

/** crypto/tls's limit on an RSA key in any certificate the client sends (GODEBUG tlsmaxrsasize unset). */
export const MAX_RSA_KEY_BITS = 8192;

const CertType = { Leaf: 0, Intermediate: 1, Root: 2 } as const;
type CertType = (typeof CertType)[keyof typeof CertType];

const ERR = {
  unhandledCritical: 'x509: unhandled critical extension',
  nameMismatch: 'x509: issuer name does not match subject from issuing certificate',
  notAuthorizedToSign: 'x509: certificate is not authorized to sign other certificates',
  tooManyIntermediates: 'x509: too many intermediates for path length constraint',
  incompatibleUsage: 'x509: certificate specifies an incompatible key usage',
  sigLimit: 'x509: signature check attempts limit reached while verifying certificate chain',
} as const;

function formatNow(ms: number): string {
  return formatRfc3339({ ms: Math.floor(ms / 1000) * 1000, offsetMinutes: 0 });
}

function isValid(c: Certificate, certType: CertType, currentChain: readonly Certificate[], nowMs: number): string | undefined {
  if (c.unhandledCritical.length > 0) return ERR.unhandledCritical;
  if (currentChain.length > 0) {
    const child = currentChain[currentChain.length - 1]!;
    if (!bytesEqual(child.rawIssuer, c.rawSubject)) return ERR.nameMismatch;
  }
  if (nowMs < c.notBefore.ms) {
    return `x509: certificate has expired or is not yet valid: current time ${formatNow(nowMs)} is before ${formatRfc3339(c.notBefore)}`;
  }
  if (nowMs > c.notAfter.ms) {
    return `x509: certificate has expired or is not yet valid: current time ${formatNow(nowMs)} is after ${formatRfc3339(c.notAfter)}`;
  }
  if (certType === CertType.Intermediate && (!c.basicConstraintsValid || !c.isCA)) return ERR.notAuthorizedToSign;
  if (c.basicConstraintsValid && c.maxPathLen >= 0 && currentChain.length - 1 > c.maxPathLen) return ERR.tooManyIntermediates;
  return undefined;
}

function sanExtensionOf(c: Certificate): Uint8Array | undefined {
  return c.extensions.find((e) => e.oid === SAN_OID)?.value;
}

// Same subject, same SubjectPublicKeyInfo bytes and the same SAN extension (or none on both).
function alreadyInChain(candidate: Certificate, chain: readonly Certificate[]): boolean {
  const candidateSan = sanExtensionOf(candidate);
  for (const cert of chain) {
    if (!bytesEqual(candidate.rawSubject, cert.rawSubject)) continue;
    if (!bytesEqual(candidate.rawSubjectPublicKeyInfo, cert.rawSubjectPublicKeyInfo)) continue;
    const certSan = sanExtensionOf(cert);
    if (candidateSan === undefined && certSan === undefined) return true;
    if (candidateSan === undefined || certSan === undefined) return false;
    if (bytesEqual(candidateSan, certSan)) return true;
  }
  return false;
}

function unknownAuthority(hintErr: string | undefined, hintCert: Certificate | undefined): string {
  let s = 'x509: certificate signed by unknown authority';
  if (hintErr !== undefined && hintCert !== undefined) {
    let certName = hintCert.commonName;
    if (certName.length === 0) certName = hintCert.organization ?? `serial:${hintCert.serial.toString()}`;
    s += ` (possibly because of ${goQuote(hintErr)} while trying to verify candidate authority certificate ${goQuote(certName)})`;
  }
  return s;
}

/** A bound on one verification's signature arithmetic, for a caller that would rather not start a dear one (verifyClientChainWithin). */
export interface SignatureLimits {
  /** Signatures verified at most (answers reused within the call do not count). */
  readonly maxSignatureChecks: number;
  /** No signature is verified with an RSA key larger than this. */
  readonly maxRsaBits: number;
}

/** Thrown out of a search that would pass its SignatureLimits; the caller decides elsewhere. */
export class OverLimits extends Error {
  constructor() {
    super('the verification would pass its signature limits');
  }
}
const OVER_LIMITS = new OverLimits();

interface Search {
  readonly roots: CertPool;
  readonly intermediates: CertPool;
  readonly nowMs: number;
  readonly limits: SignatureLimits | undefined;
  sigChecks: number;
  /** Signatures verified in this search (one entry each): child, the parent's SubjectPublicKeyInfo, and the result. */
  readonly signatures: SignatureCheck[];
}

interface SignatureCheck {
  readonly child: Certificate;
  readonly parentKey: Uint8Array;
  readonly result: string | undefined;
}

/**
 * checkSignatureFrom, with the arithmetic done once per child and parent key in one search. Past
 * the parent's own constraints (checked every time, they are cheap), the answer depends on the
 * child and the parent's SubjectPublicKeyInfo bytes alone, so a parent whose key was already tried
 * on this child is answered from the first try. Two cases are common: a client that sends its CA
 * after its certificate (Node and curl clients do) offers Go's search the pool's root and an
 * identical copy; and a pool of same-name CAs sharing a few keys (re-issued CAs, decoys) has each
 * key verified once instead of once per CA. Each lookup is bounded by the budget of 100 candidates.
 */
function signatureCheckedOnce(search: Search, child: Certificate, parent: Certificate): string | undefined {
  const refused = parentCannotSign(parent);
  if (refused !== undefined) return refused;
  const parentKey = parent.rawSubjectPublicKeyInfo;
  for (const done of search.signatures) {
    if (done.child === child && bytesEqual(done.parentKey, parentKey)) return done.result;
  }
  const limits = search.limits;
  if (limits !== undefined) {
    if (search.signatures.length >= limits.maxSignatureChecks) throw OVER_LIMITS;
    if (parent.publicKey?.kind === 'RSA' && parent.publicKey.bits > limits.maxRsaBits) throw OVER_LIMITS;
  }
  const result = checkSignatureFrom(child, parent);
  search.signatures.push({ child, parentKey, result });
  return result;
}

function buildChains(c: Certificate, currentChain: readonly Certificate[], search: Search): { chains: Certificate[][]; err: string | undefined } {
  let hintErr: string | undefined;
  let hintCert: Certificate | undefined;
  let err: string | undefined;
  const chains: Certificate[][] = [];

  const hint = (error: string, candidate: Certificate): void => {
    if (hintErr === undefined) {
      hintErr = error;
      hintCert = candidate;
    }
  };
  const consider = (certType: CertType, candidate: Certificate): void => {
    search.sigChecks++;
    if (search.sigChecks > MAX_SIGNATURE_CHECKS) {
      err = ERR.sigLimit;
      return;
    }
    if (candidate.publicKey === undefined || alreadyInChain(candidate, currentChain)) return;
    const sigErr = signatureCheckedOnce(search, c, candidate);
    if (sigErr !== undefined) {
      hint(sigErr, candidate);
      return;
    }
    err = isValid(candidate, certType, currentChain, search.nowMs);
    if (err !== undefined) {
      hint(err, candidate);
      return;
    }
    if (certType === CertType.Root) {
      chains.push([...currentChain, candidate]);
    } else {
      const child = buildChains(candidate, [...currentChain, candidate], search);
      err = child.err;
      chains.push(...child.chains);
    }
  };

  search: for (const [certType, pool] of [
    [CertType.Root, search.roots],
    [CertType.Intermediate, search.intermediates],
  ] as const) {
    for (const candidate of pool.findPotentialParents(c)) {
      consider(certType, candidate);
      if (err === ERR.sigLimit) break search;
    }
  }

  if (chains.length > 0) err = undefined;
  if (chains.length === 0 && err === undefined) err = unknownAuthority(hintErr, hintCert);
  return { chains, err };
}

function chainAllowsClientAuth(chain: readonly Certificate[]): boolean {
  for (let i = chain.length - 1; i >= 0; i--) {
    const cert = chain[i]!;
    if (cert.extKeyUsage.length === 0 && cert.unknownExtKeyUsage === 0) continue;
    if (cert.extKeyUsage.includes('any')) continue;
    if (!cert.extKeyUsage.includes('clientAuth')) return false;
  }
  return true;
}

/** leaf.Verify(opts) for a TLS server's client certificate: undefined on success, else Go's error text. */
export function verifyLeaf(leaf: Certificate, roots: CertPool, intermediates: CertPool, nowMs: number, limits?: SignatureLimits): string | undefined {
  const leafErr = isValid(leaf, CertType.Leaf, [], nowMs);
  if (leafErr !== undefined) return leafErr;
  let candidates: Certificate[][];
  if (roots.contains(leaf)) {
    candidates = [[leaf]];
  } else {
    const result = buildChains(leaf, [leaf], { roots, intermediates, nowMs, limits, sigChecks: 0, signatures: [] });
    if (result.err !== undefined) return result.err;
    candidates = result.chains;
  }
  let invalidPolicies = 0;
  let incompatibleUsage = 0;
  let constraintsHint: string | undefined;
  for (const chain of candidates) {
    if (!policiesValid(chain)) {
      invalidPolicies++;
      continue;
    }
    if (!chainAllowsClientAuth(chain)) {
      incompatibleUsage++;
      continue;
    }
    const problem = checkChainConstraints(chain);
    if (problem !== undefined) {
      constraintsHint ??= `x509: a root or intermediate certificate is not authorized to sign for this name: ${problem}`;
      continue;
    }
    return undefined;
  }
  if (constraintsHint !== undefined) return constraintsHint;
  const details: string[] = [];
  if (incompatibleUsage > 0) {
    if (invalidPolicies === 0) return ERR.incompatibleUsage;
    details.push(`${incompatibleUsage} candidate chains with incompatible key usage`);
  }
  if (invalidPolicies > 0) details.push(`${invalidPolicies} candidate chains with invalid policies`);
  return details.length === 0 ? 'x509: no valid chains built' : `x509: no valid chains built: ${details.join(', ')}`;
}

export type ClientChainVerdict = { readonly accept: true } | { readonly accept: false; readonly reason: string };

/**
 * crypto/tls processCertsFromClient with ClientAuth = RequireAndVerifyClientCert: every sent
 * certificate must parse and carry no RSA key over 8,192 bits (checked as each is parsed, before
 * any signature), the leaf must verify, and its key must be RSA, ECDSA or Ed25519. `certs`
 * receives every certificate parsed on the way (all of them, unless one fails to parse).
 */
export function verifyPresented(presented: readonly Uint8Array[], roots: CertPool, nowMs: number, certs: Certificate[] = [], limits?: SignatureLimits): ClientChainVerdict {
  if (presented.length === 0) return { accept: false, reason: "tls: client didn't provide a certificate" };
  for (const der of presented) {
    const cert = parseCertificate(der);
    if (typeof cert === 'string') return { accept: false, reason: `tls: failed to parse client certificate: ${cert}` };
    if (cert.publicKey?.kind === 'RSA' && cert.publicKey.bits > MAX_RSA_KEY_BITS) {
      return { accept: false, reason: `tls: client sent certificate containing RSA key larger than ${MAX_RSA_KEY_BITS} bits` };
    }
    certs.push(cert);
  }
  const intermediates = new CertPool();
  for (const cert of certs.slice(1)) intermediates.add(cert);
  const leaf = certs[0]!;
  const err = verifyLeaf(leaf, roots, intermediates, nowMs, limits);
  if (err !== undefined) return { accept: false, reason: `tls: failed to verify certificate: ${err}` };
  const kind = leaf.publicKey?.kind;
  if (kind !== 'RSA' && kind !== 'ECDSA' && kind !== 'Ed25519') {
    return { accept: false, reason: `tls: client certificate contains an unsupported public key of type ${goKeyType(leaf.publicKey)}` };
  }
  return { accept: true };
}

/**
 * The first instant (ms since the epoch) after `nowMs` at which one of `certs` becomes valid
 * (its notBefore) or stops being valid (one millisecond after its notAfter): isValid's two
 * comparisons, so a verdict on these certificates cannot change before it. Undefined when every
 * boundary has passed.
 */
export function nextValidityChange(certs: readonly Certificate[], nowMs: number): number | undefined {
  let next: number | undefined;
  for (const cert of certs) {
    const begins = cert.notBefore.ms;
    const ends = cert.notAfter.ms + 1;
    if (begins > nowMs && (next === undefined || begins < next)) next = begins;
    if (ends > nowMs && (next === undefined || ends < next)) next = ends;
  }
  return next;
}
