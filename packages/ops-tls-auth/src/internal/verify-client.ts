import { X509Certificate } from 'node:crypto';
import { parseCertificateStructure, type CertificateStructure } from './der.ts';

// Client-certificate verification as Go's crypto/x509 `Verify` does it for a TLS server with
// `ClientCAs` and `KeyUsages: [clientAuth]`. OpenSSL (as Node 20 exposes it) disagrees in
// three ways that matter to operators: it only anchors chains at self-signed roots, it refuses
// anyExtendedKeyUsage-only leaves, and it checks the leaf's KeyUsage. Fabric runs on Go, so a
// certificate Fabric admits must be admitted here and one Fabric refuses must be refused.

export const CLIENT_AUTH_EKU = '1.3.6.1.5.5.7.3.2';
export const ANY_EKU = '2.5.29.37.0';

/** Go's `maxChainSignatureChecks`: bounds the work an offered chain can cause. */
const MAX_SIGNATURE_CHECKS = 100;
/** Certificates beyond the leaf taken from what a client offers. */
export const MAX_OFFERED_CERTIFICATES = 10;

/** Extensions Go's parser understands; any other one marked critical fails verification. */
const HANDLED_EXTENSIONS = new Set([
  '2.5.29.14', // subject key identifier
  '2.5.29.15', // key usage
  '2.5.29.17', // subject alternative name
  '2.5.29.19', // basic constraints
  '2.5.29.30', // name constraints
  '2.5.29.31', // CRL distribution points
  '2.5.29.32', // certificate policies
  '2.5.29.35', // authority key identifier
  '2.5.29.37', // extended key usage
  '1.3.6.1.5.5.7.1.1', // authority information access
]);
const NAME_CONSTRAINTS = '2.5.29.30';

const UNKNOWN_AUTHORITY = 'x509: certificate signed by unknown authority';
const INCOMPATIBLE_USAGE = 'x509: certificate specifies an incompatible key usage';
const NOT_AUTHORIZED_TO_SIGN = 'x509: certificate is not authorized to sign other certificates';
const TOO_MANY_INTERMEDIATES = 'x509: too many intermediates for path length constraint';
const UNHANDLED_CRITICAL = 'x509: unhandled critical extension';
const PARENT_CANNOT_SIGN = 'x509: invalid signature: parent certificate cannot sign this kind of certificate';
// Go checks a CA's name constraints against the leaf's names; this verifier does not evaluate
// them, so it refuses rather than admit what Go might refuse.
const NAME_CONSTRAINED = 'x509: a CA in the chain has name constraints, which this server does not evaluate';

interface Described {
  readonly certificate: X509Certificate;
  readonly raw: Buffer;
  readonly structure: CertificateStructure;
  readonly notBefore: Date;
  readonly notAfter: Date;
  readonly extendedKeyUsage: readonly string[] | undefined;
  readonly unhandledCritical: boolean;
}

const described = new WeakMap<X509Certificate, Described>();

function describe(certificate: X509Certificate): Described {
  let known = described.get(certificate);
  if (known === undefined) {
    const structure = parseCertificateStructure(certificate.raw);
    known = {
      certificate,
      raw: certificate.raw,
      structure,
      notBefore: new Date(certificate.validFrom),
      notAfter: new Date(certificate.validTo),
      extendedKeyUsage: certificate.keyUsage as string[] | undefined,
      unhandledCritical: [...structure.extensions].some(([oid, extension]) => extension.critical && !HANDLED_EXTENSIONS.has(oid)),
    };
    described.set(certificate, known);
  }
  return known;
}

/** The client CA pool: every certificate in it is a trust anchor, self-signed or not (Go's rule). */
export interface TrustPool {
  readonly anchors: readonly X509Certificate[];
}

/** Builds the pool from PEM certificates, e.g. `TlsCredentials.ca`. */
export function createTrustPool(pems: readonly string[]): TrustPool {
  const anchors = pems.map((pem) => new X509Certificate(pem));
  for (const anchor of anchors) describe(anchor);
  return { anchors };
}

export type ClientCertificateVerdict = { readonly accept: true } | { readonly accept: false; readonly reason: string };

