import { describe, expect, it } from 'vitest';
import { certificate, cn, ext, key, OID } from '../../../test/x509-fixtures.ts';
import { parseCertificate, type Certificate } from './certificate.ts';
import { CertPool } from './pool.ts';

function parsed(der: Uint8Array): Certificate {
  const c = parseCertificate(der);
  if (typeof c === 'string') throw new Error(c);
  return c;
}

describe("CertPool as Go's", () => {
  const issuerName = cn('issuer');
  const skid = (id: number[]): Uint8Array[] => (id.length > 0 ? [ext.skid(Uint8Array.from(id))] : []);
  const candidate = (serial: bigint, id: number[]): Certificate => parsed(certificate({ subject: issuerName, key: key('pool-issuer'), serial, extensions: [ext.basicConstraints(true), ...skid(id)] }));

  it('holds each DER once, in the order added', () => {
    const pool = new CertPool();
    const a = candidate(1n, []);
    const b = candidate(2n, []);
    pool.add(a);
    pool.add(b);
    pool.add(parsed(a.raw));
    expect(pool.length).toBe(2);
    expect(pool.subjects()).toHaveLength(2);
    expect(pool.contains(parsed(b.raw))).toBe(true);
  });

  it('offers same-named parents with a matching key id first, then one-sided, then mismatched', () => {
    const pool = new CertPool();
    const mismatch = candidate(1n, [9]);
    const none = candidate(2n, []);
    const match = candidate(3n, [1, 2]);
    const otherName = parsed(certificate({ subject: cn('someone else'), key: key('pool-issuer'), serial: 4n, extensions: [ext.skid(Uint8Array.from([1, 2]))] }));
    for (const c of [mismatch, none, otherName, match]) pool.add(c);
    const child = (akid: number[]): Certificate =>
      parsed(
        certificate({
          subject: cn('child'),
          key: key('pool-child'),
          issuer: issuerName,
          issuerKey: key('pool-issuer'),
          extensions: [ext.eku(OID.clientAuth), ...(akid.length > 0 ? [ext.akid(Uint8Array.from(akid))] : [])],
        }),
      );
    expect(pool.findPotentialParents(child([1, 2])).map((c) => c.serial)).toEqual([3n, 2n, 1n]);
    // No AuthorityKeyId: a parent without SubjectKeyId matches (both empty), the others are one-sided.
    expect(pool.findPotentialParents(child([])).map((c) => c.serial)).toEqual([2n, 1n, 3n]);
  });
});
