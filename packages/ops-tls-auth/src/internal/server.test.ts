import { once } from 'node:events';
import { Agent, request } from 'node:https';
import { connect as connectTcp, type Socket } from 'node:net';
import { join } from 'node:path';
import { connect as connectTls } from 'node:tls';
import { createTestPki, type PemPair, type TestPki } from '@fabric-ops/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTlsCredentials } from './credentials.ts';
import { createHandshakeLog } from './handshake-log.ts';
import { X509Certificate } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { PLAIN_HTTP_ANSWER, type TlsServerOptions } from './server.ts';
import { useTestServers, type StartedServer } from '../../test/servers.ts';
import type { ChainJudge } from '@fabric-ops/go-x509/verifier';
import { attackChain } from '../../../../bench/lib/attack-chain.mjs';

let pki: TestPki;
let fromIntermediate: PemPair;
let anyEku: PemPair;
let anyEkuChain: PemPair;
let serverOnlyChain: PemPair;
beforeAll(async () => {
  pki = await createTestPki();
  const serverOnly = await pki.ca.issueIntermediate('s-server-only-ca', { extendedKeyUsage: ['serverAuth'] });
  let anyEkuUnderIntermediate: PemPair;
  let underServerOnly: PemPair;
  [fromIntermediate, anyEku, anyEkuUnderIntermediate, underServerOnly] = await Promise.all([
    pki.intermediateCa.issue('s-from-intermediate', { subject: { O: 'Org1', CN: 'intermediate-client' }, extendedKeyUsage: ['clientAuth'] }),
    pki.ca.issue('s-any-eku', { subject: { O: 'Org1', CN: 'any-eku' }, extendedKeyUsage: ['anyExtendedKeyUsage'] }),
    pki.intermediateCa.issue('s-any-eku-chain', { subject: { O: 'Org1', CN: 'any-eku-chain' }, extendedKeyUsage: ['anyExtendedKeyUsage'] }),
    serverOnly.issue('s-under-server-only', { subject: { O: 'Org1', CN: 'under-server-only' }, extendedKeyUsage: ['clientAuth'] }),
  ]);
  // The client sends its chain: leaf, then the intermediate.
  anyEkuChain = { ...anyEkuUnderIntermediate, cert: anyEkuUnderIntermediate.cert + pki.intermediateCa.cert };
  serverOnlyChain = { ...underServerOnly, cert: underServerOnly.cert + serverOnly.cert };
}, 60_000);
afterAll(() => pki?.cleanup());

type Started = StartedServer;
const startServer = useTestServers();

function start(over: Partial<TlsServerOptions> & { clientRootCAs?: string[] } = {}, host = '127.0.0.1'): Promise<Started> {
  const { clientRootCAs = [pki.ca.certFile], ...options } = over;
  const credentials = loadTlsCredentials({ certFile: pki.server.certFile, keyFile: pki.server.keyFile, clientRootCAs });
  return startServer({ credentials, ...options, host });
}

