import { X509Certificate } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent as HttpsAgent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type ConnectionOptions, type TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send, type Reply, type SendOptions } from './http-client.ts';
import { createTestPki, type PemPair, type TestPki } from './pki.ts';
import { runAppToExit, spawnApp, type RunningApp } from './spawn-app.ts';
import { configDir } from './app-contract.ts';

/** The operations TLS settings a config file should carry (ops-config's shape). */
export interface TlsConfigSettings {
  readonly enabled: boolean;
  readonly certFile: string;
  readonly keyFile: string;
  readonly clientAuthRequired: boolean;
  readonly clientRootCAs: readonly string[];
}

export interface TlsAppContract {
  /** Absolute path of the built bin. */
  readonly bin: string;
  /** `core.yaml` or `orderer.yaml`. */
  readonly configFileName: string;
  /** Config text: listen on `listenAddress`, these TLS settings, and the prometheus metrics provider. */
  readonly config: (listenAddress: string, tls: TlsConfigSettings) => string;
  /** The start-up failure prefix (`failed to initialize operations subsystem` / `failed to start operations subsystem`). */
  readonly startFailurePrefix: string;
  /** The config key names the error lines must use. */
  readonly certFileKey: string;
  readonly keyFileKey: string;
}

const ENDPOINTS = ['/healthz', '/version', '/logspec', '/metrics'] as const;
const SECURE = new Set<string>(['/logspec', '/metrics']);
const UNAUTHORIZED_TEXT = 'Client request not authorized, client must pass a valid client certificate for this operation';

type ClientKind = 'no certificate' | 'good' | 'rogue CA' | 'expired' | 'not yet valid' | 'serverAuth only';
const CLIENT_KINDS: readonly ClientKind[] = ['no certificate', 'good', 'rogue CA', 'expired', 'not yet valid', 'serverAuth only'];

type Mode = { readonly name: string; readonly enabled: boolean; readonly clientAuthRequired: boolean };
const MODES: readonly Mode[] = [
  { name: 'TLS off', enabled: false, clientAuthRequired: false },
  { name: 'TLS on, clientAuthRequired false', enabled: true, clientAuthRequired: false },
  { name: 'TLS on, clientAuthRequired true', enabled: true, clientAuthRequired: true },
];

/** What a request must get: the route's normal answer, 401 with an empty body, or no HTTP answer at all. */
type Outcome = 'served' | '401' | 'refused';

/** The specification's authentication table plus Fabric's "a presented bad certificate kills the handshake". */
export function expectedOutcome(mode: Mode, path: string, client: ClientKind): Outcome {
  if (!mode.enabled) return 'served';
  if (client === 'good') return 'served';
  if (client !== 'no certificate') return 'refused';
  if (mode.clientAuthRequired) return 'refused';
  return SECURE.has(path) ? '401' : 'served';
}

function clientPair(pki: TestPki, client: ClientKind): PemPair | undefined {
  switch (client) {
    case 'no certificate':
      return undefined;
    case 'good':
      return pki.clients.good;
    case 'rogue CA':
      return pki.clients.rogueCa;
    case 'expired':
      return pki.clients.expired;
    case 'not yet valid':
      return pki.clients.notYetValid;
    case 'serverAuth only':
      return pki.clients.serverAuthOnly;
  }
}

function tlsOptions(pki: TestPki, pair: PemPair | undefined): NonNullable<SendOptions['tls']> {
  return { ca: pki.ca.cert, ...(pair === undefined ? {} : { cert: pair.cert, key: pair.key }) };
}

/** Resolves the reply, or the network error when the server gave no HTTP answer. */
async function attempt(address: string, path: string, options: SendOptions): Promise<Reply | Error> {
  try {
    return await send(address, path, { timeoutMs: 15_000, ...options });
  } catch (error) {
    return error as Error;
  }
}

/** Opens a raw TLS connection and reports how the handshake ended. */
function handshake(address: string, options: ConnectionOptions): Promise<{ socket?: TLSSocket; error?: Error }> {
  const port = Number(address.slice(address.lastIndexOf(':') + 1));
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, ...options }, () => resolve({ socket }));
    socket.setTimeout(15_000, () => socket.destroy(new Error('handshake timed out')));
    socket.once('error', (error) => resolve({ error }));
  });
}

function serialOf(pem: string): string {
  return new X509Certificate(pem).serialNumber;
}

