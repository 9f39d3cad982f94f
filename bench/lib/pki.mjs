// A throw-away PKI for benchmarks (openssl CLI): a CA, a server certificate for 127.0.0.1 and a
// client certificate (clientAuth); ECDSA P-256 (Fabric's usual choice) unless `rsa: true`.
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
    files: { certFile: p('server.pem'), keyFile: p('server.key'), caFile: p('ca.pem') },
    server: { cert: read('server.pem'), key: read('server.key'), ca },
    client: { cert: read('client.pem'), key: read('client.key'), ca },
  };
}
