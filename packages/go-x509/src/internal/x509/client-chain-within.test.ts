import { describe, expect, it } from 'vitest';
import { buildCases } from '../../../test/x509-cases.ts';
import { caCert, certificate, cn, ext, key, NOW, OID, toPem } from '../../../test/x509-fixtures.ts';
import { createClientTrustPool, verifyClientChainUntil, verifyClientChainWithin } from './client-chain.ts';

describe('verifyClientChainWithin', () => {
  it('gives, on every case of the corpus, either no verdict or exactly the full verdict and its validity end', () => {
    let decided = 0;
    let undecided = 0;
    for (const c of buildCases()) {
      const pool = createClientTrustPool(c.pool);
      const within = verifyClientChainWithin(c.chain, pool, { maxSignatureChecks: 3, maxRsaBits: 4096 }, NOW);
      if (within === undefined) {
        undecided += 1;
        continue;
      }
      decided += 1;
      expect({ name: c.name, ...within }).toEqual({ name: c.name, ...verifyClientChainUntil(c.chain, pool, NOW) });
    }
    // Most cases are cheap; the searches over many candidates are not.
    expect(decided).toBeGreaterThan(undecided);
    expect(undecided).toBeGreaterThan(0);
  });

  const caKey = key('within-root');
  const root = caCert(cn('within-root'), caKey);
  const leaf = certificate({ subject: cn('within-leaf'), key: key('within-leaf'), issuer: cn('within-root'), issuerKey: caKey, extensions: [ext.eku(OID.clientAuth)] });
  const pool = createClientTrustPool([toPem(root)]);

  it('counts signatures verified, not reused: a leaf sent with its CA needs one', () => {
    expect(verifyClientChainWithin([leaf, root], pool, { maxSignatureChecks: 1, maxRsaBits: 4096 }, NOW)?.verdict).toEqual({ accept: true });
    expect(verifyClientChainWithin([leaf, root], pool, { maxSignatureChecks: 0, maxRsaBits: 4096 }, NOW)).toBeUndefined();
    // Refusals that need no signature are given at any limit.
    expect(verifyClientChainWithin([Uint8Array.from([0x30, 0x00])], pool, { maxSignatureChecks: 0, maxRsaBits: 4096 }, NOW)?.verdict.accept).toBe(false);
  });

  it('verifies with no RSA key larger than the limit', () => {
    const rsaKey = key('within-rsa-root', 'rsa');
    const rsaRoot = caCert(cn('within-rsa-root'), rsaKey);
    const rsaLeaf = certificate({ subject: cn('within-rsa-leaf'), key: key('within-rsa-leaf'), issuer: cn('within-rsa-root'), issuerKey: rsaKey, extensions: [ext.eku(OID.clientAuth)] });
    const rsaPool = createClientTrustPool([toPem(rsaRoot)]);
    expect(verifyClientChainWithin([rsaLeaf], rsaPool, { maxSignatureChecks: 3, maxRsaBits: 512 }, NOW)).toBeUndefined();
    expect(verifyClientChainWithin([rsaLeaf], rsaPool, { maxSignatureChecks: 3, maxRsaBits: 4096 }, NOW)?.verdict).toEqual({ accept: true });
  });

  it('refuses a pool object it did not make', () => {
    expect(() => verifyClientChainWithin([leaf], { size: 1, skipped: [] }, { maxSignatureChecks: 3, maxRsaBits: 4096 }, NOW)).toThrow(TypeError);
  });
});
