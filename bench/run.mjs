// Runs every benchmark under bench/ in turn: node bench/run.mjs [name-filter] [--quick]
// --quick runs only the load suite, with short rounds (a smoke test of a couple of minutes).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const flags = process.argv.slice(2).filter((a) => a.startsWith('--'));
const quick = flags.includes('--quick');
const filter = process.argv.slice(2).find((a) => !a.startsWith('--')) ?? (quick ? 'suite' : '');
const scripts = readdirSync(dir).filter((f) => f.endsWith('.bench.mjs') && f.includes(filter)).sort();
let failed = 0;
for (const script of scripts) {
  process.stdout.write(`\n=== ${script}${quick ? ' (quick)' : ''}\n`);
  const result = spawnSync(process.execPath, ['--expose-gc', `${dir}/${script}`, ...flags], { stdio: 'inherit' });
  if (result.status !== 0) failed++;
}
process.exitCode = failed === 0 ? 0 : 1;
