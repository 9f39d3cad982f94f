import { execFileSync } from 'node:child_process';
import { readFileSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestPki, type TestPki } from '@fabric-ops/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTlsCredentials, MAX_TLS_FILE_BYTES } from './credentials.ts';
import { isTlsAuthError } from './errors.ts';
import type { TlsSettings } from './settings.ts';

const ORDERER_LABELS = { labels: { certFile: 'Operations.TLS.Certificate', keyFile: 'Operations.TLS.PrivateKey', clientRootCAs: 'Operations.TLS.ClientRootCAs' } };

let pki: TestPki;
beforeAll(async () => {
  pki = await createTestPki();
});
afterAll(() => pki.cleanup());

const settings = (over: Partial<TlsSettings> = {}): TlsSettings => ({
  enabled: true,
  certFile: pki.server.certFile,
  keyFile: pki.server.keyFile,
  clientAuthRequired: false,
  clientRootCAs: [pki.ca.certFile],
  ...over,
});

function failure(run: () => unknown): { code: string; message: string } {
  try {
    run();
  } catch (error) {
    if (isTlsAuthError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a TlsAuthError');
}

describe('loadTlsCredentials', () => {
  it('loads a certificate, its key and every client CA', () => {
    const credentials = loadTlsCredentials(settings({ clientRootCAs: [pki.ca.certFile, pki.rogueCa.certFile] }));
    expect(credentials.cert).toBe(pki.server.cert);
    expect(credentials.key).toContain('PRIVATE KEY');
    expect(credentials.ca).toEqual([pki.ca.cert, pki.rogueCa.cert]);
  });

  it('keeps a chain file whole, leaf first', () => {
    const credentials = loadTlsCredentials(settings({ certFile: pki.serverChain.certFile, keyFile: pki.serverChain.keyFile }));
    expect(credentials.cert.match(/BEGIN CERTIFICATE/g)).toHaveLength(2);
    expect(credentials.cert.startsWith(pki.serverChain.cert.slice(0, 200))).toBe(true);
  });

  it('allows an empty client CA list (nothing verifies), kept as an empty list', () => {
    expect(loadTlsCredentials(settings({ clientRootCAs: [] })).ca).toEqual([]);
  });

  it('names the key and path of a missing file in Go wording, for peer and orderer keys', () => {
    expect(failure(() => loadTlsCredentials(settings({ certFile: '/x/y.pem' })))).toEqual({
      code: 'FILE_UNREADABLE',
      message: 'operations.tls.cert.file: open /x/y.pem: no such file or directory',
    });
    expect(failure(() => loadTlsCredentials(settings({ keyFile: '' }), ORDERER_LABELS)).message).toBe('Operations.TLS.PrivateKey: open : no such file or directory');
    expect(failure(() => loadTlsCredentials(settings({ clientRootCAs: [pki.ca.certFile, '/nope/ca.pem'] }), ORDERER_LABELS)).message).toBe(
      'Operations.TLS.ClientRootCAs[1]: open /nope/ca.pem: no such file or directory',
    );
  });

  it("uses the caller's label for each file, e.g. the environment variable the user set", () => {
    expect(failure(() => loadTlsCredentials(settings({ certFile: '/x/y.pem' }), { labels: { certFile: 'CORE_OPERATIONS_TLS_CERT_FILE' } })).message).toBe(
      'CORE_OPERATIONS_TLS_CERT_FILE: open /x/y.pem: no such file or directory',
    );
    const perFile = { labels: { clientRootCAs: ['ops.yaml clientRootCAs first', 'CORE_OPERATIONS_TLS_CLIENTROOTCAS_FILES'] } };
    expect(failure(() => loadTlsCredentials(settings({ clientRootCAs: [pki.ca.certFile, '/nope/ca.pem'] }), perFile)).message).toBe(
      'CORE_OPERATIONS_TLS_CLIENTROOTCAS_FILES: open /nope/ca.pem: no such file or directory',
    );
  });

  it('loads a server certificate a client would refuse, with a warning per problem', async () => {
    const now = Date.now();
    const shapes = [
      { name: 'expired', options: { notBefore: new Date(now - 72 * 3_600_000), notAfter: new Date(now - 24 * 3_600_000) }, warning: /expired at/ },
      { name: 'not-yet-valid', options: { notBefore: new Date(now + 24 * 3_600_000), notAfter: new Date(now + 72 * 3_600_000) }, warning: /not valid before/ },
      { name: 'client-only', options: { extendedKeyUsage: ['clientAuth'] as const }, warning: /does not include serverAuth/ },
    ];
    for (const shape of shapes) {
      const pair = await pki.ca.issue(`server-warning-${shape.name}`, { subject: { CN: 'localhost' }, extendedKeyUsage: ['serverAuth'], ...shape.options });
      const credentials = loadTlsCredentials(settings({ certFile: pair.certFile, keyFile: pair.keyFile }));
      expect(credentials.cert).toBe(pair.cert);
      expect(credentials.warnings, shape.name).toHaveLength(1);
      expect(credentials.warnings![0], shape.name).toMatch(shape.warning);
    }
    expect(loadTlsCredentials(settings()).warnings).toBeUndefined();
  });

  it('reports a directory and an unreadable file', () => {
    expect(failure(() => loadTlsCredentials(settings({ certFile: pki.dir }))).message).toBe(`operations.tls.cert.file: read ${pki.dir}: is a directory`);
    const denied = () => {
      throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
    };
    expect(failure(() => loadTlsCredentials(settings(), { read: denied })).message).toBe(`operations.tls.cert.file: open ${pki.server.certFile}: permission denied`);
  });

  it('refuses files without PEM, and a PEM block that does not parse', () => {
    const junk = join(pki.dir, 'junk.txt');
    writeFileSync(junk, 'hello\n');
    expect(failure(() => loadTlsCredentials(settings({ certFile: junk })))).toEqual({ code: 'NOT_PEM', message: `operations.tls.cert.file: ${junk}: no PEM certificate found` });
    expect(failure(() => loadTlsCredentials(settings({ keyFile: junk }))).message).toBe(`operations.tls.key.file: ${junk}: no PEM private key found`);
    expect(failure(() => loadTlsCredentials(settings({ clientRootCAs: [junk] }))).message).toBe(`operations.tls.clientRootCAs.files[0]: ${junk}: no PEM certificate found`);
    const broken = join(pki.dir, 'broken.pem');
    writeFileSync(broken, '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
    expect(failure(() => loadTlsCredentials(settings({ certFile: broken }))).message).toBe(`operations.tls.cert.file: ${broken}: PEM certificate #1 cannot be parsed`);
  });

  it('skips, with a warning, a client CA certificate that cannot be parsed, as Fabric skips it, and keeps the file text for the Go-rules pool', () => {
    const mixed = join(pki.dir, 'mixed-ca.pem');
    const text = `-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n${pki.ca.cert}`;
    writeFileSync(mixed, text);
    const loaded = loadTlsCredentials(settings({ clientRootCAs: [mixed] }));
    expect(loaded.ca).toEqual([pki.ca.cert]);
    expect(loaded.clientCaFiles).toEqual([text]);
    expect(loaded.warnings).toContain(`operations.tls.clientRootCAs.files[0]: ${mixed}: PEM certificate #1 cannot be parsed; it is skipped, as Fabric skips it`);
  });

  it('refuses a client CA file none of whose certificates can be parsed: Fabric would trust nobody through it', () => {
    const onlyBroken = join(pki.dir, 'only-broken-ca.pem');
    writeFileSync(onlyBroken, '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n-----BEGIN CERTIFICATE-----\nMAMCAQA=\n-----END CERTIFICATE-----\n');
    expect(failure(() => loadTlsCredentials(settings({ clientRootCAs: [pki.ca.certFile, onlyBroken] })))).toEqual({
      code: 'NOT_PEM',
      message: `operations.tls.clientRootCAs.files[1]: ${onlyBroken}: no PEM certificate in it can be parsed (2 found)`,
    });
  });

  it('refuses a key that does not belong to the certificate', () => {
    expect(failure(() => loadTlsCredentials(settings({ keyFile: pki.clients.good.keyFile })))).toEqual({
      code: 'KEY_MISMATCH',
      message: `operations.tls.key.file: ${pki.clients.good.keyFile}: private key does not match the certificate in ${pki.server.certFile}`,
    });
  });

  it('refuses an encrypted key with a hint instead of prompting', () => {
    const encrypted = join(pki.dir, 'encrypted.key');
    writeFileSync(encrypted, '-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n');
    expect(failure(() => loadTlsCredentials(settings({ keyFile: encrypted }))).message).toBe(`operations.tls.key.file: ${encrypted}: the private key is encrypted; an unencrypted key is required`);
  });

  it('every message is a single line', () => {
    const reads = [() => loadTlsCredentials(settings({ certFile: '/a\\b' })), () => loadTlsCredentials(settings({ keyFile: pki.ca.certFile }))];
    for (const read of reads) expect(failure(read).message).not.toContain('\n');
  });

  it('refuses a FIFO at once, without waiting for a writer', () => {
    const pipe = join(pki.dir, 'cert-fifo.pem');
    execFileSync('mkfifo', [pipe]);
    expect(failure(() => loadTlsCredentials(settings({ certFile: pipe })))).toEqual({
      code: 'FILE_UNREADABLE',
      message: `operations.tls.cert.file: open ${pipe}: not a regular file (a named pipe (FIFO))`,
    });
    expect(failure(() => loadTlsCredentials(settings({ clientRootCAs: [pipe] }), ORDERER_LABELS)).message).toBe(
      `Operations.TLS.ClientRootCAs[0]: open ${pipe}: not a regular file (a named pipe (FIFO))`,
    );
  });

  it('refuses a symlink to /dev/zero and a file over the bound without reading them', () => {
    const zero = join(pki.dir, 'zero-link.key');
    symlinkSync('/dev/zero', zero);
    expect(failure(() => loadTlsCredentials(settings({ keyFile: zero }))).message).toBe(`operations.tls.key.file: open ${zero}: not a regular file (a character device)`);
    const sparse = join(pki.dir, 'sparse.pem');
    writeFileSync(sparse, '');
    truncateSync(sparse, 2 ** 31);
    expect(failure(() => loadTlsCredentials(settings({ certFile: sparse }))).message).toBe(`operations.tls.cert.file: read ${sparse}: larger than ${MAX_TLS_FILE_BYTES} bytes`);
  });

  it('cuts a very long path in the line it prints', () => {
    const message = failure(() => loadTlsCredentials(settings({ certFile: `/${'p'.repeat(100_000)}` }))).message;
    expect(message.length).toBeLessThan(400);
    expect(message).toMatch(/^operations\.tls\.cert\.file: open "\/p+…": file name too long$/);
  });

  it('finds PEM blocks in time linear in the file: bound-sized files of BEGIN lines without END are refused quickly', () => {
    const junk = join(pki.dir, 'begin-only.pem');
    const line = '-----BEGIN CERTIFICATE-----\n';
    writeFileSync(junk, line.repeat(Math.floor(MAX_TLS_FILE_BYTES / line.length)));
    const keyJunk = join(pki.dir, 'begin-only.key');
    writeFileSync(keyJunk, '-----BEGIN PRIVATE KEY-----\n-----BEGIN RSA PRIVATE KEY-----\n'.repeat(Math.floor(MAX_TLS_FILE_BYTES / 60)));
    const began = Date.now();
    expect(failure(() => loadTlsCredentials(settings({ certFile: junk }))).message).toBe(`operations.tls.cert.file: ${junk}: no PEM certificate found`);
    expect(failure(() => loadTlsCredentials(settings({ keyFile: keyJunk }))).message).toBe(`operations.tls.key.file: ${keyJunk}: no PEM private key found`);
    // the regular expressions this replaced took minutes here; a generous bound for a loaded machine
    expect(Date.now() - began).toBeLessThan(10_000);
  });

  it('still finds blocks among noise: a key after a stray BEGIN line, certificates with CRLF line ends', () => {
    const key = readFileSync(pki.server.keyFile, 'utf8');
    const noisy = join(pki.dir, 'noisy.key');
    writeFileSync(noisy, `-----BEGIN EC PRIVATE KEY-----\nstray\n${key}`);
    expect(loadTlsCredentials(settings({ keyFile: noisy })).key).toBe(key.trim());
    const crlf = join(pki.dir, 'crlf.pem');
    writeFileSync(crlf, readFileSync(pki.serverChain.certFile, 'utf8').replace(/\n/g, '\r\n'));
    expect(loadTlsCredentials(settings({ certFile: crlf, keyFile: pki.serverChain.keyFile })).cert.match(/BEGIN CERTIFICATE/g)).toHaveLength(2);
  });
});
