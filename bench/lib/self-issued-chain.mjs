// The shape both attack chains share (attack-chain.mjs, constraint-chain.mjs): `count` self-issued
// CA certificates on one key and one name, and an EC P-256 client leaf issued by the first, made
// with openssl in `dir`. A verifier following Go's rules may try path after path through the CAs.
// Nothing here is trusted by any server.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The leaf followed by the CAs in a random order: a different list on nearly every call. */
export function shuffledChain(leaf, cas) {
  const order = [...cas];
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  return leaf + order.join('');
}

/**
 * `caKeyFile`: the CAs' shared key (already made); `caSubject`: their one name; `caArgs`: extra
 * `openssl req -x509` arguments (extensions or a config); `leafExt`: the leaf's extension file
 * text; `leafArgs`: extra `openssl req` arguments for the leaf's request.
 */
export function selfIssuedChain(dir, { prefix, caKeyFile, caSubject, count, caArgs, leafSubject, leafExt, leafArgs = [] }) {
  const p = (f) => join(dir, `${prefix}-${f}`);
  const openssl = (...args) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  const cas = [];
  for (let i = 1; i <= count; i++) {
    openssl('req', '-x509', '-new', '-key', caKeyFile, '-subj', caSubject, '-days', '2', '-set_serial', String(i), '-sha256', ...caArgs, '-out', p(`ca-${i}.pem`));
    cas.push(readFileSync(p(`ca-${i}.pem`), 'utf8'));
  }
  openssl('req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', p('leaf.key'), '-out', p('leaf.csr'), '-subj', leafSubject, ...leafArgs);
  writeFileSync(p('leaf.ext'), leafExt);
  openssl('x509', '-req', '-in', p('leaf.csr'), '-CA', p('ca-1.pem'), '-CAkey', caKeyFile, '-set_serial', '100', '-days', '2', '-sha256', '-out', p('leaf.pem'), '-extfile', p('leaf.ext'));
  const leaf = readFileSync(p('leaf.pem'), 'utf8');
  return {
    key: readFileSync(p('leaf.key'), 'utf8'),
    leaf,
    cas,
    /** The leaf and the CAs in a fixed order (one list: a verdict cache answers it after the first time). */
    cert: leaf + cas.join(''),
    /** The leaf and the CAs in a new order on nearly every call, so no verdict cache answers it. */
    shuffled: () => shuffledChain(leaf, cas),
  };
}
