// Runs every benchmark under bench/ in turn: node bench/run.mjs [name-filter] [--quick]
//   [--node <path>] [--lines 20,22,24,26]
// --quick runs only the load suite, with short rounds (a smoke test of a couple of minutes).
// --node runs the scripts (and so every server and load generator they start, which use the
// script's own process.execPath) on that node binary instead of this one; --lines runs them
// once per Node major line, each line's node found or installed by scripts/node-line.sh
// (the machine's node when it is of that line, else Node's build from the npm registry).
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { delimiter, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
/** The value after `--name`, removed from args with it. */
function option(name) {
  const at = args.indexOf(name);
  if (at === -1) return undefined;
  const value = args[at + 1];
  if (value === undefined || value.startsWith('--')) throw new Error(`${name} needs a value`);
  args.splice(at, 2);
  return value;
}
const nodePath = option('--node');
const lines = option('--lines');
if (nodePath !== undefined && lines !== undefined) throw new Error('give --node or --lines, not both');
const flags = args.filter((a) => a.startsWith('--'));
const quick = flags.includes('--quick');
const filter = args.find((a) => !a.startsWith('--')) ?? (quick ? 'suite' : '');
const scripts = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.mjs') && f.includes(filter))
  .sort();

/** [label, node binary] per run. */
const nodes =
  lines !== undefined
    ? lines.split(',').map((line) => {
        if (!/^\d+$/.test(line.trim())) throw new Error(`--lines takes major versions like 20,22,24,26, not '${line}'`);
        const path = execFileSync('bash', [`${root}/scripts/node-line.sh`, line.trim()], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
        return [`Node ${line.trim()}`, path];
      })
    : [[nodePath === undefined ? '' : nodePath, nodePath ?? process.execPath]];

let failed = 0;
for (const [label, node] of nodes) {
  if (label !== '') {
    const version = execFileSync(node, ['-p', 'process.version'], { encoding: 'utf8' }).trim();
    process.stdout.write(`\n##### ${label}: ${version} (${node})\n`);
  }
  for (const script of scripts) {
    process.stdout.write(`\n=== ${script}${quick ? ' (quick)' : ''}\n`);
    // The line's folder first on PATH too, for anything a script starts as plain `node`.
    const env = { ...process.env, PATH: `${dirname(node)}${delimiter}${process.env.PATH ?? ''}` };
    const result = spawnSync(node, ['--expose-gc', `${dir}/${script}`, ...flags], { stdio: 'inherit', env });
    if (result.status !== 0) failed++;
  }
}
process.exitCode = failed === 0 ? 0 : 1;
