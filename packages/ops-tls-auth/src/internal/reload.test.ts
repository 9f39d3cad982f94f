import { execFileSync } from 'node:child_process';
import { copyFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestPki, type TestPki } from '@fabric-ops/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TlsCredentials } from './credentials.ts';
import { createCredentialReloader, type ReloadTrigger } from './reload.ts';

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
    expect(applied).toHaveLength(1);
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
});
