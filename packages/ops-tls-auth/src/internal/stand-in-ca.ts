import { parseCertificate, type Certificate } from '@fabric-ops/go-x509';
import { generateKeyPairSync, randomBytes, X509Certificate, type KeyObject } from 'node:crypto';
import { BASIC_CONSTRAINTS_CA, extension, generalizedTime, octetString, pem, sequence, signedCertificate, tlv } from './der-write.ts';

/*
 * Stand-in client CA certificates for OpenSSL.
 *
 * Node names the acceptable client CAs in the TLS CertificateRequest only through the `ca`
 * option, and `ca` also fills OpenSSL's trust store, so OpenSSL builds and checks every client
 * chain against it (chain search, signatures) although its verdict decides nothing here: the
 * verdict is Go's, taken by the chain judge on the list the client sent. A stand-in carries the
 * real CA's subject name, byte for byte (so the CertificateRequest names exactly the same CAs as
 * Fabric's), with a key made in this process and never written anywhere, of another
 * kind than the CA's, and a subject key identifier no client certificate's authority key
 * identifier matches: OpenSSL finds no issuer at once and stops, instead of verifying
 * signatures on a chain it will never be asked about.
 */

/** A DER certificate as Go's parser reads it (the project's one DER reader); throws Go's reason when it cannot. */
function parsed(der: Uint8Array): Certificate {
  const certificate = parseCertificate(der);
  if (typeof certificate === 'string') throw new Error(certificate);
  return certificate;
}

/** The subject name of a DER certificate, exactly as encoded in it (tag and length included). */
export function rawSubjectOf(certificate: Uint8Array): Uint8Array {
  return parsed(certificate).rawSubject;
}

/** The DER of a PEM certificate's first block, read here rather than by OpenSSL (a reload's cost per CA). */
function derOf(caPem: string): Buffer {
  const body = /-----BEGIN CERTIFICATE-----([A-Za-z0-9+/=\s]+)-----END CERTIFICATE-----/.exec(caPem)?.[1];
  if (body === undefined) throw new Error('not a PEM certificate');
  return Buffer.from(body, 'base64');
}

/** keyUsage keyCertSign (bit 5), critical. */
const KEY_USAGE_CERT_SIGN = extension('2.5.29.15', true, tlv(0x03, Buffer.from([0x02, 0x04])));
/**
 * 1970-01-01 to 9999-12-31: the stand-in is never judged on its dates (or on anything).
 * GeneralizedTime, as RFC 5280 requires from 2050 on; both bounds use it for simplicity.
 */
const VALIDITY = sequence(generalizedTime('19700101000000Z'), generalizedTime('99991231235959Z'));

type KeyKind = 'ec' | 'ed25519' | 'rsa' | 'other';

/** The kind of key a stand-in for this CA gets: one its real certificates cannot be signed with. */
function standInKeyKind(real: Certificate): 'ec' | 'ed25519' {
  return real.publicKeyAlgorithm === 'ECDSA' ? 'ed25519' : 'ec';
}

/**
 * One key per kind, made at the first stand-in of that kind and kept for the process: a
 * stand-in's key signs nothing but the stand-in, whose signature nobody checks, so sharing it
 * costs nothing, while a key per CA was most of what a reload of many CAs cost.
 */
const standInKeys = new Map<'ec' | 'ed25519', { readonly spki: Buffer; readonly privateKey: KeyObject }>();
function standInKey(kind: 'ec' | 'ed25519'): { readonly spki: Buffer; readonly privateKey: KeyObject } {
  let key = standInKeys.get(kind);
  if (key === undefined) {
    const { publicKey, privateKey } = kind === 'ed25519' ? generateKeyPairSync('ed25519') : generateKeyPairSync('ec', { namedCurve: 'P-256' });
    key = { spki: publicKey.export({ type: 'spki', format: 'der' }), privateKey };
    standInKeys.set(kind, key);
  }
  return key;
}

const SIGNED_WITH = { ECDSA: 'ec', RSA: 'rsa', Ed25519: 'ed25519', DSA: 'other' } as const;

/** The kind of key that made a DER certificate's signature, from its signature algorithm. */
export function signatureKeyKind(certificate: Uint8Array): KeyKind {
  const algorithm = parsed(certificate).signatureAlgorithm;
  return algorithm === undefined ? 'other' : SIGNED_WITH[algorithm.publicKey];
}

/**
 * A self-signed stand-in for one CA certificate (PEM in, PEM out): the same subject and issuer
 * name bytes, the process's stand-in key of its kind (kept nowhere), CA basic constraints,
 * keyCertSign, and a random subject key identifier. Its key is of another type than the real CA's (Ed25519 for an EC CA,
 * P-256 otherwise): OpenSSL also passes over an issuer whose key type cannot have made a
 * certificate's signature, which covers certificates without an authority key identifier.
 * Throws when the certificate cannot be read.
 */
