import { generateKeyPairSync, randomBytes, X509Certificate, type KeyObject } from 'node:crypto';
import { BASIC_CONSTRAINTS_CA, extension, generalizedTime, octetString, oid, pem, sequence, signedCertificate, tlv } from './der-write.ts';

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

interface Tlv {
  readonly tag: number;
  /** Offset of the tag. */
  readonly at: number;
  /** Offset of the content. */
  readonly start: number;
  /** Offset after the content. */
  readonly end: number;
}

/** One DER element at `at`; throws on anything malformed or running past `limit`. */
function readTlv(der: Uint8Array, at: number, limit: number): Tlv {
  if (at + 2 > limit) throw new Error('truncated DER element');
  const tag = der[at]!;
  if ((tag & 0x1f) === 0x1f) throw new Error('multi-byte DER tag');
  let length = der[at + 1]!;
  let start = at + 2;
  if (length & 0x80) {
    const octets = length & 0x7f;
    if (octets === 0 || octets > 4 || start + octets > limit) throw new Error('bad DER length');
    length = 0;
    for (let i = 0; i < octets; i++) length = length * 256 + der[start + i]!;
    start += octets;
  }
  const end = start + length;
  if (end > limit) throw new Error('DER element runs past its container');
  return { tag, at, start, end };
}

const SEQUENCE = 0x30;
const VERSION_TAG = 0xa0;

/** Where a DER certificate, its TBS part, subject name and public key info are. */
function partsOf(certificate: Uint8Array): { readonly outer: Tlv; readonly tbs: Tlv; readonly subject: Tlv; readonly spki: Tlv } {
  const outer = readTlv(certificate, 0, certificate.length);
  if (outer.tag !== SEQUENCE) throw new Error('not a certificate');
  const tbs = readTlv(certificate, outer.start, outer.end);
  if (tbs.tag !== SEQUENCE) throw new Error('not a certificate');
  let at = tbs.start;
  const next = (): Tlv => {
    const element = readTlv(certificate, at, tbs.end);
    at = element.end;
    return element;
  };
  let element = next();
  if (element.tag === VERSION_TAG) element = next(); // the serial number
  next(); // signature algorithm
  next(); // issuer
  next(); // validity
  const subject = next();
  if (subject.tag !== SEQUENCE) throw new Error('subject is not a name');
  const spki = next();
  if (spki.tag !== SEQUENCE) throw new Error('no public key info');
  return { outer, tbs, subject, spki };
}

/** The subject name of a DER certificate, exactly as encoded in it (tag and length included). */
export function rawSubjectOf(certificate: Uint8Array): Uint8Array {
  const { subject } = partsOf(certificate);
  return certificate.subarray(subject.at, subject.end);
}

/** The DER of a PEM certificate's first block; the bytes are read by the walk above, not by OpenSSL (a reload's cost per CA). */
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

const EC_PUBLIC_KEY = oid('1.2.840.10045.2.1');

/** The kind of key a stand-in for this CA (DER) gets: one its real certificates cannot be signed with. */
function standInKeyKind(real: Uint8Array): 'ec' | 'ed25519' {
  const { spki } = partsOf(real);
  const algorithm = readTlv(real, spki.start, spki.end);
  const id = readTlv(real, algorithm.start, algorithm.end);
  return Buffer.compare(real.subarray(id.at, id.end), EC_PUBLIC_KEY) === 0 ? 'ed25519' : 'ec';
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

/** The kind of key that made a DER certificate's signature, from its signature algorithm. */
export function signatureKeyKind(certificate: Uint8Array): KeyKind {
  const { outer, tbs } = partsOf(certificate);
  const algorithm = readTlv(certificate, tbs.end, outer.end);
  const id = readTlv(certificate, algorithm.start, algorithm.end);
  const dotted = Buffer.from(certificate.subarray(id.at, id.end));
  if (dotted.equals(oid('1.3.101.112'))) return 'ed25519';
  const prefix = (arc: string): boolean => {
    const base = oid(arc).subarray(2);
    return dotted.subarray(2, 2 + base.length).equals(base) && dotted.length > 2 + base.length;
  };
  if (prefix('1.2.840.10045.4')) return 'ec';
  if (prefix('1.2.840.113549.1.1')) return 'rsa';
  return 'other';
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
  const real = derOf(caPem);
  const subject = rawSubjectOf(real);
  const { spki, privateKey } = standInKey(standInKeyKind(real));
  // Random, so that no authority key identifier a client certificate carries can name it.
  const keyId = randomBytes(20);
  const extensions = [BASIC_CONSTRAINTS_CA, KEY_USAGE_CERT_SIGN, extension('2.5.29.14', false, octetString(keyId))];
  return pem(signedCertificate({ serial: randomBytes(16), issuer: subject, subject, validity: VALIDITY, spki, extensions, signer: privateKey }));
}

const AUTHORITY_KEY_ID = oid('2.5.29.35');
const EXTENSIONS_TAG = 0xa3;
const KEY_IDENTIFIER_TAG = 0x80;

/** Whether a DER certificate's authority key identifier names its issuer's key (OpenSSL then passes over an issuer with another key). */
export function namesIssuerKey(certificate: Uint8Array): boolean {
  const { tbs, spki } = partsOf(certificate);
  for (let at = spki.end; at < tbs.end;) {
    const element = readTlv(certificate, at, tbs.end);
    at = element.end;
    if (element.tag !== EXTENSIONS_TAG) continue;
    const list = readTlv(certificate, element.start, element.end);
    for (let e = list.start; e < list.end;) {
      const ext = readTlv(certificate, e, list.end);
      e = ext.end;
      const id = readTlv(certificate, ext.start, ext.end);
      if (Buffer.compare(certificate.subarray(id.at, id.end), AUTHORITY_KEY_ID) !== 0) continue;
      let value = readTlv(certificate, id.end, ext.end);
      if (value.tag === 0x01) value = readTlv(certificate, value.end, ext.end); // critical flag
      const akid = readTlv(certificate, value.start, value.end);
      return akid.end > akid.start && readTlv(certificate, akid.start, akid.end).tag === KEY_IDENTIFIER_TAG;
    }
  }
  return false;
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
  return (caPem) => signedWith !== 'other' && signedWith !== standInKeyKind(derOf(caPem));
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
