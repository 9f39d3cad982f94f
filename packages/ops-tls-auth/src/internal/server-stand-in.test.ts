// The wire with stand-in client CAs handed to OpenSSL (stand-in-ca.ts), checked with OpenSSL's
// own client against the real server: the certificate request names exactly the CAs the real
// certificates name (every attribute's DER bytes), the server sends only its certificate file's
// chain (never a stand-in), and admission stays Go's.
import { spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { request } from 'node:https';
import { createTestPki, type PemPair, type TestCa, type TestPki } from '@fabric-ops/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTlsCredentials, type TlsCredentials } from './credentials.ts';
import { useTestServers, type StartedServer } from '../../test/servers.ts';

/** Runs `openssl s_client` with its input closed at once (it then ends after the handshake); its output. */
function sClient(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('openssl', ['s_client', ...args], { stdio: ['pipe', 'pipe', 'ignore'], timeout: 20_000 });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('close', () => resolve(out));
    child.stdin.end();
  });
}

let pki: TestPki;
let oddCa: TestCa;
let oddClient: PemPair;
let bareServer: { certFile: string; keyFile: string };
let rsaTwinCa: TestCa;
beforeAll(async () => {
  pki = await createTestPki();
  // a second client CA with UTF-8, repeated spaces and a name OpenSSL's canonical form would fold
  oddCa = await pki.rootCa('odd-ca', { subject: { C: 'US', O: 'Org  Two', CN: 'Odd CA' } });
  oddClient = await oddCa.issue('odd-client', { subject: { O: 'Org2', CN: 'odd-operator' }, extendedKeyUsage: ['clientAuth'] });
  // a server certificate that does not name its issuer's key, alone in its file
  const bare = await pki.ca.issue('bare-server', {
    subject: { CN: 'localhost' },
    extendedKeyUsage: ['serverAuth'],
    ipAddresses: ['127.0.0.1'],
    extraExtensions: ['authorityKeyIdentifier = none'],
  });
  bareServer = { certFile: bare.certFile, keyFile: bare.keyFile };
  // pki.ca's name with an RSA key: its stand-in (P-256) could pass for the issuer of the ECDSA-signed bare server certificate
  rsaTwinCa = await pki.rootCa('rsa-twin', { subject: { O: 'Operations Test', CN: 'ops-ca' }, keyType: 'rsa-2048' });
}, 60_000);
afterAll(() => pki.cleanup());

const start = useTestServers();

function credentials(files: { certFile: string; keyFile: string } = pki.serverTls): TlsCredentials {
  return loadTlsCredentials({ ...files, clientRootCAs: [pki.ca.certFile, oddCa.certFile] });
}

/** What `openssl s_client` saw: the client CA names (each attribute as its DER bytes) and the server's certificates. */
async function observe(server: StartedServer, version: '-tls1_2' | '-tls1_3'): Promise<{ names: string; sent: string[] }> {
  const stdout = await sClient(['-connect', `127.0.0.1:${server.port}`, version, '-showcerts', '-nameopt', 'RFC2253,dump_all,dump_der']);
  const names = /Acceptable client certificate CA names\n([\s\S]*?)\n(?:Requested|Client Certificate Types|Shared)/.exec(stdout)?.[1] ?? '';
  const sent = (stdout.match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g) ?? []).map((pem) => new X509Certificate(pem).fingerprint256);
  return { names, sent };
}

function get(server: StartedServer, client: PemPair): Promise<string> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port: server.port, path: '/', ca: pki.ca.cert, cert: client.cert, key: client.key, agent: false, servername: 'localhost' }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve(`${res.statusCode ?? 0} ${body}`));
    });
    req.on('error', (error: Error & { code?: string }) => resolve(`refused (${error.code ?? error.message})`));
    req.end();
  });
}