export function standInFor(caPem: string): string {
  const real = parsed(derOf(caPem));
  const subject = real.rawSubject;
  const { spki, privateKey } = standInKey(standInKeyKind(real));
  // Random, so that no authority key identifier a client certificate carries can name it.
  const keyId = randomBytes(20);
  const extensions = [BASIC_CONSTRAINTS_CA, KEY_USAGE_CERT_SIGN, extension('2.5.29.14', false, octetString(keyId))];
  return pem(signedCertificate({ serial: randomBytes(16), issuer: subject, subject, validity: VALIDITY, spki, extensions, signer: privateKey }));
}

/** Whether a DER certificate's authority key identifier names its issuer's key (OpenSSL then passes over an issuer with another key). */
export function namesIssuerKey(certificate: Uint8Array): boolean {
  return parsed(certificate).authorityKeyId.length > 0;
}

/** Stand-ins made ahead, in slices, for the CAs a reload is about to apply (those of the latest such reload). */
let madeAhead = new Map<string, string>();

/**
 * Makes the stand-ins for a reload's CAs before they are applied, `perTurn` per turn of the event
 * loop, for `forCredentials` to take (made there, 2,001 new CAs take 0.2 s in one stretch); one
 * that cannot be made is left to it and its warning.
 */
export async function makeStandInsAhead(cas: readonly string[], perTurn = 32): Promise<void> {
  const next = new Map<string, string>();
  for (const [index, caPem] of cas.entries()) {
    if (index % perTurn === perTurn - 1) await new Promise((resolve) => setImmediate(resolve));
    try {
      next.set(caPem, next.get(caPem) ?? madeAhead.get(caPem) ?? standInFor(caPem));
    } catch {
      // forCredentials warns about it
    }
  }
  madeAhead = next;
}

export interface OpenSslClientCas {
  /**
   * The `ca` list to hand OpenSSL for these credentials: stand-ins where they are safe, made
   * once per trust set (a reload that keeps the CA files keeps them), the real CAs otherwise.
   */
  forCredentials(credentials: { readonly cert: string; readonly ca: readonly string[] }): string[];
}

/**
 * OpenSSL also builds the server's own chain from the `ca` store when the certificate file
 * holds the server certificate alone, and a stand-in must never be picked there (it would be
 * sent to clients). It cannot be when the server certificate names its issuer's key (no
 * stand-in's key identifier matches) or was signed with another kind of key than the
 * stand-in's; otherwise that CA is handed to OpenSSL as it is.
 */
function standInIsSafeFor(serverCertPem: string): (caPem: string) => boolean {
  const blocks = serverCertPem.match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g) ?? [];
  // a file with its chain: OpenSSL sends that chain, never the store's
  if (blocks.length > 1) return () => true;
  if (blocks.length === 0) return () => false;
  const leaf = new X509Certificate(blocks[0]!).raw;
  if (namesIssuerKey(leaf)) return () => true;
  const signedWith = signatureKeyKind(leaf);
  return (caPem) => signedWith !== 'other' && signedWith !== standInKeyKind(parsed(derOf(caPem)));
}

/** `enabled` false hands OpenSSL the real CAs (the measurement's "before"); `warn` hears each CA kept real, once. */
export function createOpenSslClientCas(enabled: boolean, warn: (message: string) => void): OpenSslClientCas {
  let made = new Map<string, string>();
  const warned = new Set<string>();
  const warnOnce = (key: string, message: string): void => {
    if (warned.has(key)) return;
    warned.add(key);
    warn(message);
  };
  return {
    forCredentials({ cert, ca }) {
      if (!enabled || ca.length === 0) return [...ca];
      let safeFor: (caPem: string) => boolean;
      try {
        safeFor = standInIsSafeFor(cert);
      } catch {
        safeFor = () => false;
      }
      const next = new Map<string, string>();
      const out = ca.map((caPem, index) => {
        try {
          // checked for every server certificate, before a stand-in made earlier is reused
          if (!safeFor(caPem)) {
            warnOnce(
              `server:${cert}:${caPem}`,
              `client CA certificate #${index + 1}: OpenSSL could take its stand-in for the issuer of the server certificate (no authority key identifier, no chain in its file), so it is given the real certificate (slower handshakes, same verdicts)`,
            );
            return caPem;
          }
          const known = next.get(caPem) ?? made.get(caPem);
          if (known !== undefined) {
            next.set(caPem, known);
            return known;
          }
          const standIn = madeAhead.get(caPem) ?? standInFor(caPem);
          next.set(caPem, standIn);
          return standIn;
        } catch (error) {
          warnOnce(`ca:${caPem}`, `client CA certificate #${index + 1}: no stand-in could be made (${(error as Error).message}); OpenSSL is given the real certificate`);
          return caPem;
        }
      });
      made = next;
      return out;
    },
  };
}
