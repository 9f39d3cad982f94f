// The trust pools of a corpus directory (`<dir>/pools/<id>/*.pem`, as the oracle writes them): each
// pool's CA-file texts in file-name order. Plain JavaScript so that the fuzz driver (plain node,
// also run by the bench) and the TypeScript corpus reader share it.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** @param {string} dir */
export function readPools(dir) {
  const pools = new Map();
  for (const id of readdirSync(join(dir, 'pools')).sort()) {
    const files = readdirSync(join(dir, 'pools', id))
      .filter((f) => f.endsWith('.pem'))
      .sort();
    pools.set(
      id,
      files.map((f) => readFileSync(join(dir, 'pools', id, f), 'utf8')),
    );
  }
  return pools;
}
