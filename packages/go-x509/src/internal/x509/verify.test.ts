import { describe, expect, it } from 'vitest';
import { buildCases } from '../../../test/x509-cases.ts';
import { caCert, certificate, cn, ext, key, NOW, OID, toPem } from '../../../test/x509-fixtures.ts';
import { createClientTrustPool, verifyClientChain } from './client-chain.ts';

// Each case's expected verdict is Go 1.26's (crypto/tls processCertsFromClient around
// x509.Certificate.Verify), confirmed by running Go 1.26.8 on the same chains.
describe('verifyClientChain decides as Go 1.26 does', () => {
  const cases = buildCases();

  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const verdict = verifyClientChain(c.chain, createClientTrustPool(c.pool), NOW);
    if (c.expect === 'accept') {
      expect(verdict).toEqual({ accept: true });
    } else {
      expect(verdict).toEqual({ accept: false, reason: c.expect });
    }
  });
});

describe('createClientTrustPool', () => {
  const k = key('pool-root');
  const root = caCert(cn('pool-root'), k);

  it('counts distinct certificates across files and lists what Go skips', () => {
    const pool = createClientTrustPool([
      toPem(root) + toPem(root),
      `${toPem(root)}-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n`,
      toPem(root).replace('-----\n', '-----\nX-Note: y\n\n'),
      toPem(certificate({ subject: cn('dup'), key: k, extensions: [ext.eku(OID.clientAuth), ext.eku(OID.clientAuth)] })),
      'not pem at all',
    ]);
    expect(pool.size).toBe(1);
    expect(pool.skipped).toEqual([
      { file: 1, reason: 'PEM block of type "PRIVATE KEY" is not a CERTIFICATE' },
      { file: 2, reason: 'CERTIFICATE block carries PEM headers' },
      { file: 3, reason: 'x509: certificate contains duplicate extension with OID "2.5.29.37"' },
    ]);
  });

  it('reads the bytes Go reads: a byte-order mark hides the first block, other text does not', () => {
    // Go's AppendCertsFromPEM on the same texts, as UTF-8 bytes: 1, 1, 1, 0 certificates.
    const other = toPem(caCert(cn('pool-other'), key('pool-other')));
    expect(createClientTrustPool([`\ufeff${toPem(root)}${other}`]).size).toBe(1);
    expect(createClientTrustPool([`\ufeff\n${toPem(root)}`]).size).toBe(1);
    expect(createClientTrustPool([`é\n${toPem(root)}`]).size).toBe(1);
    expect(createClientTrustPool([toPem(root).replace('MII', 'MIé')]).size).toBe(0);
  });

  it('refuses a pool object it did not make', () => {
    expect(() => verifyClientChain([root], { size: 1, skipped: [] }, NOW)).toThrow(TypeError);
  });

  it('admits by the clock it is given, defaulting to now', () => {
    const leaf = certificate({
      subject: cn('clock'),
      key: key('clock'),
      issuer: cn('pool-root'),
      issuerKey: k,
      extensions: [ext.eku(OID.clientAuth)],
      notBefore: new Date(Date.now() - 3600_000),
      notAfter: new Date(Date.now() + 3600_000),
    });
    const liveRoot = caCert(cn('pool-root'), k, { notBefore: new Date(Date.now() - 3600_000), notAfter: new Date(Date.now() + 3600_000) });
    const pool = createClientTrustPool([toPem(liveRoot)]);
    expect(verifyClientChain([leaf], pool)).toEqual({ accept: true });
    expect(verifyClientChain([leaf], pool, new Date(Date.now() + 2 * 3600_000)).accept).toBe(false);
  });
});