function goTime(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function validityProblem(certificate: Described, now: Date): string | undefined {
  if (now.getTime() < certificate.notBefore.getTime()) {
    return `x509: certificate has expired or is not yet valid: current time ${goTime(now)} is before ${goTime(certificate.notBefore)}`;
  }
  if (now.getTime() > certificate.notAfter.getTime()) {
    return `x509: certificate has expired or is not yet valid: current time ${goTime(now)} is after ${goTime(certificate.notAfter)}`;
  }
  return undefined;
}

/** Go's `CheckSignatureFrom` pre-conditions: a v3 parent must be a CA; a KeyUsage must allow certSign (checked by checkIssued). */
function mayCertify(parent: Described): boolean {
  const constraints = parent.structure.basicConstraints;
  if (parent.structure.version === 3 && constraints === undefined) return false;
  return constraints === undefined || constraints.ca;
}

function nameOf(certificate: Described): string {
  const subject = certificate.certificate.subject.split('\n');
  const cn = subject.filter((line) => line.startsWith('CN=')).at(-1);
  const o = subject.find((line) => line.startsWith('O='));
  return cn?.slice(3) ?? o?.slice(2) ?? `serial:${certificate.certificate.serialNumber}`;
}

interface Search {
  checks: number;
  /** The last candidate's own problem (Go reports it instead of "unknown authority"). */
  error: string | undefined;
  hint: string | undefined;
}

function buildChains(chain: readonly Described[], anchors: readonly Described[], intermediates: readonly Described[], now: Date, search: Search): Described[][] {
  const child = chain.at(-1)!;
  const chains: Described[][] = [];
  const consider = (candidate: Described, isAnchor: boolean): void => {
    if (chain.some((member) => member.raw.equals(candidate.raw))) return;
    // Cheap name/key-identifier match first (OpenSSL's X509_check_issued); signatures cost more.
    if (!child.certificate.checkIssued(candidate.certificate)) return;
    search.checks += 1;
    if (search.checks > MAX_SIGNATURE_CHECKS) {
      search.error = 'x509: signature check attempts limit reached while verifying certificate chain';
      return;
    }
    if (!mayCertify(candidate)) {
      search.hint ??= ` (possibly because of ${JSON.stringify(PARENT_CANNOT_SIGN)} while trying to verify candidate authority certificate ${JSON.stringify(nameOf(candidate))})`;
      return;
    }
    if (!child.certificate.verify(candidate.certificate.publicKey)) return;
    const problem = candidateProblem(candidate, isAnchor, chain, now);
    if (problem !== undefined) {
      search.error = problem;
      return;
    }
    if (isAnchor) chains.push([...chain, candidate]);
    else chains.push(...buildChains([...chain, candidate], anchors, intermediates, now, search));
  };
  for (const anchor of anchors) consider(anchor, true);
  for (const intermediate of intermediates) consider(intermediate, false);
  return chains;
}

/** Go's `isValid` for an issuer: dates, critical extensions, CA flag (intermediates), path length. */
function candidateProblem(candidate: Described, isAnchor: boolean, chain: readonly Described[], now: Date): string | undefined {
  if (candidate.unhandledCritical) return UNHANDLED_CRITICAL;
  const dates = validityProblem(candidate, now);
  if (dates !== undefined) return dates;
  if (candidate.structure.extensions.has(NAME_CONSTRAINTS)) return NAME_CONSTRAINED;
  const constraints = candidate.structure.basicConstraints;
  if (!isAnchor && (constraints === undefined || !constraints.ca)) return NOT_AUTHORIZED_TO_SIGN;
  if (constraints?.maxPathLength !== undefined && chain.length - 1 > constraints.maxPathLength) return TOO_MANY_INTERMEDIATES;
  return undefined;
}

/** Go's `checkChainForKeyUsage` for clientAuth: every certificate that lists usages must allow it (or any). */
function chainAllowsClientAuth(chain: readonly Described[]): boolean {
  return chain.every((certificate) => {
    const usages = certificate.extendedKeyUsage;
    return usages === undefined || usages.length === 0 || usages.includes(CLIENT_AUTH_EKU) || usages.includes(ANY_EKU);
  });
}

/**
 * Go's verdict on a client certificate: `leaf` as sent, `offered` the other certificates the
 * client sent (used only as intermediates), `pool` the client CAs. KeyUsage on the leaf is not
 * checked (Go does not); EKU is checked on every certificate of the chain.
 */
export function verifyClientCertificate(leaf: X509Certificate, offered: readonly X509Certificate[], pool: TrustPool, now: Date = new Date()): ClientCertificateVerdict {
  const subject = describe(leaf);
  const problem = subject.unhandledCritical ? UNHANDLED_CRITICAL : validityProblem(subject, now);
  if (problem !== undefined) return { accept: false, reason: problem };
  const anchors = pool.anchors.map(describe);
  let chains: Described[][];
  if (anchors.some((anchor) => anchor.raw.equals(subject.raw))) {
    chains = [[subject]];
  } else {
    const search: Search = { checks: 0, error: undefined, hint: undefined };
    const intermediates = offered.slice(0, MAX_OFFERED_CERTIFICATES).map(describe);
    chains = buildChains([subject], anchors, intermediates, now, search);
    if (chains.length === 0) return { accept: false, reason: search.error ?? `${UNKNOWN_AUTHORITY}${search.hint ?? ''}` };
  }
  if (!chains.some(chainAllowsClientAuth)) return { accept: false, reason: INCOMPATIBLE_USAGE };
  return { accept: true };
}
