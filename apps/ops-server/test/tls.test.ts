import { X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { connect, type TLSSocket } from 'node:tls';
import { clientSubjectOf, isTlsAuthError, type TlsSettings } from '@fabric-ops/ops-tls-auth';
import { createTestPki, send, type TestPki } from '@fabric-ops/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOperationsSystem, type OperationsSystemOptions } from '../src/index.ts';
import { capturingLogger, useSystems, type LoggedLine } from './systems.ts';

let pki: TestPki;
beforeAll(async () => {
  pki = await createTestPki();
});
afterAll(() => pki.cleanup());

const systems = useSystems();

const tlsOn = (over: Partial<TlsSettings> = {}): TlsSettings => ({ enabled: true, clientAuthRequired: false, ...pki.serverTls, ...over });

/** A system with a secure probe route that records who reached it. */
async function startSystem(options: Partial<OperationsSystemOptions> = {}) {
  const lines: LoggedLine[] = [];
  const seen: (string | undefined)[] = [];
  const system = systems.create({ logger: capturingLogger(lines), ...options });
  system.addRoute({
    path: '/secure-probe',
    secure: true,
    handler: (req: IncomingMessage, res) => {
      seen.push(clientSubjectOf(req));
      res.end('secret');
    },
  });
  await system.start();
  return { system, lines, seen };
}

const good = () => ({ ca: pki.ca.cert, cert: pki.clients.good.cert, key: pki.clients.good.key });

describe('operations system with TLS', () => {
  it("answers 401 with an empty body and no request id to a secure route without a certificate, and logs Fabric's warning", async () => {
    const { system, lines, seen } = await startSystem({ tls: tlsOn() });
    const reply = await send(system.address(), '/secure-probe?q=1', { tls: { ca: pki.ca.cert } });
    expect(reply.status).toBe(401);
    expect(reply.body).toBe('');
    expect(reply.headers['content-length']).toBe('0');
    expect(reply.headers['x-request-id']).toBeUndefined();
    expect(seen).toEqual([]);
    expect(lines.filter((l) => l.level === 'warn')).toEqual([
      {
        level: 'warn',
        fields: { URL: '/secure-probe?q=1', Method: 'GET', RemoteAddr: expect.stringMatching(/^127\.0\.0\.1:\d+$/) },
        msg: 'Client request not authorized, client must pass a valid client certificate for this operation',
      },
    ]);
    expect((await send(system.address(), '/version', { tls: { ca: pki.ca.cert } })).status).toBe(200);
  });

  it("serves a handler that returns res.end()'s value over TLS, request after request", async () => {
    const { system } = await startSystem({ tls: tlsOn() });
    system.addRoute({ path: '/hello', secure: true, handler: (_req, res) => res.end('hi\n') });
    for (let i = 0; i < 3; i++) expect(await send(system.address(), '/hello', { tls: good() })).toMatchObject({ status: 200, body: 'hi\n' });
  });

  it('hands the verified subject to handlers', async () => {
    const { system, seen } = await startSystem({ tls: tlsOn() });
    const reply = await send(system.address(), '/secure-probe', { tls: good() });
    expect([reply.status, reply.body]).toEqual([200, 'secret']);
    expect(seen).toEqual(['CN=operator,O=Org1']);
  });

  it('never runs a handler for a presented certificate that failed verification, and says why in the log', async () => {
    const { system, seen, lines } = await startSystem({ tls: tlsOn() });
    for (const bad of [pki.clients.rogueCa, pki.clients.expired, pki.clients.notYetValid, pki.clients.serverAuthOnly]) {
      await expect(send(system.address(), '/secure-probe', { tls: { ca: pki.ca.cert, cert: bad.cert, key: bad.key } })).rejects.toThrow();
      await expect(send(system.address(), '/version', { tls: { ca: pki.ca.cert, cert: bad.cert, key: bad.key } })).rejects.toThrow();
    }
    expect(seen).toEqual([]);
    // Go's line and Go's reasons (crypto/tls + crypto/x509), one per refused connection.
    const reasons = lines.filter((l) => l.msg?.startsWith('http: TLS handshake error from 127.0.0.1:')).map((l) => String(l.fields['reason']));
    expect(reasons).toHaveLength(8);
    for (const reason of reasons) expect(reason).toMatch(/^tls: failed to verify certificate: x509: /);
    const kinds = reasons.map((r) => /unknown authority|is after|is before|incompatible key usage/.exec(r)?.[0]);
    expect(new Set(kinds)).toEqual(new Set(['unknown authority', 'is after', 'is before', 'incompatible key usage']));
  });

  it('with an empty client CA list refuses every client certificate, yet serves open routes without one (Fabric)', async () => {
    const { system, seen } = await startSystem({ tls: tlsOn({ clientRootCAs: [] }) });
    await expect(send(system.address(), '/version', { tls: good() })).rejects.toThrow();
    expect((await send(system.address(), '/version', { tls: { ca: pki.ca.cert } })).status).toBe(200);
    expect((await send(system.address(), '/secure-probe', { tls: { ca: pki.ca.cert } })).status).toBe(401);
    expect(seen).toEqual([]);
  });

  it('keeps secure routes open with TLS off (Fabric)', async () => {
    const { system, seen } = await startSystem();
    expect((await send(system.address(), '/secure-probe')).status).toBe(200);
    expect(seen).toEqual([undefined]);
  });

  it('applies an opt-in allow-list per secure route', async () => {
    const { system, lines } = await startSystem({ tls: tlsOn(), tlsAllowList: { '/secure-probe': [{ organization: 'Org2' }, { commonName: 'admin' }] } });
    const refused = await send(system.address(), '/secure-probe', { tls: good() });
    expect([refused.status, refused.body]).toEqual([403, '']);
    expect(lines.find((l) => l.fields['Subject'] === 'CN=operator,O=Org1')).toBeDefined();
    const admin = await pki.ca.issue(`admin-${Date.now()}`, { subject: { O: 'Org9', CN: 'admin' }, extendedKeyUsage: ['clientAuth'] });
    expect((await send(system.address(), '/secure-probe', { tls: { ca: pki.ca.cert, cert: admin.cert, key: admin.key } })).status).toBe(200);
  });

  it('rejects a malformed allow-list when the system is created', () => {
    expect(() => createOperationsSystem({ listenAddress: '127.0.0.1:0', version: { version: '1', commitSHA: '' }, tls: tlsOn(), tlsAllowList: { '/secure-probe': [] } })).toThrow(
      'tls.allowList./secure-probe: expected a non-empty list of rules',
    );
  });

  it('resumes TLS sessions, and a resumed connection keeps its verified identity', async () => {
    const { system, seen } = await startSystem({ tls: tlsOn() });
    const port = Number(system.address().split(':').at(-1));
    const request = (session?: Buffer) =>
      new Promise<{ reused: boolean; session: Buffer | undefined; head: string }>((resolve, reject) => {
        let ticket: Buffer | undefined;
        const socket: TLSSocket = connect({ host: '127.0.0.1', port, ...good(), ...(session ? { session } : {}) }, () => {
          socket.write('GET /secure-probe HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
        });
        socket.on('session', (s: Buffer) => (ticket = s));
        let head = '';
        socket.on('data', (d: Buffer) => (head += d.toString()));
        socket.on('end', () => resolve({ reused: socket.isSessionReused(), session: ticket, head: head.split('\r\n')[0]! }));
        socket.on('error', reject);
      });
    const first = await request();
    expect(first.reused).toBe(false);
    expect(first.session).toBeDefined();
    const second = await request(first.session);
    expect(second.reused).toBe(true);
    expect(second.head).toBe('HTTP/1.1 200 OK');
    expect(seen).toEqual(['CN=operator,O=Org1', 'CN=operator,O=Org1']);
  });

  it("refuses TLS 1.2 renegotiation (as Go does), so a connection's verified identity cannot change", async () => {
    const { system } = await startSystem({ tls: tlsOn() });
    const port = Number(system.address().split(':').at(-1));
    const socket = await new Promise<TLSSocket>((resolve, reject) => {
      const s: TLSSocket = connect({ host: '127.0.0.1', port, maxVersion: 'TLSv1.2', ...good() }, () => resolve(s));
      s.once('error', reject);
    });
    socket.on('error', () => {});
    // Admitted and served first: the attempt comes on a connection the HTTP layer already has.
    socket.write('GET /version HTTP/1.1\r\nHost: x\r\n\r\n');
    expect((await once(socket, 'data'))[0].toString()).toMatch(/^HTTP\/1\.1 200 /);
    const outcome = await new Promise<string>((resolve) => {
      setTimeout(() => resolve('no answer'), 3_000);
      socket.once('close', () => resolve('closed'));
      const started = socket.renegotiate({ rejectUnauthorized: true }, (error) => resolve(error ? 'refused' : 'renegotiated'));
      if (!started) resolve('refused');
    });
    socket.destroy();
    expect(outcome).not.toBe('renegotiated');
  });

  it('reloadCredentials() throws on bad files and keeps serving the old certificate; stop() releases SIGHUP', async () => {
    const sighupBefore = process.listenerCount('SIGHUP');
    const settings = { ...tlsOn() };
    const { system } = await startSystem({ tls: settings });
    expect(process.listenerCount('SIGHUP')).toBe(sighupBefore + 1);
    (settings as { keyFile: string }).keyFile = pki.clients.good.keyFile;
    let thrown: unknown;
    try {
      system.reloadCredentials();
    } catch (error) {
      thrown = error;
    }
    expect(isTlsAuthError(thrown) && thrown.code).toBe('KEY_MISMATCH');
    expect((await send(system.address(), '/version', { tls: good() })).status).toBe(200);
    await system.stop();
    expect(process.listenerCount('SIGHUP')).toBe(sighupBefore);
  });

  it('reloads a server certificate clients will refuse (as Go serves it) and warns: expired, not yet valid, clientAuth only', async () => {
    const settings = { ...tlsOn() };
    const { system, lines } = await startSystem({ tls: settings });
    const now = Date.now();
    const shapes = [
      { name: 'expired', over: { notBefore: new Date(now - 72 * 3_600_000), notAfter: new Date(now - 24 * 3_600_000) }, warning: /server certificate expired at/ },
      { name: 'not-yet-valid', over: { notBefore: new Date(now + 24 * 3_600_000), notAfter: new Date(now + 72 * 3_600_000) }, warning: /not valid before/ },
      { name: 'client-auth-only', over: { extendedKeyUsage: ['clientAuth'] as const }, warning: /does not include serverAuth/ },
    ];
    for (const shape of shapes) {
      const pair = await pki.ca.issue(`reload-warning-${shape.name}`, { subject: { CN: 'localhost' }, extendedKeyUsage: ['serverAuth'], ipAddresses: ['127.0.0.1'], ...shape.over });
      Object.assign(settings, { certFile: pair.certFile, keyFile: pair.keyFile });
      const before = lines.length;
      system.reloadCredentials();
      expect(
        lines
          .slice(before)
          .filter((l) => l.level === 'warn')
          .map((l) => l.msg)
          .join('\n'),
        shape.name,
      ).toMatch(shape.warning);
      const port = Number(system.address().split(':').at(-1));
      const served = await new Promise<string>((resolve, reject) => {
        const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
          resolve(socket.getPeerX509Certificate()!.serialNumber);
          socket.destroy();
        });
        socket.once('error', reject);
      });
      expect(served, shape.name).toBe(new X509Certificate(pair.cert).serialNumber);
    }
  });

  it('fails start() with the one-line TlsAuthError and leaves no SIGHUP handler behind', async () => {
    const sighupBefore = process.listenerCount('SIGHUP');
    const system = createOperationsSystem({ listenAddress: '127.0.0.1:0', version: { version: '1', commitSHA: '' }, tls: tlsOn({ certFile: '/missing/cert.pem' }) });
    await expect(system.start()).rejects.toThrow('operations.tls.cert.file: open /missing/cert.pem: no such file or directory');
    expect(process.listenerCount('SIGHUP')).toBe(sighupBefore);
    expect(system.address()).toBe('');
  });
});
