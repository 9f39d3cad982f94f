// Runs every benchmark under bench/ in turn: node bench/run.mjs [name-filter]
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const filter = process.argv[2] ?? '';
const scripts = readdirSync(dir).filter((f) => f.endsWith('.bench.mjs') && f.includes(filter)).sort();
let failed = 0;
for (const script of scripts) {
  process.stdout.write(`\n=== ${script}\n`);
  const result = spawnSync(process.execPath, ['--expose-gc', `${dir}/${script}`], { stdio: 'inherit' });
  if (result.status !== 0) failed++;
}
process.exitCode = failed === 0 ? 0 : 1;
