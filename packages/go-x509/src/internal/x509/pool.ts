import { createHash } from 'node:crypto';
import { binaryString, bytesEqual } from './der.ts';
import { parseCertificate, type Certificate } from './certificate.ts';
import { decodePem } from './pem.ts';

// x509.CertPool as Go 1.19 builds and searches it: certificates deduplicated by the SHA-224 of
// their DER, indexed by raw subject bytes, candidates for a child ordered by how their
// SubjectKeyId relates to the child's AuthorityKeyId.

export class CertPool {
  private readonly byName = new Map<string, Certificate[]>();
  private readonly sums = new Set<string>();
  private readonly order: Certificate[] = [];
  private count = 0;

  get length(): number {
    return this.count;
  }

  /** CertPool.AddCert: a certificate with the same DER as one already held is ignored. */
  add(cert: Certificate): void {
    const sum = createHash('sha224').update(cert.raw).digest('hex');
    if (this.sums.has(sum)) return;
    this.sums.add(sum);
    this.count++;
    this.order.push(cert);
    const key = binaryString(cert.rawSubject);
    const list = this.byName.get(key);
    if (list === undefined) this.byName.set(key, [cert]);
    else list.push(cert);
  }

  /** Every certificate held, in the order added. */
  certificates(): readonly Certificate[] {
    return this.order;
  }

  /** CertPool.Subjects: the raw subject of every certificate held, in the order added. */
  subjects(): Uint8Array[] {
    return this.order.map((c) => c.rawSubject);
  }

  /** CertPool.contains: by the SHA-224 of the DER. */
  contains(cert: Certificate): boolean {
    return this.sums.has(createHash('sha224').update(cert.raw).digest('hex'));
  }

  /** findPotentialParents: same raw subject as the child's raw issuer, key-id matches first. */
  findPotentialParents(child: Certificate): Certificate[] {
    const named = this.byName.get(binaryString(child.rawIssuer));
    if (named === undefined) return [];
    const matching: Certificate[] = [];
    const one: Certificate[] = [];
    const mismatch: Certificate[] = [];
    for (const candidate of named) {
      const skid = candidate.subjectKeyId;
      const akid = child.authorityKeyId;
      if (bytesEqual(skid, akid)) matching.push(candidate);
      else if ((skid.length === 0 && akid.length > 0) || (skid.length > 0 && akid.length === 0)) one.push(candidate);
      else mismatch.push(candidate);
    }
    return [...matching, ...one, ...mismatch];
  }
}

export interface SkippedBlock {
  readonly file: number;
  readonly reason: string;
}

/**
 * AppendCertsFromPEM over one file's text (Latin-1 of its bytes, or plain text for ASCII PEM),
 * pausing after each PEM block so that a caller can spread a large file over several turns of
 * its event loop.
 */
export function* appendCertsFromPemSteps(pool: CertPool, text: string, file: number, skipped: SkippedBlock[]): Generator<void, boolean> {
  let rest = latin1(text);
  let ok = false;
  for (; rest.length > 0; yield) {
    const decoded = decodePem(rest);
    if (decoded === undefined) break;
    rest = decoded.rest;
    const { block } = decoded;
    if (block.type !== 'CERTIFICATE') {
      skipped.push({ file, reason: `PEM block of type ${JSON.stringify(block.type)} is not a CERTIFICATE` });
      continue;
    }
    if (block.hasHeaders) {
      skipped.push({ file, reason: 'CERTIFICATE block carries PEM headers' });
      continue;
    }
    const cert = parseCertificate(block.bytes);
    if (typeof cert === 'string') {
      skipped.push({ file, reason: cert });
      continue;
    }
    pool.add(cert);
    ok = true;
  }
  return ok;
}

// A PEM file read as UTF-8 text turns any non-ASCII byte into one or more code units; Go works
// on bytes. Re-encoding to UTF-8 and viewing the bytes as Latin-1 recovers the byte positions.
function latin1(text: string): string {
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) > 0x7f) return Buffer.from(text, 'utf8').toString('latin1');
  }
  return text;
}
