import { publicKeysEqual, goKeyType } from './algorithms.ts';
import { forEachSanChecked, parseCertificate, type Certificate } from './certificate.ts';
import { binaryString, bytesEqual, formatRfc3339 } from './der.ts';
import { checkConstraint, domainToReverseLabels, ipNetString, ipString, matchers, parseMailbox, type ConstraintOutcome } from './names.ts';
import { CertPool } from './pool.ts';
import { goQuote } from './quote.ts';
import { checkSignatureFrom } from './signature.ts';
import { parseUrl } from './uri.ts';

// Certificate.Verify of Go 1.19 with the options crypto/tls gives it for a client certificate
// (roots = ClientCAs, intermediates = every other certificate the client sent, KeyUsages =
// [clientAuth]), and processCertsFromClient around it. The search below follows verify.go's
// buildChains step for step, including the order candidates are tried in, the shared budget of
// 100 signature checks, and which error survives when no chain is found.

const MAX_SIGNATURE_CHECKS = 100;

const CertType = { Leaf: 0, Intermediate: 1, Root: 2 } as const;
type CertType = (typeof CertType)[keyof typeof CertType];

const ERR = {
  unhandledCritical: 'x509: unhandled critical extension',
  nameMismatch: 'x509: issuer name does not match subject from issuing certificate',
  notAuthorizedToSign: 'x509: certificate is not authorized to sign other certificates',
  tooManyIntermediates: 'x509: too many intermediates for path length constraint',
  incompatibleUsage: 'x509: certificate specifies an incompatible key usage',
  sigLimit: 'x509: signature check attempts limit reached while verifying certificate chain',
  // CertificateInvalidError with Reason TooManyConstraints has no text of its own in Go 1.19.
  tooManyConstraints: 'x509: unknown error',
} as const;

/** Go panics inside alreadyInChain when a same-named candidate's key type has no Equal method. */
export class GoPanic extends Error {}

function formatNow(ms: number): string {
  return formatRfc3339({ ms: Math.floor(ms / 1000) * 1000, offsetMinutes: 0 });
}

function hasNameConstraints(c: Certificate): boolean {
  return c.extensions.some((e) => e.oid === '2.5.29.30');
}

function notAuthorizedForName(detail: string): string {
  return `x509: a root or intermediate certificate is not authorized to sign for this name: ${detail}`;
}

function checkNameConstraintsOf(c: Certificate, leaf: Certificate): string | undefined {
  const nc = c.nameConstraints;
  const count = { n: 0 };
  const toCheck: Certificate[] = [];
  if (leaf.sanValue !== undefined) toCheck.push(leaf);
  if (c.sanValue !== undefined) toCheck.push(c);
  for (const sanCert of toCheck) {
    let failure: string | undefined;
    const parseError = forEachSanChecked(sanCert.sanValue!, (tag, data) => {
      if (failure !== undefined) return;
      const name = binaryString(data);
      let outcome: ConstraintOutcome | undefined;
      switch (tag) {
        case 1: {
          const mailbox = parseMailbox(name);
          if (mailbox === undefined) {
            failure = 'x509: cannot parse rfc822Name {"" ""}';
            return;
          }
          outcome = checkConstraint(count, 'email address', name, mailbox, matchers.email, nc?.permittedEmails ?? [], nc?.excludedEmails ?? [], goQuote);
          break;
        }
        case 2:
          if (domainInvalid(name)) {
            failure = `x509: cannot parse dnsName ${goQuote(name)}`;
            return;
          }
          outcome = checkConstraint(count, 'DNS name', name, name, matchers.dns, nc?.permittedDNS ?? [], nc?.excludedDNS ?? [], goQuote);
          break;
        case 6: {
          const parsed = parseUrl(name);
          if ('error' in parsed) {
            failure = `x509: internal error: URI SAN ${goQuote(name)} failed to parse`;
            return;
          }
          outcome = checkConstraint(count, 'URI', name, { raw: name, host: parsed.host }, matchers.uri, nc?.permittedURIs ?? [], nc?.excludedURIs ?? [], goQuote);
          break;
        }
        case 7:
          outcome = checkConstraint(count, 'IP address', ipString(data), data, matchers.ip, nc?.permittedIPs ?? [], nc?.excludedIPs ?? [], ipNetString);
          break;
        default:
          return;
      }
      if (!outcome.ok) failure = outcome.tooMany ? ERR.tooManyConstraints : notAuthorizedForName(outcome.detail);
    });
    if (parseError !== undefined) return parseError;
    if (failure !== undefined) return failure;
  }
  return undefined;
}

function domainInvalid(name: string): boolean {
  return domainToReverseLabels(name) === undefined;
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
  if (certType !== CertType.Leaf && hasNameConstraints(c)) {
    const failure = checkNameConstraintsOf(c, currentChain[0]!);
    if (failure !== undefined) return failure;
  }
  if (certType === CertType.Intermediate && (!c.basicConstraintsValid || !c.isCA)) return ERR.notAuthorizedToSign;
  if (c.basicConstraintsValid && c.maxPathLen >= 0 && currentChain.length - 1 > c.maxPathLen) return ERR.tooManyIntermediates;
  return undefined;
}

