import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, sign, X509Certificate } from 'node:crypto';
import { copyFileSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestPki, type TestPki } from '@fabric-ops/test-kit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadTlsCredentials, loadTlsCredentialsOffThread, type TlsCredentials } from './credentials.ts';
import { createCredentialReloader, type ReloadTrigger } from './reload.ts';

// Counts the certificates OpenSSL parses on this thread (a thread of its own does not see this module).
const parsedHere = vi.hoisted(() => ({ count: 0 }));
vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  class CountedX509Certificate extends actual.X509Certificate {
    constructor(...args: ConstructorParameters<typeof actual.X509Certificate>) {
      super(...args);
      parsedHere.count += 1;
    }
  }
  return { ...actual, X509Certificate: CountedX509Certificate };
});

/** `count` small self-signed P-256 CA certificates (one key, each its own name), PEM, made without openssl. */
function smallCas(count: number): string {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const tlv = (tag: number, ...content: Buffer[]): Buffer => {
    const body = Buffer.concat(content);
    const length = body.length < 0x80 ? Buffer.from([body.length]) : Buffer.from([0x82, body.length >> 8, body.length & 0xff]);
    return Buffer.concat([Buffer.from([tag]), length, body]);
  };
  const ecdsa = tlv(0x30, Buffer.from('06082a8648ce3d040302', 'hex'));
  const time = (ms: number): Buffer => tlv(0x17, Buffer.from(new Date(ms).toISOString().replace(/[-:T]/g, '').slice(2, 14) + 'Z'));
  const validity = tlv(0x30, time(Date.now() - 86_400_000), time(Date.now() + 86_400_000));
  const ca = tlv(0xa3, tlv(0x30, tlv(0x30, Buffer.from('0603551d13', 'hex'), Buffer.from('0101ff', 'hex'), tlv(0x04, tlv(0x30, Buffer.from('0101ff', 'hex'))))));
  let pems = '';
  for (let i = 0; i < count; i++) {
    const name = tlv(0x30, tlv(0x31, tlv(0x30, Buffer.from('0603550403', 'hex'), tlv(0x0c, Buffer.from(`reload-ca-${i}`)))));
    const tbs = tlv(0x30, tlv(0xa0, tlv(0x02, Buffer.from([2]))), tlv(0x02, Buffer.from([0x10 + (i >> 8), i & 0xff])), ecdsa, name, validity, name, spki, ca);
    pems += new X509Certificate(tlv(0x30, tbs, ecdsa, tlv(0x03, Buffer.from([0]), sign('sha256', tbs, privateKey)))).toString();
  }
  return pems;
}

let pki: TestPki;
beforeAll(async () => {
  pki = await createTestPki();
});
afterAll(() => pki.cleanup());

/** A copy of the server's certificate and key to rewrite, and what the reloader reports. */
function watched(name: string): { certFile: string; keyFile: string; applied: TlsCredentials[]; failed: { message: string; trigger: ReloadTrigger }[] } {
  const certFile = join(pki.dir, `${name}.cert.pem`);
  const keyFile = join(pki.dir, `${name}.key.pem`);
  copyFileSync(pki.server.certFile, certFile);
  copyFileSync(pki.server.keyFile, keyFile);
  return { certFile, keyFile, applied: [], failed: [] };
}

