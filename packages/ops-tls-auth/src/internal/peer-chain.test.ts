import { X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { connect, createServer, type TLSSocket } from 'node:tls';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createTestPki, type PemPair, type TestCa, type TestPki } from '@fabric-ops/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { certificateMessageLength, clientCertificateMessageProblem } from '@fabric-ops/go-x509';
import { captureChainsEarly, createAdmittedChains, createExactReads, createRefusedLeaves } from './peer-chain.ts';
import { nativeChainIsFaithful } from './self-probe.ts';

let pki: TestPki;
let leaf: PemPair;
let otherIntermediate: TestCa;
beforeAll(async () => {
  pki = await createTestPki();
  otherIntermediate = await pki.ca.issueIntermediate('pc-other-intermediate');
  leaf = await pki.intermediateCa.issue('pc-leaf', { subject: { O: 'Org1', CN: 'chain-as-sent' }, extendedKeyUsage: ['clientAuth'] });
}, 60_000);
afterAll(() => pki?.cleanup());

const derOf = (pem: string): Buffer => new X509Certificate(pem).raw;

async function capturedOver(version: 'TLSv1.2' | 'TLSv1.3', sentPems: readonly string[], key: string): Promise<{ list: Buffer[]; authorized: boolean }> {
  // OpenSSL trusts the root, so its own verification succeeds: the case in which some Node
  // lines drop everything after the leaf unless it is read early.
  const server = createServer({ cert: pki.server.cert, key: pki.server.key, ca: [pki.ca.cert], requestCert: true, rejectUnauthorized: false });
  const read = captureChainsEarly(server, (der) => der.equals(derOf(pki.ca.cert)));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const accepted = once(server, 'secureConnection') as Promise<[TLSSocket]>;
    const client = connect({ port: (server.address() as AddressInfo).port, host: '127.0.0.1', cert: sentPems.join(''), key, rejectUnauthorized: false, minVersion: version, maxVersion: version });
    client.on('error', () => {});
    const [socket] = await accepted;
    const got = read(socket);
    client.destroy();
    socket.destroy();
    return { list: got !== undefined && 'list' in got ? (got.list ?? []).map((der) => Buffer.from(der)) : [], authorized: socket.authorized };
  } finally {
    server.close();
  }
}

describe('captureChainsEarly', () => {
  for (const version of ['TLSv1.2', 'TLSv1.3'] as const) {
    it(`reads a chain sent in issuing order as sent (${version})`, async () => {
      const sent = [leaf.cert, pki.intermediateCa.cert];
      const { list, authorized } = await capturedOver(version, sent, leaf.key);
      expect(authorized).toBe(true);
      expect(list).toEqual(sent.map(derOf));
    });

    it(`reads Node's issuer path: unrelated extras, duplicates and a second candidate are not in it (${version})`, async () => {
      const sent = [leaf.cert, pki.rogueCa.cert, pki.intermediateCa.cert, otherIntermediate.cert, pki.intermediateCa.cert, pki.ca.cert];
      const { list } = await capturedOver(version, sent, leaf.key);
      expect(list).toEqual([leaf.cert, pki.intermediateCa.cert].map(derOf));
    });
  }

  it("reads a lone leaf as a list of one (the issuer Node adds from OpenSSL's store is dropped)", async () => {
    const { list } = await capturedOver('TLSv1.3', [pki.clients.good.cert], pki.clients.good.key);
    expect(list).toEqual([derOf(pki.clients.good.cert)]);
  });
});

describe('nativeChainIsFaithful', () => {
  it('finds the early capture faithful on this Node line (through a real tls.Server, TLS 1.2 and 1.3, verified and not)', async () => {
    expect(await nativeChainIsFaithful()).toBe(true);
  });
});

describe('certificateMessageLength', () => {
  it("counts Go's body length: TLS 1.2 list, TLS 1.3 context byte and per-entry extensions", () => {
    const list = [new Uint8Array(1000), new Uint8Array(500)];
    expect(certificateMessageLength(list, false)).toBe(3 + 3 + 1000 + 3 + 500);
    expect(certificateMessageLength(list, true)).toBe(1 + 3 + 3 + 1000 + 2 + 3 + 500 + 2);
  });

  it("refuses a list whose message body passes Go 1.26's 262,144 bytes on the protocol it is sent over", () => {
    // 3 + (3 + 262,138) = 262,144 over TLS 1.2: within the limit; TLS 1.3 adds 1 + 2 bytes: over it.
    const list = [new Uint8Array(262_138)];
    expect(clientCertificateMessageProblem(list, 'TLSv1.2')).toBeUndefined();
    expect(clientCertificateMessageProblem(list, 'TLSv1.3')).toBe('tls: handshake message of length 262147 bytes exceeds maximum of 262144 bytes');
  });
});

