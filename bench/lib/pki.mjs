// A throw-away PKI for benchmarks (openssl CLI): a CA, a server certificate for 127.0.0.1 and a
// client certificate (clientAuth); ECDSA P-256 (Fabric's usual choice) unless `rsa: true`; a fleet
// of client certificates; client-CA files padded with same-name decoy CAs.
// The bench keeps its own factory: test-kit's (tools/test-kit/src/pki.ts) is TypeScript with no
// built dist/, which plain node cannot import on Node 20, and the benches run on every line.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function createBenchPki(dir, { name = 'p256', rsa = false } = {}) {
  const p = (f) => join(dir, `${name}-${f}`);
  const openssl = (...args) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  const key = rsa ? ['-newkey', 'rsa:2048'] : ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1'];
  openssl(
    'req',
    '-x509',
    ...key,
    '-nodes',
    '-keyout',
    p('ca.key'),
    '-out',
    p('ca.pem'),
    '-days',
    '2',
    '-subj',
    '/CN=bench-ops-ca',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign',
  );
  const leaf = (name, subject, ext) => {
    openssl('req', '-new', ...key, '-nodes', '-keyout', p(`${name}.key`), '-out', p(`${name}.csr`), '-subj', subject);
    writeFileSync(p(`${name}.ext`), ext);
    openssl('x509', '-req', '-in', p(`${name}.csr`), '-CA', p('ca.pem'), '-CAkey', p('ca.key'), '-CAcreateserial', '-days', '2', '-out', p(`${name}.pem`), '-extfile', p(`${name}.ext`));
  };
  leaf('server', '/CN=127.0.0.1', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature\n');
  leaf('client', '/O=Org1/CN=operator', 'extendedKeyUsage=clientAuth\nkeyUsage=critical,digitalSignature\n');
  const read = (f) => readFileSync(p(f), 'utf8');
  const ca = read('ca.pem');
  return {
    dir,
    name,
    files: { certFile: p('server.pem'), keyFile: p('server.key'), caFile: p('ca.pem'), caKeyFile: p('ca.key') },
    server: { cert: read('server.pem'), key: read('server.key'), ca },
    client: { cert: read('client.pem'), key: read('client.key'), ca },
  };
}

/**
 * `count` client certificates from the PKI's CA with one key, each its own serial: distinct
 * chains, so distinct verdicts (no verdict cache answers a second connection).
 */
export function issueClientFleet(pki, count) {
  const p = (f) => join(pki.dir, `${pki.name}-fleet-${f}`);
  const openssl = (...args) => execFileSync('openssl', args, { cwd: pki.dir, stdio: ['ignore', 'ignore', 'pipe'] });
  openssl('req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', p('key'), '-out', p('csr'), '-subj', '/O=Org1/CN=fleet');
  writeFileSync(p('ext'), 'extendedKeyUsage=clientAuth\nkeyUsage=critical,digitalSignature\n');
  const key = readFileSync(p('key'), 'utf8');
  return Array.from({ length: count }, (_, i) => {
    openssl('x509', '-req', '-in', p('csr'), '-CA', pki.files.caFile, '-CAkey', pki.files.caKeyFile, '-set_serial', String(1000 + i), '-days', '2', '-out', p(`${i}.pem`), '-extfile', p('ext'));
    return { cert: readFileSync(p(`${i}.pem`), 'utf8'), key, ca: pki.client.ca };
  });
}

/**
 * Client-CA files in the style of the differential corpus's `decoys` class (tools/x509-oracle),
 * one per count: that many CAs with the real CA's subject before the real one, every other one
 * claiming the real CA's subject key id, each self-signed by one of four P-256 keys that no real
 * CA holds. Returns `{ [count]: path }`.
 */
export function decoyCaFiles(pki, counts) {
  const p = (f) => join(pki.dir, `${pki.name}-decoy-${f}`);
  const openssl = (...args) => execFileSync('openssl', args, { cwd: pki.dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const realKeyId = /X509v3 Subject Key Identifier:\s*\n\s*([0-9A-F:]+)/.exec(openssl('x509', '-in', pki.files.caFile, '-noout', '-ext', 'subjectKeyIdentifier'))?.[1];
  if (realKeyId === undefined) throw new Error(`${pki.files.caFile}: no subject key identifier to copy into the decoys`);
  const pems = [];
  for (let i = 0; i < Math.max(...counts); i++) {
    const keyFile = p(`key${i % 4}.pem`);
    if (i < 4) openssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-out', keyFile);
    const certFile = p(`${i}.pem`);
    const keyId = i % 2 === 0 ? realKeyId : 'hash';
    openssl(
      'req',
      '-x509',
      '-key',
      keyFile,
      '-out',
      certFile,
      '-days',
      '2',
      '-subj',
      '/CN=bench-ops-ca',
      '-set_serial',
      String(5000 + i),
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign',
      '-addext',
      `subjectKeyIdentifier=${keyId}`,
    );
    pems.push(readFileSync(certFile, 'utf8'));
  }
  return Object.fromEntries(
    counts.map((count) => {
      const file = p(`cas-${count}.pem`);
      writeFileSync(file, [...pems.slice(0, count), pki.server.ca].join(''));
      return [count, file];
    }),
  );
}