function get(target: Started, client?: PemPair, agent: Agent | false = false, resumed?: boolean[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.host,
        port: target.port,
        path: '/',
        ca: pki.ca.cert,
        agent,
        ...(client === undefined ? {} : { cert: client.cert, key: client.key }),
        // Node 22's client checks "::1." against the certificate's IP SANs and hangs up; these
        // tests are about the server, whose certificate names ::1.
        ...(target.host.includes(':') ? { checkServerIdentity: () => undefined } : {}),
      },
      (res) => {
        resumed?.push((res.socket as import('node:tls').TLSSocket).isSessionReused());
        let body = '';
        res.setEncoding('utf8').on('data', (c: string) => (body += c));
        res.on('end', () => resolve(body));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function rawConnection(port: number, host = '127.0.0.1'): Promise<{ socket: Socket; closed: Promise<string> }> {
  const socket = connectTcp(port, host);
  socket.on('error', () => {});
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  const closed = once(socket, 'close').then(() => Buffer.concat(chunks).toString('latin1'));
  await once(socket, 'connect');
  return { socket, closed };
}

describe('createTlsServer: connection deadlines', () => {
  it('closes a silent connection and a half-sent ClientHello at the handshake deadline, and logs each', async () => {
    const target = await start({ handshakeTimeoutMs: 400 });
    const silent = await rawConnection(target.port);
    const half = await rawConnection(target.port);
    // A TLS record header announcing 512 bytes of handshake, then only a few of them.
    half.socket.write(Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03]));
    await Promise.all([silent.closed, half.closed]);
    await expect.poll(() => target.lines.length).toBe(2);
    for (const line of target.lines) expect(line.message).toMatch(/^http: TLS handshake error from 127\.0\.0\.1:\d+: read tcp 127\.0\.0\.1:\d+->127\.0\.0\.1:\d+: i\/o timeout$/);
    // Without a certificate: a first client certificate would start a verifier thread, and on a
    // loaded machine that alone can take longer than this test's 400 ms deadline.
    expect(await get(target)).toBe('anonymous');
  });

  it('ends unfinished handshakes on request, so close() completes', async () => {
    const target = await start({ handshakeTimeoutMs: 60_000 });
    const silent = await rawConnection(target.port);
    const half = await rawConnection(target.port);
    half.socket.write(Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01]));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const closed = new Promise((resolve) => target.tls.server.close(resolve));
    expect(target.tls.endPendingHandshakes()).toBe(2);
    await Promise.all([silent.closed, half.closed, closed]);
  });
});

