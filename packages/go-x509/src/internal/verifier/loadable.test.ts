import { useTestPki } from '@fabric-ops/test-kit';
import { describe, expect, it, vi } from 'vitest';
import { certificateLoads, loadableCertificates } from './loadable.ts';

// Counts the certificates OpenSSL parses on this thread (a thread of its own does not see this module).
const parsedHere = vi.hoisted(() => ({ count: 0 }));
vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  class CountedX509Certificate extends actual.X509Certificate {
    constructor(...args: ConstructorParameters<typeof actual.X509Certificate>) {
      parsedHere.count += 1;
      super(...args);
    }
  }
  return { ...actual, X509Certificate: CountedX509Certificate };
});

const pkiOf = useTestPki();

describe('loadableCertificates', () => {
  it('says which blocks OpenSSL loads, in order: a few here, many on a thread of their own', async () => {
    const pki = pkiOf();
    const good = [pki.ca.cert, pki.rogueCa.cert, pki.clients.good.cert];
    // the base64 of a DER SEQUENCE's header changed: still PEM, no longer a certificate
    const garbled = good.map((pem) => pem.replace('MII', 'MIZ'));
    const few = [good[0]!, garbled[0]!, good[1]!];
    let before = parsedHere.count;
    expect(await loadableCertificates(few)).toEqual([true, false, true]);
    expect(few.map(certificateLoads)).toEqual([true, false, true]);
    expect(parsedHere.count - before).toBe(6);

    const many = Array.from({ length: 30 }, (_, index) => (index % 3 === 1 ? garbled : good)[index % 3]!);
    before = parsedHere.count;
    expect(await loadableCertificates(many)).toEqual(many.map((_, index) => index % 3 !== 1));
    expect(parsedHere.count - before).toBe(0);
    expect(await loadableCertificates([])).toEqual([]);
  });
});
