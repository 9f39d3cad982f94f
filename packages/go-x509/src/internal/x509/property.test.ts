import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildCases } from '../../../test/x509-cases.ts';
import { NOW, tlv } from '../../../test/x509-fixtures.ts';
import { parseCertificate } from './certificate.ts';
import { createClientTrustPool, verifyClientChain } from './client-chain.ts';
import { DerReader } from './der.ts';

// Whatever a client sends, the verifier answers with a verdict: no exception escapes, and a
// certificate Go's parser accepts is never accepted with bytes appended.
const cases = buildCases();
const samples = [...new Map(cases.flatMap((c) => c.chain).map((d) => [Buffer.from(d).toString('hex'), d])).values()];
const pool = createClientTrustPool(cases[0]!.pool);

const mutated = fc.tuple(fc.constantFrom(...samples), fc.nat(), fc.nat(255), fc.constantFrom('set', 'flip', 'cut', 'insert')).map(([der, at, value, how]) => {
  const pos = at % der.length;
  const copy = Uint8Array.from(der);
  if (how === 'set') copy[pos] = value;
  if (how === 'flip') copy[pos] = copy[pos]! ^ (1 << (value % 8));
  if (how === 'cut') return copy.subarray(0, pos);
  if (how === 'insert') return Uint8Array.from([...copy.subarray(0, pos), value, ...copy.subarray(pos)]);
  return copy;
});

describe('the verifier on hostile input', () => {
  it('parses or refuses arbitrary bytes without throwing', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (bytes) => {
        const r = parseCertificate(bytes);
        expect(typeof r === 'string' || r.raw.length === bytes.length).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('parses or refuses mutated certificates without throwing, and trailing bytes are always refused', () => {
    fc.assert(
      fc.property(mutated, fc.uint8Array({ minLength: 1, maxLength: 4 }), (der, extra) => {
        const r = parseCertificate(der);
        if (typeof r !== 'string') expect(parseCertificate(Uint8Array.from([...der, ...extra]))).toBe('x509: trailing data');
      }),
      { numRuns: 2000 },
    );
  });

  it('gives a verdict for any list of (mutated) certificates', () => {
    fc.assert(
      fc.property(fc.array(mutated, { minLength: 1, maxLength: 6 }), (chain) => {
        const v = verifyClientChain(chain, pool, NOW);
        expect(v.accept || (typeof v.reason === 'string' && v.reason.length > 0)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('reads back every low-tag element it is given', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 255 }).filter((t) => (t & 0x1f) !== 0x1f),
        fc.uint8Array({ maxLength: 300 }),
        (tag, body) => {
          const r = new DerReader(tlv(tag, body));
          const e = r.readAny();
          expect(e?.tag).toBe(tag);
          expect(Buffer.from(e!.body).equals(Buffer.from(body))).toBe(true);
          expect(r.empty()).toBe(true);
        },
      ),
    );
  });
});