function alreadyInChain(candidate: Certificate, chain: readonly Certificate[]): boolean {
  for (const cert of chain) {
    if (!bytesEqual(candidate.rawSubject, cert.rawSubject)) continue;
    const key = candidate.publicKey;
    if (key === undefined) throw new GoPanic('interface conversion: interface is nil, not x509.pubKeyEqual');
    if (key.kind === 'DSA') {
      throw new GoPanic('interface conversion: *dsa.PublicKey is not x509.pubKeyEqual: missing method Equal');
    }
    if (cert.publicKey === undefined || !publicKeysEqual(key, cert.publicKey)) continue;
    const a = candidate.sanValue;
    const b = cert.sanValue;
    if (a === undefined && b === undefined) return true;
    if (a === undefined || b === undefined) return false;
    if (bytesEqual(a, b)) return true;
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

interface Search {
  readonly roots: CertPool;
  readonly intermediates: CertPool;
  readonly nowMs: number;
  sigChecks: number;
}

function buildChains(
  c: Certificate,
  currentChain: readonly Certificate[],
  search: Search,
): { chains: Certificate[][]; err: string | undefined } {
  let hintErr: string | undefined;
  let hintCert: Certificate | undefined;
  let err: string | undefined;
  const chains: Certificate[][] = [];

  const consider = (certType: CertType, candidate: Certificate): void => {
    if (alreadyInChain(candidate, currentChain)) return;
    search.sigChecks++;
    if (search.sigChecks > MAX_SIGNATURE_CHECKS) {
      err = ERR.sigLimit;
      return;
    }
    const sigErr = checkSignatureFrom(c, candidate);
    if (sigErr !== undefined) {
      if (hintErr === undefined) {
        hintErr = sigErr;
        hintCert = candidate;
      }
      return;
    }
    err = isValid(candidate, certType, currentChain, search.nowMs);
    if (err !== undefined) return;
    if (certType === CertType.Root) {
      chains.push([...currentChain, candidate]);
    } else {
      const child = buildChains(candidate, [...currentChain, candidate], search);
      err = child.err;
      chains.push(...child.chains);
    }
  };

  for (const root of search.roots.findPotentialParents(c)) consider(CertType.Root, root);
  for (const intermediate of search.intermediates.findPotentialParents(c)) consider(CertType.Intermediate, intermediate);

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
export function verifyLeaf(leaf: Certificate, roots: CertPool, intermediates: CertPool, nowMs: number): string | undefined {
  const leafErr = isValid(leaf, CertType.Leaf, [], nowMs);
  if (leafErr !== undefined) return leafErr;
  let candidates: Certificate[][];
  if (roots.contains(leaf)) {
    candidates = [[leaf]];
  } else {
    const result = buildChains(leaf, [leaf], { roots, intermediates, nowMs, sigChecks: 0 });
    if (result.err !== undefined) return result.err;
    candidates = result.chains;
  }
  if (!candidates.some(chainAllowsClientAuth)) return ERR.incompatibleUsage;
  return undefined;
}

export type ClientChainVerdict = { readonly accept: true } | { readonly accept: false; readonly reason: string };

/**
 * crypto/tls processCertsFromClient with ClientAuth = RequireAndVerifyClientCert: every sent
 * certificate must parse, the leaf must verify, and its key must be RSA, ECDSA or Ed25519.
 */
export function verifyPresented(presented: readonly Uint8Array[], roots: CertPool, nowMs: number): ClientChainVerdict {
  if (presented.length === 0) return { accept: false, reason: "tls: client didn't provide a certificate" };
  const certs: Certificate[] = [];
  for (const der of presented) {
    const cert = parseCertificate(der);
    if (typeof cert === 'string') return { accept: false, reason: `tls: failed to parse client certificate: ${cert}` };
    certs.push(cert);
  }
  const intermediates = new CertPool();
  for (const cert of certs.slice(1)) intermediates.add(cert);
  const leaf = certs[0]!;
  let err: string | undefined;
  try {
    err = verifyLeaf(leaf, roots, intermediates, nowMs);
  } catch (e) {
    if (e instanceof GoPanic) return { accept: false, reason: `http: panic serving the handshake (Go aborts the connection): ${e.message}` };
    throw e;
  }
  if (err !== undefined) return { accept: false, reason: `tls: failed to verify client certificate: ${err}` };
  const kind = leaf.publicKey?.kind;
  if (kind !== 'RSA' && kind !== 'ECDSA' && kind !== 'Ed25519') {
    return { accept: false, reason: `tls: client certificate contains an unsupported public key of type ${goKeyType(leaf.publicKey)}` };
  }
  return { accept: true };
}