/**
 * The mutual-TLS behaviour the peer and the orderer share, against the spawned bin with a
 * PKI generated for this run: the full mode × endpoint × client-certificate matrix, protocol
 * limits, plain HTTP to the TLS port, start-up failures, and credential reload.
 */
export function describeTlsContract(name: string, contract: TlsAppContract): void {
  let pki: TestPki;
  const running: RunningApp[] = [];
  const dirs: string[] = [];

  beforeAll(async () => {
    pki = await createTestPki();
  });
  afterAll(async () => {
    for (const app of running.splice(0)) app.kill();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
    await pki?.cleanup();
  });

  const settingsFor = (mode: Mode, files: { certFile: string; keyFile: string } = pki.server): TlsConfigSettings => ({
    enabled: mode.enabled,
    certFile: mode.enabled ? files.certFile : '',
    keyFile: mode.enabled ? files.keyFile : '',
    clientAuthRequired: mode.clientAuthRequired,
    clientRootCAs: mode.enabled ? [pki.ca.certFile] : [],
  });

  const start = async (tls: TlsConfigSettings): Promise<RunningApp> => {
    const dir = configDir(contract.configFileName, contract.config('127.0.0.1:0', tls));
    dirs.push(dir);
    const app = await spawnApp(contract.bin, { env: { FABRIC_CFG_PATH: dir } });
    running.push(app);
    return app;
  };

  describe(`${name}: mutual TLS matrix (3 modes × endpoints × client certificates)`, () => {
    for (const mode of MODES) {
      describe(mode.name, () => {
        let app: RunningApp;
        let routes: string[];
        beforeAll(async () => {
          app = await start(settingsFor(mode));
          // Which of the four routes this build serves: 404 means not mounted (yet).
          routes = [];
          for (const path of ENDPOINTS) {
            const reply = await send(app.address, path, mode.enabled ? { tls: tlsOptions(pki, pki.clients.good) } : {});
            if (reply.status !== 404) routes.push(path);
          }
        });

        it('serves all four endpoints, each answering 200 to an authorised GET', async () => {
          // The matrix below only covers mounted routes; this keeps it from silently shrinking.
          expect(routes).toEqual([...ENDPOINTS]);
          for (const path of routes) {
            const reply = await send(app.address, path, mode.enabled ? { tls: tlsOptions(pki, pki.clients.good) } : {});
            expect([path, reply.status]).toEqual([path, 200]);
          }
        });

        const clients: readonly ClientKind[] = mode.enabled ? CLIENT_KINDS : ['no certificate'];
        for (const client of clients) {
          it(`${mode.enabled ? client : 'plain HTTP (no handshake, so no certificate)'}: every endpoint answers per the table`, async () => {
            const stdoutBefore = app.stdout.length;
            let expected401 = 0;
            for (const path of routes) {
              const outcome = expectedOutcome(mode, path, client);
              const result = await attempt(app.address, path, mode.enabled ? { tls: tlsOptions(pki, clientPair(pki, client)) } : {});
              const label = `${mode.name} / ${client} / GET ${path}`;
              if (outcome === 'refused') {
                expect(result, label).toBeInstanceOf(Error);
              } else {
                expect(result, label).not.toBeInstanceOf(Error);
                const reply = result as Reply;
                if (outcome === '401') {
                  expected401 += 1;
                  expect([label, reply.status, reply.body, reply.headers['x-request-id']]).toEqual([label, 401, '', undefined]);
                } else {
                  expect([label, reply.status]).toEqual([label, 200]);
                }
              }
            }
            if (expected401 > 0) {
              // Fabric's WARN names the URL, method and remote address of every refused request.
              await expect.poll(() => app.stdout.slice(stdoutBefore).filter((l) => l.includes(UNAUTHORIZED_TEXT)).length, { timeout: 5_000 }).toBe(expected401);
              // Whatever the log format (JSON or Fabric's text), the line is a warning naming URL, method and remote address.
              const lines = app.stdout.slice(stdoutBefore).filter((l) => l.includes(UNAUTHORIZED_TEXT));
              for (const line of lines) {
                expect(line).toMatch(/"level":40|WARN/i);
                expect(line).toMatch(/GET/);
                expect(line).toMatch(/127\.0\.0\.1:\d+/);
              }
              for (const path of routes.filter((p) => SECURE.has(p))) expect(lines.some((l) => l.includes(path))).toBe(true);
            }
          });
        }

        if (mode.enabled) {
          it('keeps serving after refusing bad certificates (no crash, no leak of refused sockets into handlers)', async () => {
            const reply = await send(app.address, '/version', { tls: tlsOptions(pki, pki.clients.good) });
            expect(reply.status).toBe(200);
            expect(app.child.exitCode).toBeNull();
          });
        } else {
          it('does not speak TLS at all', async () => {
            const result = await handshake(app.address, { ca: pki.ca.cert });
            expect(result.error).toBeInstanceOf(Error);
          });
        }
      });
    }
  });

  describe(`${name}: protocol limits`, () => {
    let app: RunningApp;
    beforeAll(async () => {
      app = await start(settingsFor(MODES[1]!));
    });

    it('refuses a client that offers at most TLS 1.1', async () => {
      // SECLEVEL=0 so the client really offers TLS 1.1 instead of refusing locally.
      const result = await handshake(app.address, { ca: pki.ca.cert, minVersion: 'TLSv1', maxVersion: 'TLSv1.1', ciphers: 'DEFAULT@SECLEVEL=0' });
      result.socket?.destroy();
      expect(result.error?.message).toMatch(/protocol version|unsupported protocol/i);
    });

    it("negotiates TLS 1.3 by default and only Fabric's GCM suites on TLS 1.2", async () => {
      const tls13 = await handshake(app.address, { ca: pki.ca.cert, cert: pki.clients.good.cert, key: pki.clients.good.key });
      expect(tls13.socket?.getProtocol()).toBe('TLSv1.3');
      tls13.socket?.destroy();
      const tls12 = await handshake(app.address, { ca: pki.ca.cert, maxVersion: 'TLSv1.2' });
      expect(tls12.socket?.getProtocol()).toBe('TLSv1.2');
      expect(tls12.socket?.getCipher().standardName).toBe('TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256');
      tls12.socket?.destroy();
      const cbcOnly = await handshake(app.address, { ca: pki.ca.cert, maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES128-SHA256:ECDHE-ECDSA-CHACHA20-POLY1305' });
      cbcOnly.socket?.destroy();
      expect(cbcOnly.error?.message).toMatch(/handshake failure/i);
    });

    it('offers only http/1.1 through ALPN', async () => {
      const both = await handshake(app.address, { ca: pki.ca.cert, ALPNProtocols: ['h2', 'http/1.1'] });
      expect(both.socket?.alpnProtocol).toBe('http/1.1');
      both.socket?.destroy();
    });

    it('ends a plain-HTTP request to the TLS port cleanly and keeps serving', async () => {
      const began = Date.now();
      const result = await attempt(app.address, '/version', { timeoutMs: 10_000 });
      expect(Date.now() - began).toBeLessThan(10_000);
      if (!(result instanceof Error)) expect(result.status).toBeGreaterThanOrEqual(400);
      const after = await send(app.address, '/version', { tls: tlsOptions(pki, undefined) });
      expect(after.status).toBe(200);
    });

    it('serves a certificate file that holds a chain (leaf + intermediate)', async () => {
      const chained = await start({ ...settingsFor(MODES[1]!, pki.serverChain) });
      const result = await handshake(chained.address, { ca: pki.ca.cert });
      expect(result.error).toBeUndefined();
      const presented = result.socket!.getPeerCertificate(true);
      expect(presented.issuerCertificate?.subject.CN).toBe('ops-intermediate-ca');
      result.socket!.destroy();
    });
  });

  describe(`${name}: misconfigured TLS fails fast with one line`, () => {
    const failWith = async (tls: TlsConfigSettings): Promise<string> => {
      const dir = configDir(contract.configFileName, contract.config('127.0.0.1:0', tls));
      dirs.push(dir);
      const result = await runAppToExit(contract.bin, { env: { FABRIC_CFG_PATH: dir } });
      expect(result.code).toBe(1);
      expect(result.stderr.split('\n').filter((l) => l !== '')).toHaveLength(1);
      // --check-config reaches the same verdict with the same line
      const checked = await runAppToExit(contract.bin, { env: { FABRIC_CFG_PATH: dir }, args: ['--check-config'] });
      expect(checked).toEqual({ code: 1, stdout: '', stderr: result.stderr });
      return result.stderr;
    };
    // the file's key as ops-config labels it (a variable would be named instead)
    const certLabel = `${contract.configFileName}: ${contract.certFileKey}`;
    const keyLabel = `${contract.configFileName}: ${contract.keyFileKey}`;

    it('names the certificate key and a missing path', async () => {
      const stderr = await failWith({ ...settingsFor(MODES[1]!), certFile: '/nonexistent/ops/server.pem' });
      expect(stderr).toBe(`${certLabel}: open /nonexistent/ops/server.pem: no such file or directory\n`);
    });

    it('names the key file when it does not match the certificate', async () => {
      const stderr = await failWith({ ...settingsFor(MODES[1]!), keyFile: pki.clients.good.keyFile });
      expect(stderr).toBe(`${keyLabel}: ${pki.clients.good.keyFile}: private key does not match the certificate in ${pki.server.certFile}\n`);
    });

    it('names a certificate file that holds no PEM', async () => {
      const junk = join(pki.dir, `junk-${name}.pem`);
      writeFileSync(junk, 'not a certificate\n');
      const stderr = await failWith({ ...settingsFor(MODES[1]!), certFile: junk });
      expect(stderr).toBe(`${certLabel}: ${junk}: no PEM certificate found\n`);
    });
  });

  describe(`${name}: credential reload without restart`, () => {
    let app: RunningApp;
    let files: { certFile: string; keyFile: string };
    let rotated: PemPair;
    beforeAll(async () => {
      const dir = mkdtempSync(join(tmpdir(), 'fabric-ops-tls-live-'));
      dirs.push(dir);
      files = { certFile: join(dir, 'server.pem'), keyFile: join(dir, 'server.key') };
      copyFileSync(pki.server.certFile, files.certFile);
      copyFileSync(pki.server.keyFile, files.keyFile);
      rotated = await pki.ca.issue(`server-rotated-${name}-${Date.now()}`, {
        subject: { O: 'Operations Test', CN: 'localhost' },
        extendedKeyUsage: ['serverAuth'],
        dnsNames: ['localhost'],
        ipAddresses: ['127.0.0.1'],
      });
      app = await start(settingsFor(MODES[1]!, files));
    });

    const servedSerial = async (): Promise<string> => {
      const result = await handshake(app.address, { ca: pki.ca.cert, cert: pki.clients.good.cert, key: pki.clients.good.key });
      if (result.error) throw result.error;
      const serial = result.socket!.getPeerX509Certificate()!.serialNumber;
      result.socket!.destroy();
      return serial;
    };

    it('keeps the old credentials and serves on when the new files are bad', async () => {
      writeFileSync(files.certFile, 'garbage\n');
      app.child.kill('SIGHUP');
      await expect.poll(() => app.stdout.some((l) => l.includes('not reloaded')), { timeout: 10_000 }).toBe(true);
      expect(await servedSerial()).toBe(serialOf(pki.server.cert));
      copyFileSync(pki.server.certFile, files.certFile);
    });

    it('serves rotated files to new handshakes after SIGHUP while a keep-alive connection stays up', async () => {
      const agent = new HttpsAgent({ keepAlive: true, maxSockets: 1, ca: pki.ca.cert, cert: pki.clients.good.cert, key: pki.clients.good.key });
      try {
        const sockets: TLSSocket[] = [];
        agent.on('free', (socket) => sockets.push(socket as TLSSocket));
        const first = await send(app.address, '/version', { agent, tls: { ca: pki.ca.cert, cert: pki.clients.good.cert, key: pki.clients.good.key } });
        expect(first.status).toBe(200);
        const kept = sockets[0]!;
        expect(kept.getPeerX509Certificate()!.serialNumber).toBe(serialOf(pki.server.cert));

        writeFileSync(files.keyFile, rotated.key);
        writeFileSync(files.certFile, rotated.cert);
        app.child.kill('SIGHUP');
        await expect.poll(servedSerial, { timeout: 10_000, interval: 200 }).toBe(serialOf(rotated.cert));

        const second = await send(app.address, '/version', { agent, tls: { ca: pki.ca.cert, cert: pki.clients.good.cert, key: pki.clients.good.key } });
        expect(second.status).toBe(200);
        expect(sockets.at(-1)).toBe(kept);
        expect(kept.destroyed).toBe(false);
      } finally {
        agent.destroy();
      }
    });

    it('picks up files changed on disk without a signal', async () => {
      writeFileSync(files.keyFile, pki.server.key);
      writeFileSync(files.certFile, pki.server.cert);
      await expect.poll(servedSerial, { timeout: 15_000, interval: 250 }).toBe(serialOf(pki.server.cert));
      expect(app.child.exitCode).toBeNull();
    });
  });
}
