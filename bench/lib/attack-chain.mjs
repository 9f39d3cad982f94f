// A client chain that stalls a naive verifier: a leaf plus `count` self-issued CA certificates that all
// share one large RSA key (16,384 bits by default) and one name, so a Go-rules verifier tries
// issuer after issuer (each a large-key signature check) until Go's limit of 100. The key is made
// once with openssl and kept at `keyFile` (minutes for 16,384 bits); the certificates are made
// per run (each is one signature with that key). Nothing here is trusted by any server.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { dirname } from 'node:path';
import { selfIssuedChain } from './self-issued-chain.mjs';

export function attackChain(dir, { keyFile, bits = 16_384, count = 10 }) {
  if (!existsSync(keyFile)) {
    mkdirSync(dirname(keyFile), { recursive: true });
    execFileSync('openssl', ['genrsa', '-out', `${keyFile}.partial`, String(bits)], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
    renameSync(`${keyFile}.partial`, keyFile);
  }
  return selfIssuedChain(dir, {
    prefix: 'attack',
    caKeyFile: keyFile,
    caSubject: '/CN=attack-ca',
    count,
    caArgs: ['-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign'],
    leafSubject: '/CN=attacker',
    leafExt: 'extendedKeyUsage=clientAuth\n',
  });
}