describe('createCredentialReloader', () => {
  it('applies changed files after the debounce, reports failures without applying, and stops on close', async () => {
    const { certFile, keyFile, applied, failed } = watched('live');
    const reloaded: ReloadTrigger[] = [];
    const reloader = createCredentialReloader({
      settings: { certFile, keyFile, clientRootCAs: [pki.ca.certFile] },
      apply: (c) => applied.push(c),
      onReloaded: (t) => reloaded.push(t),
      onReloadFailed: (e, t) => failed.push({ message: e.message, trigger: t }),
      pollIntervalMs: 50,
      debounceMs: 100,
      reloadOnSighup: false,
    });
    try {
      // Key first, then certificate: the debounce makes this one reload, not a failed half-step.
      writeFileSync(keyFile, pki.serverChain.key);
      writeFileSync(certFile, pki.serverChain.cert);
      await expect.poll(() => applied.length, { timeout: 5_000 }).toBe(1);
      expect(applied[0]!.cert).toBe(pki.serverChain.cert);
      expect(reloaded).toEqual(['file-change']);

      writeFileSync(certFile, 'garbage');
      await expect.poll(() => failed.length, { timeout: 5_000 }).toBe(1);
      expect(failed[0]).toEqual({ message: `operations.tls.cert.file: ${certFile}: no PEM certificate found`, trigger: 'file-change' });
      expect(applied).toHaveLength(1);

      expect(() => reloader.reload()).toThrow('no PEM certificate found');
    } finally {
      reloader.close();
    }
    writeFileSync(certFile, pki.server.cert);
    await new Promise((r) => setTimeout(r, 400));
    expect(applied).toHaveLength(1);
  });

  it('reloads on SIGHUP while open and leaves SIGHUP alone after close', async () => {
    const applied: TlsCredentials[] = [];
    const before = process.listenerCount('SIGHUP');
    const reloader = createCredentialReloader({
      settings: { certFile: pki.server.certFile, keyFile: pki.server.keyFile, clientRootCAs: [] },
      apply: (c) => applied.push(c),
      watchFiles: false,
    });
    expect(process.listenerCount('SIGHUP')).toBe(before + 1);
    process.emit('SIGHUP', 'SIGHUP');
    await expect.poll(() => applied.length, { timeout: 5_000 }).toBe(1);
    reloader.close();
    expect(process.listenerCount('SIGHUP')).toBe(before);
  });

  it('a certificate replaced by a FIFO or a symlink to /dev/zero: refused at once, the old credentials kept, the loop never held', async () => {
    const { certFile, keyFile, applied, failed } = watched('swapped');
    const reloader = createCredentialReloader({
      settings: { certFile, keyFile, clientRootCAs: [] },
      apply: (c) => applied.push(c),
      onReloadFailed: (e, t) => failed.push({ message: e.message, trigger: t }),
      pollIntervalMs: 50,
      debounceMs: 50,
      reloadOnSighup: false,
    });
    // a timer that must keep firing while the reloads happen: a blocking read would stop it
    let ticks = 0;
    const ticker = setInterval(() => (ticks += 1), 20);
    try {
      const pipe = join(pki.dir, 'swapped.fifo');
      execFileSync('mkfifo', [pipe]);
      renameSync(pipe, certFile);
      await expect.poll(() => failed.length, { timeout: 10_000 }).toBe(1);
      expect(failed[0]).toEqual({ message: `operations.tls.cert.file: open ${certFile}: not a regular file (a named pipe (FIFO))`, trigger: 'file-change' });
      const ticksBefore = ticks;
      await expect.poll(() => ticks, { timeout: 10_000 }).toBeGreaterThan(ticksBefore + 2);

      const zero = join(pki.dir, 'swapped.zero');
      symlinkSync('/dev/zero', zero);
      renameSync(zero, certFile);
      await expect.poll(() => failed.length, { timeout: 10_000 }).toBe(2);
      expect(failed[1]!.message).toBe(`operations.tls.cert.file: open ${certFile}: not a regular file (a character device)`);
      expect(() => reloader.reload()).toThrow('not a regular file (a character device)');
      expect(applied).toHaveLength(0);

      // a client CA file whose only certificate does not parse: refused too, naming the file, the old trust kept
      const caFile = join(pki.dir, 'swapped.ca.pem');
      writeFileSync(caFile, '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
      const caReloader = createCredentialReloader({
        settings: { certFile: pki.server.certFile, keyFile: pki.server.keyFile, clientRootCAs: [caFile] },
        apply: (c) => applied.push(c),
        watchFiles: false,
        reloadOnSighup: false,
      });
      expect(() => caReloader.reload()).toThrow(`operations.tls.clientRootCAs.files[0]: ${caFile}: no PEM certificate in it can be parsed (1 found)`);
      caReloader.close();
      expect(applied).toHaveLength(0);

      // a good file again is taken up as before
      const good = join(pki.dir, 'swapped.good');
      copyFileSync(pki.server.certFile, good);
      renameSync(good, certFile);
      await expect.poll(() => applied.length, { timeout: 10_000 }).toBe(1);
    } finally {
      clearInterval(ticker);
      reloader.close();
    }
  });

  it('a change to a file of 2,001 client CAs: OpenSSL parses them off the event loop, and the result is what a load at start gives', async () => {
    const caFile = join(pki.dir, 'many.ca.pem');
    const many = smallCas(2_000) + readFileSync(pki.ca.certFile, 'utf8');
    writeFileSync(caFile, pki.ca.cert);
    const settings = { certFile: pki.server.certFile, keyFile: pki.server.keyFile, clientRootCAs: [caFile, pki.ca.certFile] };
    const applied: TlsCredentials[] = [];
    const failed: string[] = [];
    const reloader = createCredentialReloader({
      settings,
      apply: (c) => applied.push(c),
      onReloadFailed: (e) => failed.push(e.message),
      pollIntervalMs: 50,
      debounceMs: 50,
      reloadOnSighup: false,
    });
    try {
      const before = parsedHere.count;
      writeFileSync(caFile, many);
      await expect.poll(() => applied.length, { timeout: 10_000 }).toBe(1);
      // the server's certificate, read here to check its key: 2,002 CAs parsed on this thread before
      expect(parsedHere.count - before).toBeLessThanOrEqual(2);
      expect(applied[0]).toEqual(loadTlsCredentials(settings));
      expect(applied[0]!.ca).toHaveLength(2_002);

      // Blocks OpenSSL cannot parse among them are skipped with the same warnings; a file with
      // none that parses is refused with the same line, and nothing is applied.
      const garbled = smallCas(40).replaceAll('MIIB', 'MIIZ');
      writeFileSync(caFile, `${garbled}${smallCas(3)}`);
      await expect.poll(() => applied.length, { timeout: 10_000 }).toBe(2);
      expect(applied[1]).toEqual(loadTlsCredentials(settings));
      expect(applied[1]!.warnings).toHaveLength(40);
      writeFileSync(caFile, garbled);
      await expect.poll(() => failed.length, { timeout: 10_000 }).toBe(1);
      expect(() => loadTlsCredentials(settings)).toThrow(failed[0]);
      expect(failed[0]).toMatch(/^operations\.tls\.clientRootCAs\.files\[0\]: .*many\.ca\.pem: no PEM certificate in it can be parsed \(\d+ found\)$/);
      expect(applied).toHaveLength(2);
    } finally {
      reloader.close();
    }
  }, 30_000);

  it('off the event loop, errors come in the order a load at start gives them', async () => {
    const missing = join(pki.dir, 'missing.pem');
    const noPem = join(pki.dir, 'no-pem.pem');
    writeFileSync(noPem, 'not pem');
    const cases = [
      { certFile: missing, keyFile: pki.server.keyFile, clientRootCAs: [missing] },
      { certFile: pki.server.certFile, keyFile: pki.server.keyFile, clientRootCAs: [noPem, missing] },
      { certFile: pki.server.certFile, keyFile: pki.server.keyFile, clientRootCAs: [pki.ca.certFile, missing, noPem] },
    ];
    for (const files of cases) {
      const sync = (() => {
        try {
          loadTlsCredentials(files);
        } catch (error) {
          return error as Error;
        }
        return undefined;
      })();
      expect(sync).toBeDefined();
      await expect(loadTlsCredentialsOffThread(files)).rejects.toThrow(sync!.message);
    }
  });
});
