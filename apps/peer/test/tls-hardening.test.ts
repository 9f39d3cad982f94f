import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import { connect as connectTcp, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { peerLauncher, send, useTestPki, type PemPair, type RunningApp } from '@fabric-ops/test-kit';

// The real peer bin with TLS on: what an attacker
// or a misdirected client does to the TLS port, and client certificates Fabric (Go) admits.

const peers = peerLauncher(fileURLToPath(new URL('../dist/bin.cjs', import.meta.url)));
const pkiOf = useTestPki(async (pki) => {
  const operator = { O: 'Org1', CN: 'operator' };
  const serverOnlyCa = await pki.ca.issueIntermediate('hardening-server-only-ca', { extendedKeyUsage: ['serverAuth'] });
  const [fromIntermediate, anyEku, noEku, keyEnciphermentOnly, fromServerOnlyCa] = await Promise.all([
    pki.intermediateCa.issue('hardening-from-intermediate', { subject: operator, extendedKeyUsage: ['clientAuth'] }),
    pki.ca.issue('hardening-any-eku', { subject: operator, extendedKeyUsage: ['anyExtendedKeyUsage'] }),
    pki.ca.issue('hardening-no-eku', { subject: operator, extendedKeyUsage: [] }),
    pki.ca.issue('hardening-key-encipherment-only', { subject: operator, extendedKeyUsage: ['clientAuth'], keyUsage: ['keyEncipherment'] }),
    serverOnlyCa.issue('hardening-from-server-only-ca', { subject: operator, extendedKeyUsage: ['clientAuth'] }),
  ]);
  return { fromIntermediate, anyEku, noEku, keyEnciphermentOnly, fromServerOnlyCa, serverOnlyCaFile: serverOnlyCa.certFile };
});
afterAll(() => peers.stopAll());

const portOf = (app: RunningApp): number => Number(app.address.slice(app.address.lastIndexOf(':') + 1));

async function raw(app: RunningApp): Promise<{ socket: Socket; closed: Promise<{ text: string; afterMs: number }> }> {
  const socket = connectTcp(portOf(app), '127.0.0.1');
  socket.on('error', () => {});
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  await once(socket, 'connect');
  const began = Date.now();
  const closed = once(socket, 'close').then(() => ({ text: Buffer.concat(chunks).toString('latin1'), afterMs: Date.now() - began }));
  return { socket, closed };
}

/** A TLS record header announcing a 512-byte handshake message, followed by a few of its bytes. */
const HALF_CLIENT_HELLO = Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03]);

const tlsFiles = (over: { clientAuthRequired?: boolean; clientRootCAs?: string[] } = {}) => ({
  certFile: pkiOf().server.certFile,
  keyFile: pkiOf().server.keyFile,
  clientAuthRequired: over.clientAuthRequired ?? false,
  clientRootCAs: over.clientRootCAs ?? [pkiOf().ca.certFile],
});

describe('peer with TLS: connections that never finish the handshake', () => {
  it('closes a silent TCP connection and a half-sent ClientHello at the 10 s read timeout (Node alone: 120 s), and logs both', async () => {
    const app = await peers.start({ tls: tlsFiles() });
    const silent = await raw(app);
    const half = await raw(app);
    half.socket.write(HALF_CLIENT_HELLO);
    const [a, b] = await Promise.all([silent.closed, half.closed]);
    for (const closed of [a, b]) {
      expect(closed.afterMs).toBeGreaterThan(8_000);
      expect(closed.afterMs).toBeLessThan(14_000);
      expect(closed.text).toBe('');
    }
    await expect.poll(() => app.stdout.filter((l) => l.includes('http: TLS handshake error from 127.0.0.1:') && l.includes('i/o timeout')).length).toBe(2);
    expect((await send(app.address, '/version', { tls: { ca: pkiOf().ca.cert } })).status).toBe(200);
  }, 30_000);

  it('exits 0 within 5 s of SIGTERM while such connections are open', async () => {
    const app = await peers.start({ tls: tlsFiles() });
    const silent = await raw(app);
    const half = await raw(app);
    half.socket.write(HALF_CLIENT_HELLO);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const signalled = Date.now();
    app.child.kill('SIGTERM');
    const { code } = await app.exited;
    expect(code).toBe(0);
    expect(Date.now() - signalled).toBeLessThan(5_000);
    await Promise.all([silent.closed, half.closed]);
  }, 20_000);
});

