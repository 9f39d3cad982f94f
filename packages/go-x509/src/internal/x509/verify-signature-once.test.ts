import { describe, expect, it, vi } from 'vitest';
import { caCert, certificate, cn, ext, key, NOW, OID, toPem } from '../../../test/x509-fixtures.ts';
import { createClientTrustPool, verifyClientChain } from './client-chain.ts';
import { checkSignatureFrom } from './signature.ts';

// The real check, counted: the verdicts below are the real ones.
vi.mock('./signature.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('./signature.ts')>();
  return { ...real, checkSignatureFrom: vi.fn(real.checkSignatureFrom) };
});

const counted = vi.mocked(checkSignatureFrom);

describe('a signature is checked once per child and parent key in one verification', () => {
  const caKey = key('once-root');
  const root = caCert(cn('once-root'), caKey);
  const leaf = certificate({ subject: cn('once-leaf'), key: key('once-leaf'), issuer: cn('once-root'), issuerKey: caKey, extensions: [ext.eku(OID.clientAuth)] });
  const pool = createClientTrustPool([toPem(root)]);

  it('a client that sends its CA after its certificate: the copy is the root, verified once', () => {
    counted.mockClear();
    expect(verifyClientChain([leaf, root], pool, NOW)).toEqual({ accept: true });
    // Go tries the root, then the copy sent (same DER): one verification serves both.
    expect(counted).toHaveBeenCalledTimes(1);
  });

  it('the leaf alone: one check, as before', () => {
    counted.mockClear();
    expect(verifyClientChain([leaf], pool, NOW)).toEqual({ accept: true });
    expect(counted).toHaveBeenCalledTimes(1);
  });

  it('a re-issued CA (same name and key, other bytes) offers the same key: checked once', () => {
    const reissued = caCert(cn('once-root'), caKey, { notBefore: new Date(NOW.getTime() - 7200_000) });
    counted.mockClear();
    expect(verifyClientChain([leaf, reissued], pool, NOW)).toEqual({ accept: true });
    expect(counted).toHaveBeenCalledTimes(1);
  });

  it('same-name CAs sharing two keys before the real one: each key checked once, the refusal text unchanged', () => {
    const decoyKeys = [key('once-decoy-a'), key('once-decoy-b')];
    const decoys = Array.from({ length: 6 }, (_, i) => caCert(cn('once-root'), decoyKeys[i % 2]!, { notBefore: new Date(NOW.getTime() - (i + 2) * 3600_000) }));
    const decoyPool = createClientTrustPool([...decoys.map((d) => toPem(d)), toPem(root)]);
    counted.mockClear();
    expect(verifyClientChain([leaf], decoyPool, NOW)).toEqual({ accept: true });
    expect(counted).toHaveBeenCalledTimes(3);
    // Without the real CA every candidate fails; Go's hint names the first failure, as before.
    const onlyDecoys = createClientTrustPool(decoys.map((d) => toPem(d)));
    counted.mockClear();
    expect(verifyClientChain([leaf], onlyDecoys, NOW)).toEqual({
      accept: false,
      reason:
        'tls: failed to verify certificate: x509: certificate signed by unknown authority (possibly because of "x509: ECDSA verification failure" while trying to verify candidate authority certificate "once-root")',
    });
    expect(counted).toHaveBeenCalledTimes(2);
  });

  it('a CA of the same name with another key is a parent of its own and is checked', () => {
    const other = caCert(cn('once-root'), key('once-other-root'));
    counted.mockClear();
    expect(verifyClientChain([leaf, other], pool, NOW)).toEqual({ accept: true });
    expect(counted).toHaveBeenCalledTimes(2);
  });

  it('a refusal is reused too, with the same reason Go gives', () => {
    const otherKey = key('once-other');
    const forged = certificate({ subject: cn('once-forged'), key: key('once-forged'), issuer: cn('once-root'), issuerKey: otherKey, extensions: [ext.eku(OID.clientAuth)] });
    counted.mockClear();
    const verdict = verifyClientChain([forged, root], pool, NOW);
    expect(verdict.accept).toBe(false);
    expect(verdict).toEqual({ accept: false, reason: expect.stringContaining('x509: certificate signed by unknown authority') as unknown as string });
    expect(counted).toHaveBeenCalledTimes(1);
  });
});