describe('createAdmittedChains', () => {
  it('remembers the list admitted for a leaf, bounded, oldest out first', () => {
    const chains = createAdmittedChains(2);
    const a = [Buffer.from('leaf-a'), Buffer.from('ca')];
    chains.remember(a);
    chains.remember([Buffer.from('leaf-b')]);
    chains.remember([Buffer.from('leaf-c')]);
    expect(chains.forLeaf(Buffer.from('leaf-a'))).toBeUndefined();
    expect(chains.forLeaf(Buffer.from('leaf-c'))).toEqual([Buffer.from('leaf-c')]);
  });
});

describe('createRefusedLeaves', () => {
  it('answers a refused leaf with its reason for the time given, never a busy or slow check, and forgets on clear', () => {
    let now = 1_000;
    const leaves = createRefusedLeaves(2_000, 8, () => now);
    const leaf = Buffer.from('leaf');
    leaves.remember(leaf, 'tls: failed to verify certificate: x509: certificate signed by unknown authority');
    leaves.remember(Buffer.from('busy'), 'tls: server busy verifying client certificates');
    leaves.remember(Buffer.from('slow'), 'tls: client certificate check took too long');
    expect(leaves.reasonFor(leaf)).toBe('tls: failed to verify certificate: x509: certificate signed by unknown authority');
    expect(leaves.reasonFor(Buffer.from('busy'))).toBeUndefined();
    expect(leaves.reasonFor(Buffer.from('slow'))).toBeUndefined();
    now += 2_000;
    expect(leaves.reasonFor(leaf)).toBeUndefined();
    leaves.remember(leaf, 'tls: x');
    leaves.clear();
    expect(leaves.reasonFor(leaf)).toBeUndefined();
  });
});

describe('createExactReads', () => {
  const freesWhatItReads = Number(process.versions.node.split('.')[0]) >= 24;
  /** A connection whose client sent `count` certificates of `bytes` each, as getPeerX509Certificate links them. */
  const sending = (count: number, bytes: number): TLSSocket => {
    let chain: object | undefined;
    for (let i = 0; i < count; i++) chain = { raw: Buffer.alloc(bytes, i), issuerCertificate: chain };
    return { getPeerX509Certificate: () => chain } as unknown as TLSSocket;
  };

  it.runIf(freesWhatItReads)('reads while what earlier reads hold is under the budget, each held until as many full collections as its list is long', () => {
    let collections = 0;
    const reads = createExactReads(100_000, () => collections);
    const other = createExactReads(100_000, () => collections);
    // 161 certificates of 415 bytes (66.8 KB) hold more than the budget: nothing more until they are freed
    expect(reads(sending(161, 415))).toHaveLength(161);
    expect(reads(sending(2, 750))).toBeUndefined();
    expect(other(sending(2, 750))).toHaveLength(2); // each server has its own allowance
    collections = 160;
    expect(reads(sending(2, 750))).toBeUndefined();
    collections = 161;
    // short lists: each holds its DER and ~4 KiB a certificate (9,692 bytes), freed after 2 collections
    const read = Array.from({ length: 20 }, () => reads(sending(2, 750))).filter((list) => list !== undefined);
    expect(read).toHaveLength(11);
    collections += 2;
    expect(reads(sending(2, 750))).toHaveLength(2);
  });

  it.runIf(freesWhatItReads)('counts the real full collections of the process', async () => {
    const reads = createExactReads(1);
    expect(reads(sending(1, 10))).toHaveLength(1);
    expect(reads(sending(1, 10))).toBeUndefined();
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    let again: Buffer[] | undefined;
    for (let i = 0; i < 5 && again === undefined; i++) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 10)); // gc entries are delivered asynchronously
      again = reads(sending(1, 10));
    }
    expect(again).toHaveLength(1);
  });

  it.runIf(!freesWhatItReads)('never reads on a line where the exact read keeps memory', () => {
    const reads = createExactReads();
    expect(reads(sending(2, 750))).toBeUndefined();
  });
});