describe('stand-in client CAs', () => {
  it("name exactly the real CAs in the certificate request (TLS 1.2 and 1.3), and the server sends its file's certificate only", async () => {
    const withStandIns = await start({ credentials: credentials() });
    const withRealCas = await start({ credentials: credentials(), clientCaStandIns: false });
    for (const version of ['-tls1_2', '-tls1_3'] as const) {
      const seen = await observe(withStandIns, version);
      const real = await observe(withRealCas, version);
      expect(seen.names).toBe(real.names);
      expect(seen.names.split('\n')).toHaveLength(2);
      expect(seen.names).toContain('CN=#0C064F6464204341,O=#0C084F7267202054776F,C=#13025553'); // UTF8String and PrintableString, the double space kept
      expect(seen.sent).toEqual([new X509Certificate(pki.server.cert).fingerprint256]);
    }
    expect(withStandIns.lines).toEqual([]);
  });

  it('admit and refuse by Go’s rules, as with the real CAs', async () => {
    const server = await start({ credentials: credentials() });
    expect(await get(server, pki.clients.good)).toBe('200 CN=operator,O=Org1');
    expect(await get(server, oddClient)).toBe('200 CN=odd-operator,O=Org2');
    // same subject as the trusted client, signed by a CA nobody trusts
    expect(await get(server, pki.clients.rogueCa)).toMatch(/^refused/);
    expect(await get(server, pki.clients.expired)).toMatch(/^refused/);
    expect(server.lines.map((line) => line.message).join('\n')).toMatch(/certificate signed by unknown authority[\s\S]*expired/);
  });

  it('follow a trust reload: the request names the new CA list', async () => {
    const server = await start({ credentials: loadTlsCredentials({ ...pki.serverTls, clientRootCAs: [pki.ca.certFile] }) });
    const before = await observe(server, '-tls1_3');
    expect(before.names.split('\n')).toHaveLength(1);
    server.tls.setCredentials(credentials());
    const after = await observe(server, '-tls1_3');
    expect(after.names.split('\n')).toHaveLength(2);
    expect(after.names.startsWith(before.names)).toBe(true);
    expect(await get(server, oddClient)).toBe('200 CN=odd-operator,O=Org2');
  });

  it("leave the server's keylog event unhooked while every client CA is a stand-in, and the list the client sent is still read whole", async () => {
    const leaf = await pki.intermediateCa.issue('keylog-chained', { subject: { O: 'Org1', CN: 'chained-operator' }, extendedKeyUsage: ['clientAuth'] });
    const chained = { ...leaf, cert: leaf.cert + pki.intermediateCa.cert };
    const withStandIns = await start({ credentials: credentials() });
    const withRealCas = await start({ credentials: credentials(), clientCaStandIns: false });
    // Each hooked handshake calls into JavaScript five times; only a real CA in OpenSSL's store needs it (nodejs/node#65579).
    expect(withStandIns.tls.server.listenerCount('keylog')).toBe(0);
    expect(withRealCas.tls.server.listenerCount('keylog')).toBe(1);
    // Go admits this client only with the intermediate it sent: the whole list reached the verdict.
    for (const server of [withStandIns, withRealCas]) {
      expect(await get(server, chained)).toBe('200 CN=chained-operator,O=Org1');
      expect(await get(server, leaf)).toMatch(/^refused/);
    }
  });

  it('hook the keylog event when a reload hands OpenSSL a real CA, and unhook it one handshake deadline after the stand-ins are back', async () => {
    const server = await start({ credentials: credentials(bareServer), handshakeTimeoutMs: 300 });
    expect(server.tls.server.listenerCount('keylog')).toBe(0);
    // the RSA twin's stand-in could pass for the bare server certificate's issuer: it is handed over real
    server.tls.setCredentials(loadTlsCredentials({ ...bareServer, clientRootCAs: [rsaTwinCa.certFile] }));
    expect(server.tls.server.listenerCount('keylog')).toBe(1);
    server.tls.setCredentials(credentials(bareServer));
    // a handshake begun under the real CA may still finish within its deadline: the hook stays until then
    expect(server.tls.server.listenerCount('keylog')).toBe(1);
    await expect.poll(() => server.tls.server.listenerCount('keylog'), { timeout: 2_000 }).toBe(0);
    expect(await get(server, oddClient)).toBe('200 CN=odd-operator,O=Org2');
  });

  it('never reach the wire as the server chain, for a lone server certificate without an authority key identifier', async () => {
    const bareCert = new X509Certificate(await readPem(bareServer.certFile)).fingerprint256;
    const server = await start({ credentials: credentials(bareServer) });
    const real = await start({ credentials: credentials(bareServer), clientCaStandIns: false });
    const seen = await observe(server, '-tls1_3');
    const withRealCas = await observe(real, '-tls1_3');
    expect(seen.names).toBe(withRealCas.names);
    // with the real CAs OpenSSL completes the lone certificate's chain from its store; a stand-in of another key kind is never taken
    expect(withRealCas.sent).toEqual([bareCert, new X509Certificate(pki.ca.cert).fingerprint256]);
    expect(seen.sent).toEqual([bareCert]);
    expect(server.lines).toEqual([]);
    // a CA whose stand-in could pass for the issuer is handed over as it is, with one warning
    const twin = await start({ credentials: loadTlsCredentials({ ...bareServer, clientRootCAs: [rsaTwinCa.certFile] }) });
    expect((await observe(twin, '-tls1_3')).sent).toEqual([bareCert]);
    expect(twin.lines.map((line) => line.message)).toEqual([expect.stringMatching(/OpenSSL could take its stand-in for the issuer of the server certificate/)]);
  });
});

async function readPem(path: string): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  return readFile(path, 'utf8');
}