describe('peer with TLS: plain HTTP to the TLS port', () => {
  it("gets Go's answer byte for byte, then the connection closes", async () => {
    const app = await peers.start({ tls: tlsFiles() });
    const { socket, closed } = await raw(app);
    socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
    const { text } = await closed;
    expect(text).toBe('HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n');
  }, 20_000);
});

describe('peer with TLS: client certificates as Fabric (Go crypto/x509) decides', () => {
  it('clientAuthRequired with only an intermediate in clientRootCAs: admits its clients (no chain sent), refuses and logs the rest', async () => {
    const app = await peers.start({ tls: tlsFiles({ clientAuthRequired: true, clientRootCAs: [pkiOf().intermediateCa.certFile] }) });
    const withCert = (pair: PemPair) => ({ tls: { ca: pkiOf().ca.cert, cert: pair.cert, key: pair.key } });
    for (const path of ['/healthz', '/version', '/logspec', '/metrics']) {
      expect([path, (await send(app.address, path, withCert(pkiOf().issued.fromIntermediate))).status]).toEqual([path, 200]);
    }
    await expect(send(app.address, '/version', withCert(pkiOf().clients.good))).rejects.toThrow();
    await expect(send(app.address, '/version', { tls: { ca: pkiOf().ca.cert } })).rejects.toThrow();
    await expect
      .poll(() => app.stdout.filter((l) => l.includes('http: TLS handshake error from 127.0.0.1:')).map((l) => /unknown authority|didn't provide a certificate/.exec(l)?.[0]))
      .toEqual(['unknown authority', "didn't provide a certificate"]);
    expect(app.stdout.some((l) => l.includes('UNSPECIFIED'))).toBe(false);
  }, 30_000);

  it('admits anyExtendedKeyUsage-only, EKU-less and keyEncipherment-only leaves; refuses a leaf under a serverAuth-only CA', async () => {
    const app = await peers.start({ tls: tlsFiles({ clientAuthRequired: true, clientRootCAs: [pkiOf().ca.certFile] }) });
    for (const [name, pair] of [
      ['anyEKU', pkiOf().issued.anyEku],
      ['no EKU', pkiOf().issued.noEku],
      ['keyEncipherment only', pkiOf().issued.keyEnciphermentOnly],
    ] as const) {
      const reply = await send(app.address, '/logspec', { tls: { ca: pkiOf().ca.cert, cert: pair.cert, key: pair.key } });
      expect([name, reply.status]).toEqual([name, 200]);
    }
    const chain = pkiOf().issued.fromServerOnlyCa.cert + readFileSync(pkiOf().issued.serverOnlyCaFile, 'utf8');
    await expect(send(app.address, '/logspec', { tls: { ca: pkiOf().ca.cert, cert: chain, key: pkiOf().issued.fromServerOnlyCa.key } })).rejects.toThrow();
    await expect.poll(() => app.stdout.some((l) => l.includes('incompatible key usage'))).toBe(true);
  }, 30_000);
});

describe("peer with TLS started with node's own options", () => {
  it('judges client certificates when the operator gives heap sizes and --expose-gc on the command line', async () => {
    // Before: the verifier thread was started with these options listed explicitly, Node refused
    // them there (ERR_WORKER_INVALID_EXEC_ARGV), and every client certificate was refused.
    const app = await peers.start({ tls: tlsFiles({ clientAuthRequired: true }) }, {}, ['--max-old-space-size=512', '--max-semi-space-size=2', '--expose-gc']);
    const good = await send(app.address, '/logspec', { tls: { ca: pkiOf().ca.cert, cert: pkiOf().clients.good.cert, key: pkiOf().clients.good.key } });
    expect(good.status).toBe(200);
    await expect(send(app.address, '/logspec', { tls: { ca: pkiOf().ca.cert, cert: pkiOf().clients.rogueCa.cert, key: pkiOf().clients.rogueCa.key } })).rejects.toThrow();
    expect(app.stdout.some((l) => l.includes('invalid execArgv'))).toBe(false);
  }, 30_000);
});