describe('createTlsServer: plain HTTP on the TLS port', () => {
  it("answers Go's 400 text byte for byte, logs nothing, and keeps serving TLS", async () => {
    const target = await start();
    const { socket, closed } = await rawConnection(target.port);
    socket.write('GET /version HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(await closed).toBe(PLAIN_HTTP_ANSWER);
    expect(PLAIN_HTTP_ANSWER).toBe('HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n');
    expect(target.lines).toEqual([]);
    expect(await get(target)).toBe('anonymous');
  });

  it("treats other bytes as a failed handshake, logged with OpenSSL's reason", async () => {
    const target = await start();
    const { socket, closed } = await rawConnection(target.port);
    socket.write('DELETE /logspec HTTP/1.1\r\n\r\n');
    expect(await closed).not.toContain('400');
    await expect.poll(() => target.lines.length).toBe(1);
    expect(target.lines[0]!.message).toMatch(/^http: TLS handshake error from 127\.0\.0\.1:\d+: tls: /);
    expect(target.lines[0]!.message).not.toMatch(/UNSPECIFIED/);
  });
});

describe('createTlsServer: client certificates as Go judges them', () => {
  it('with clientAuthRequired and only an intermediate in the pool, admits its clients and refuses the rest, logging why', async () => {
    const target = await start({ clientAuthRequired: true, clientRootCAs: [pki.intermediateCa.certFile] });
    expect(await get(target, fromIntermediate)).toBe('CN=intermediate-client,O=Org1');
    await expect(get(target, pki.clients.good)).rejects.toThrow();
    await expect(get(target)).rejects.toThrow();
    await expect.poll(() => target.lines.length).toBe(2);
    expect(target.lines[0]!.message).toMatch(/: tls: failed to verify certificate: x509: certificate signed by unknown authority$/);
    expect(target.lines[1]!.message).toMatch(/: tls: client didn't provide a certificate$/);
    expect(target.lines[0]!.fields).toMatchObject({ RemoteAddr: expect.stringMatching(/^127\.0\.0\.1:\d+$/), reason: expect.stringContaining('unknown authority') });
  });

  it('admits an anyExtendedKeyUsage-only leaf, and refuses a serverAuth-only one without clientAuthRequired', async () => {
    const target = await start();
    expect(await get(target, anyEku)).toBe('CN=any-eku,O=Org1');
    await expect(get(target, pki.clients.serverAuthOnly)).rejects.toThrow();
    await expect.poll(() => target.lines.length).toBe(1);
    expect(target.lines[0]!.message).toMatch(/incompatible key usage$/);
  });

  it('uses the chain the client sends: admits anyEKU under a sent intermediate, refuses a leaf under a sent serverAuth-only CA', async () => {
    const target = await start();
    expect(await get(target, anyEkuChain)).toBe('CN=any-eku-chain,O=Org1');
    await expect(get(target, serverOnlyChain)).rejects.toThrow();
    await expect.poll(() => target.lines.length).toBe(1);
    expect(target.lines[0]!.message).toMatch(/incompatible key usage$/);
  });

  it('keeps its verdict on TLS 1.3 session resumption, for a certificate only JavaScript admits', async () => {
    const target = await start({ clientAuthRequired: true, clientRootCAs: [pki.intermediateCa.certFile] });
    const agent = new Agent({ keepAlive: false, ca: pki.ca.cert, cert: fromIntermediate.cert, key: fromIntermediate.key });
    const resumed: boolean[] = [];
    try {
      expect(await get(target, fromIntermediate, agent, resumed)).toBe('CN=intermediate-client,O=Org1');
      expect(await get(target, fromIntermediate, agent, resumed)).toBe('CN=intermediate-client,O=Org1');
    } finally {
      agent.destroy();
    }
    expect(resumed).toEqual([false, true]);
    expect(target.lines).toEqual([]);
  });

  it("names the client's address for a handshake it abandons, after the connection is gone", async () => {
    const target = await start({}, '::1');
    // The client refuses the server's certificate mid-handshake and hangs up.
    const socket = connectTls({ host: '::1', port: target.port, ca: pki.ca.cert, checkServerIdentity: () => new Error('refused by the test') });
    socket.on('error', () => {});
    await new Promise((resolve) => socket.once('close', resolve));
    await expect.poll(() => target.lines.length).toBe(1);
    expect(target.lines[0]!.message).toMatch(/^http: TLS handshake error from \[::1\]:\d+: /);
  });

  it('logs an IPv6 client in brackets', async () => {
    const target = await start({}, '::1');
    await expect(get(target, pki.clients.expired)).rejects.toThrow();
    await expect.poll(() => target.lines.length).toBe(1);
    expect(target.lines[0]!.message).toMatch(/^http: TLS handshake error from \[::1\]:\d+: tls: failed to verify certificate: x509: certificate has expired/);
  });
});

describe('createTlsServer: the whole list the client sent', () => {
  // Node's non-leaking read hands over one issuer per level (the first sent); the list as sent is
  // read again only where that read frees what it makes (Node 24 and later, peer-chain.ts).
  const readsExactly = Number(process.versions.node.split('.')[0]) >= 24;
  it(`${readsExactly ? 'admits' : 'refuses (Node 20, 22)'} a client whose renewed intermediate comes after an untrusted copy with the same name and key; admits it in the other order`, async () => {
    // The state during a CA rotation: the client still sends the old copy of its intermediate
    // (issued by a CA this server does not trust) next to the new one (issued by the trusted
    // root). Go tries both; a reader that keeps one issuer per level refuses the client.
    const [root, rogue] = await Promise.all([pki.rootCa('rot-root'), pki.rootCa('rot-rogue')]);
    const intermediateOld = await rogue.issueIntermediate('rot-int-old', { subject: { CN: 'rot-intermediate' } });
    const intermediateNew = await root.issueIntermediate('rot-int-new', { subject: { CN: 'rot-intermediate' }, keyFile: intermediateOld.keyFile });
    const leaf = await intermediateNew.issue('rot-client', { subject: { O: 'Org1', CN: 'rotating-client' }, extendedKeyUsage: ['clientAuth'] });
    const client = (...chain: string[]): PemPair => ({ ...leaf, cert: chain.join('') });
    const [oldCopy, newCopy] = [intermediateOld.cert, intermediateNew.cert];

    const target = await start({ clientAuthRequired: true, clientRootCAs: [root.certFile] });
    const oldFirst = get(target, client(leaf.cert, oldCopy, newCopy));
    if (readsExactly) expect(await oldFirst).toBe('CN=rotating-client,O=Org1');
    else await expect(oldFirst).rejects.toThrow();
    expect(await get(target, client(leaf.cert, newCopy, oldCopy))).toBe('CN=rotating-client,O=Org1');
    await expect(get(target, client(leaf.cert, oldCopy))).rejects.toThrow();
    await expect.poll(() => target.lines.length).toBe(readsExactly ? 1 : 2);
    for (const { message } of target.lines) expect(message).toMatch(/: tls: failed to verify certificate: x509: certificate signed by unknown authority/);
  });
});

describe('createTlsServer: the limits on the Certificate message', () => {
  it("admits a 66 KB list (Go 1.26's limit is 256 KiB, no longer 64 KiB); past OpenSSL's 100 KiB the handshake fails before our check", async () => {
    const target = await start();
    const intermediate = pki.intermediateCa.cert;
    const size = new X509Certificate(intermediate).raw.length;
    const copies = (bytes: number): number => Math.ceil(bytes / (size + 5));
    const over64k = { ...fromIntermediate, cert: fromIntermediate.cert + intermediate.repeat(copies(66_000)) };
    const overOpenSsl = { ...fromIntermediate, cert: fromIntermediate.cert + intermediate.repeat(copies(110_000)) };
    expect(await get(target, over64k)).toBe('CN=intermediate-client,O=Org1');
    await expect(get(target, overOpenSsl)).rejects.toThrow();
    await expect.poll(() => target.lines.length).toBe(1);
    expect(target.lines[0]!.message).toMatch(/TLS handshake error from 127\.0\.0\.1:\d+: /);
  });
});

describe('createTlsServer: trust changes and stopping', () => {
  it("setCredentials rebuilds the verifier's pool from the new CA files", async () => {
    const target = await start({ clientAuthRequired: true, clientRootCAs: [pki.ca.certFile] });
    expect(await get(target, pki.clients.good)).toBe('CN=operator,O=Org1');
    await expect(get(target, pki.clients.rogueCa)).rejects.toThrow();
    target.tls.setCredentials(loadTlsCredentials({ certFile: pki.server.certFile, keyFile: pki.server.keyFile, clientRootCAs: [pki.rogueCa.certFile] }));
    expect(await get(target, pki.clients.rogueCa)).not.toBe('anonymous');
    await expect(get(target, pki.clients.good)).rejects.toThrow();
    await expect.poll(() => target.lines.length).toBe(2);
    for (const line of target.lines) expect(line.message).toMatch(/unknown authority/);
  });

  it('endPendingHandshakes also ends connections whose verdict is still being computed', async () => {
    // A verifier that never answers: every connection with a certificate stays waiting.
    const silentWorker = join(pki.dir, 'silent-verifier.mjs');
    writeFileSync(silentWorker, "import { parentPort } from 'node:worker_threads';\nparentPort.on('message', () => {});\n");
    const lines: string[] = [];
    const { tls, port } = await startServer({
      credentials: loadTlsCredentials({ certFile: pki.server.certFile, keyFile: pki.server.keyFile, clientRootCAs: [pki.ca.certFile] }),
      logger: { warn: (_f, m) => lines.push(m ?? '') },
      // Inline checks off: every verdict must wait for the silent thread.
      internals: { verifierWorkerFile: silentWorker, verifierInline: false },
    });
    const outcomes: Promise<string>[] = [];
    for (let i = 0; i < 4; i++) {
      const socket = connectTls({ host: '127.0.0.1', port, cert: pki.clients.good.cert, key: pki.clients.good.key, ca: pki.ca.cert });
      socket.on('error', () => {});
      await once(socket, 'secureConnect');
      // The client's side is done; a request sent now must never be answered.
      socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
      let answer = '';
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
      outcomes.push(new Promise((resolve) => socket.once('close', () => resolve(answer))));
    }
    expect(tls.endPendingHandshakes()).toBe(4);
    expect(await Promise.all(outcomes)).toEqual(['', '', '', '']);
    expect(lines).toEqual([]);
  });
});

describe('createTlsServer: verifier threads', () => {
  it('holds none while idle, starts one for the first client certificate (judged as before), none for a cached verdict, and ends it when idle again', async () => {
    let judge: ChainJudge | undefined;
    const target = await startServer({
      credentials: loadTlsCredentials({ certFile: pki.server.certFile, keyFile: pki.server.keyFile, clientRootCAs: [pki.ca.certFile] }),
      internals: { verifierIdleMs: 300, verifierInline: false, observeJudge: (observed) => (judge = observed) },
    });
    expect(await get(target)).toBe('anonymous');
    expect(judge?.threads).toBe(0);
    expect(await get(target, pki.clients.good)).toBe('CN=operator,O=Org1');
    expect(judge?.threads).toBe(1);
    await expect.poll(() => judge?.threads, { timeout: 5_000 }).toBe(0);
    expect(await get(target, pki.clients.good)).toBe('CN=operator,O=Org1'); // from the cache: no thread
    expect(judge?.threads).toBe(0);
    await expect(get(target, pki.clients.rogueCa)).rejects.toThrow();
    expect(judge?.threads).toBe(1);
    expect(target.lines.map((line) => line.message)).toEqual([expect.stringMatching(/unknown authority/)]);
  });
});

describe('createTlsServer: ordinary chains decided on the event loop', () => {
  it('admits and refuses small chains with no verifier thread at all, and sends a chain past the inline size to one', async () => {
    let judge: ChainJudge | undefined;
    const target = await startServer({
      credentials: loadTlsCredentials({ certFile: pki.server.certFile, keyFile: pki.server.keyFile, clientRootCAs: [pki.ca.certFile] }),
      internals: { observeJudge: (observed) => (judge = observed) },
    });
    expect(await get(target, pki.clients.good)).toBe('CN=operator,O=Org1');
    // Leaf and intermediate: two signatures, still within the limits.
    expect(await get(target, { ...fromIntermediate, cert: fromIntermediate.cert + pki.intermediateCa.cert })).toBe('CN=intermediate-client,O=Org1');
    await expect(get(target, pki.clients.rogueCa)).rejects.toThrow();
    await expect(get(target, pki.clients.expired)).rejects.toThrow();
    expect(judge?.threads).toBe(0);
    // Five certificates (the leaf, then its intermediate and CA twice over): Node's issuer path is
    // the leaf and its intermediate (the copies and the client CA are not judged), still small.
    const fiveLong = { ...fromIntermediate, cert: fromIntermediate.cert + pki.intermediateCa.cert + pki.ca.cert + pki.intermediateCa.cert + pki.ca.cert };
    expect(await get(target, fiveLong)).toBe('CN=intermediate-client,O=Org1');
    expect(judge?.threads).toBe(0);
    expect(target.lines.map((line) => line.message)).toEqual([expect.stringMatching(/unknown authority/), expect.stringMatching(/expired or is not yet valid/)]);
  });
});

/** A server trusting the test CA whose chain judge counts the checks it is asked to make. */
async function startCountingChecks(): Promise<{ target: Started; checks: () => number }> {
  let checks = 0;
  const target = await startServer({
    credentials: loadTlsCredentials({ certFile: pki.server.certFile, keyFile: pki.server.keyFile, clientRootCAs: [pki.ca.certFile] }),
    internals: {
      // Inline checks off: each check is a judge() call to count.
      verifierInline: false,
      observeJudge: (observed) => {
        const judge = observed.judge.bind(observed);
        observed.judge = (...args) => ((checks += 1), judge(...args));
      },
    },
  });
  return { target, checks: () => checks };
}

describe('createTlsServer: a reconnecting client', () => {
  it('is admitted from the known verdict without a new check; a new trust set checks it again', async () => {
    const { target, checks } = await startCountingChecks();
    for (let i = 0; i < 3; i++) expect(await get(target, pki.clients.good)).toBe('CN=operator,O=Org1');
    expect(checks()).toBe(1);
    target.tls.setCredentials(loadTlsCredentials({ certFile: pki.server.certFile, keyFile: pki.server.keyFile, clientRootCAs: [pki.ca.certFile] }));
    expect(await get(target, pki.clients.good)).toBe('CN=operator,O=Org1');
    expect(checks()).toBe(2);
  });
});

describe('createTlsServer: a client certificate that expires', () => {
  it('is admitted from the known verdict until the millisecond after its notAfter, and refused from then, as Go refuses it', async () => {
    // notAfter a few seconds ahead (whole seconds, as the certificate holds it).
    const expiring = await pki.ca.issue('s-expiring', { subject: { O: 'Org1', CN: 'expiring' }, extendedKeyUsage: ['clientAuth'], notAfter: new Date(Date.now() + 6_000) });
    const notAfter = Date.parse(new X509Certificate(expiring.cert).validTo);
    const { target, checks } = await startCountingChecks();
    expect(Date.now()).toBeLessThan(notAfter);
    expect(await get(target, expiring)).toBe('CN=expiring,O=Org1');
    expect(await get(target, expiring)).toBe('CN=expiring,O=Org1');
    expect(checks()).toBe(1); // the second from the known verdict
    // Go refuses it from notAfter + 1 ns; a verdict remembered to the end of that second would still admit it.
    await new Promise((resolve) => setTimeout(resolve, notAfter + 150 - Date.now()));
    await expect(get(target, expiring)).rejects.toThrow();
    expect(checks()).toBe(2);
    await expect.poll(() => target.lines.length).toBe(1);
    expect(target.lines[0]!.message).toMatch(/tls: failed to verify certificate: x509: certificate has expired or is not yet valid/);
  }, 30_000);
});

describe('createTlsServer: expensive chains', () => {
  it('serves a legitimate client while 8 connections keep presenting a leaf + 10 self-issued CAs sharing one RSA key', async () => {
    // 4,096 bits here (the benchmark uses 16,384): the point is the outcome, not the cost. Each
    // attacking handshake sends the CAs in a new order, so no cached verdict answers it.
    const chain = attackChain(pki.dir, { keyFile: join(pki.dir, 'attack-rsa4096.key'), bits: 4096 });
    const target = await start();
    let stopped = false;
    let attempts = 0;
    const attacker = async (): Promise<void> => {
      while (!stopped) {
        await new Promise<void>((resolve) => {
          const socket = connectTls({ host: target.host, port: target.port, cert: chain.shuffled(), key: chain.key, rejectUnauthorized: false });
          socket.on('error', () => {});
          socket.once('close', () => resolve());
          socket.resume();
        });
        attempts += 1;
      }
    };
    const attackers = Array.from({ length: 8 }, attacker);
    try {
      await expect.poll(() => target.lines.length, { timeout: 60_000 }).toBeGreaterThanOrEqual(8);
      for (let i = 0; i < 5; i++) expect(await get(target, pki.clients.good)).toBe('CN=operator,O=Org1');
    } finally {
      stopped = true;
      await Promise.all(attackers);
    }
    expect(attempts).toBeGreaterThanOrEqual(8);
    for (const line of target.lines) expect(line.message).toMatch(/: tls: failed to verify certificate: x509: /);
  }, 120_000);
});

describe('createHandshakeLog', () => {
  it('writes at most N lines a second and reports the suppressed count on the next line', () => {
    const lines: { fields: object; message: string }[] = [];
    let now = 0;
    const log = createHandshakeLog({ warn: (fields, message) => lines.push({ fields, message: message ?? '' }) }, 3, () => now);
    for (let i = 0; i < 10; i++) log('127.0.0.1:1', 'EOF');
    expect(lines).toHaveLength(3);
    now = 1_000;
    log('[::1]:2', 'EOF');
    expect(lines).toHaveLength(4);
    expect(lines[3]).toEqual({ fields: { RemoteAddr: '[::1]:2', reason: 'EOF', suppressed: 7 }, message: 'http: TLS handshake error from [::1]:2: EOF (7 more handshake errors not logged)' });
    log('127.0.0.1:3', 'EOF');
    expect(lines[4]!.fields).toEqual({ RemoteAddr: '127.0.0.1:3', reason: 'EOF' });
  });
});
