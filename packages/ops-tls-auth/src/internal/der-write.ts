import { sign, type KeyObject } from 'node:crypto';

// DER writing for the certificates this package makes itself: the OpenSSL stand-ins for the
// client CAs (stand-in-ca.ts) and the self-probe's throwaway chains (self-probe.ts). Node can
// sign but has no API that builds a certificate.

function derLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const octets: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) octets.unshift(rest % 256);
  return Buffer.from([0x80 | octets.length, ...octets]);
}

export function tlv(tag: number, ...content: Uint8Array[]): Buffer {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), derLength(body.length), body]);
}

export const sequence = (...content: Uint8Array[]): Buffer => tlv(0x30, ...content);

/** An OBJECT IDENTIFIER from its dotted form. */
export function oid(dotted: string): Buffer {
  const [first, second, ...rest] = dotted.split('.').map(Number);
  const bytes = [first! * 40 + second!];
  for (const arc of rest) {
    const groups = [arc & 0x7f];
    for (let value = Math.floor(arc / 128); value > 0; value = Math.floor(value / 128)) groups.unshift((value & 0x7f) | 0x80);
    bytes.push(...groups);
  }
  return tlv(0x06, Buffer.from(bytes));
}

/** A positive INTEGER from its big-endian magnitude. */
function positiveInteger(magnitude: Uint8Array): Buffer {
  let from = 0;
  while (from < magnitude.length - 1 && magnitude[from] === 0) from++;
  const trimmed = magnitude.subarray(from);
  return tlv(0x02, trimmed[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
}

export const octetString = (bytes: Uint8Array): Buffer => tlv(0x04, bytes);
const TRUE = tlv(0x01, Buffer.from([0xff]));
/** GeneralizedTime, from its text (`YYYYMMDDHHMMSSZ`). */
export const generalizedTime = (text: string): Buffer => tlv(0x18, Buffer.from(text, 'latin1'));
/** UTCTime, to the second (dates from 1950 to 2049). */
export const utcTime = (date: Date): Buffer => tlv(0x17, Buffer.from(date.toISOString().replace(/[-:T]/g, '').slice(2, 14) + 'Z', 'latin1'));

export function extension(id: string, critical: boolean, value: Uint8Array): Buffer {
  return sequence(oid(id), ...(critical ? [TRUE] : []), octetString(value));
}

/** basicConstraints CA:TRUE, critical. */
export const BASIC_CONSTRAINTS_CA: Buffer = extension('2.5.29.19', true, sequence(TRUE));
const ED25519 = sequence(oid('1.3.101.112'));
const ECDSA_WITH_SHA256 = sequence(oid('1.2.840.10045.4.3.2'));

type CertificateFields = Readonly<Record<'serial' | 'issuer' | 'subject' | 'validity' | 'spki', Uint8Array>> & { readonly extensions: readonly Uint8Array[]; readonly signer: KeyObject };

/**
 * A v3 certificate (DER): the names, `validity` and `spki` as encoded, `serial` as a big-endian
 * magnitude, signed by `signer` (Ed25519, or EC with SHA-256).
 */
export function signedCertificate(fields: CertificateFields): Buffer {
  const edwards = fields.signer.asymmetricKeyType === 'ed25519';
  const algorithm = edwards ? ED25519 : ECDSA_WITH_SHA256;
  const extensions = fields.extensions.length > 0 ? [tlv(0xa3, sequence(...fields.extensions))] : [];
  const tbs = sequence(tlv(0xa0, tlv(0x02, Buffer.from([2]))), positiveInteger(fields.serial), algorithm, fields.issuer, fields.validity, fields.subject, fields.spki, ...extensions);
  const signature = sign(edwards ? null : 'sha256', tbs, fields.signer);
  return sequence(tbs, algorithm, tlv(0x03, Buffer.from([0]), signature));
}

export function pem(der: Uint8Array): string {
  const base64 = Buffer.from(der).toString('base64');
  const lines = base64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}
