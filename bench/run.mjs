// Runs every benchmark under bench/ in turn: node bench/run.mjs [name-filter …] [--quick]
//   [--node <path>] [--lines 20,22,24,26] [--repeats N] [--wait-quiet]
// Each name filter selects the scripts whose file name contains it (`footprint suite` runs the
// footprint scripts and the load suite). --repeats runs the chosen scripts N times per line.
// Before each line's run it prints the 1-minute load average and warns when it is 1.5 or more
// (figures from such a run are not quotable).
// --quick runs only the load suite, with short rounds (a smoke test of a couple of minutes).
// --node runs the scripts (and so every server and load generator they start, which use the
// script's own process.execPath) on that node binary instead of this one; --lines runs them
// once per Node major line, each line's node found or installed by scripts/node-line.sh
// (the machine's node when it is of that line, else Node's build from the npm registry).
import './lib/fail.mjs';
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { loadavg } from 'node:os';
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
const repeats = Number(option('--repeats') ?? 1);
// --wait-quiet: before each line and each script, wait (at most 5 minutes) for the 1-minute load
// average to fall below 1.5, so that every figure comes from a script that started on a quiet
// machine: a bench keeps both cores busy, and the next script would otherwise start in its tail.
const waitQuiet = args.includes('--wait-quiet');
if (waitQuiet) args.splice(args.indexOf('--wait-quiet'), 1);
if (!Number.isInteger(repeats) || repeats < 1) throw new Error('--repeats takes a whole number ≥ 1');
const flags = args.filter((a) => a.startsWith('--'));
const quick = flags.includes('--quick');
const filters = args.filter((a) => !a.startsWith('--'));
if (filters.length === 0) filters.push(quick ? 'suite' : '');
const scripts = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.mjs') && filters.some((filter) => f.includes(filter)))
  .sort();
if (scripts.length === 0) throw new Error(`no bench/*.bench.mjs matches ${filters.map((f) => JSON.stringify(f)).join(', ')}`);
const QUIET_LOAD_AVERAGE = 1.5;
const QUIET_WAIT_LIMIT_MS = 5 * 60_000;

/** With --wait-quiet, waits until the 1-minute load average is below QUIET_LOAD_AVERAGE (or the limit passes) and says how long it took. */
async function waitForQuiet() {
  if (!waitQuiet || loadavg()[0] < QUIET_LOAD_AVERAGE) return;
  const started = Date.now();
  while (loadavg()[0] >= QUIET_LOAD_AVERAGE && Date.now() - started < QUIET_WAIT_LIMIT_MS) await new Promise((resolve) => setTimeout(resolve, 5_000));
  const load = loadavg()[0];
  process.stdout.write(
    load < QUIET_LOAD_AVERAGE
      ? `waited ${Math.round((Date.now() - started) / 1000)} s for the load average to fall below ${QUIET_LOAD_AVERAGE} (now ${load.toFixed(2)})\n`
      : `waited ${QUIET_WAIT_LIMIT_MS / 60_000} minutes; the load average is still ${load.toFixed(2)}\n`,
  );
}

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
  await waitForQuiet();
  const load = loadavg()[0];
  process.stdout.write(
    `load average at the start: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}${load >= QUIET_LOAD_AVERAGE ? ` — WARNING: ${load.toFixed(2)} ≥ ${QUIET_LOAD_AVERAGE}, these figures are not quotable` : ''}\n`,
  );
  for (let repeat = 1; repeat <= repeats; repeat++) {
    for (const script of scripts) {
      await waitForQuiet();
      process.stdout.write(`\n=== ${script}${quick ? ' (quick)' : ''}${repeats > 1 ? ` — repeat ${repeat} of ${repeats}` : ''} (load average ${loadavg()[0].toFixed(2)})\n`);
      // The line's folder first on PATH too, for anything a script starts as plain `node`. No node
      // options: a V8 flag such as --expose-gc in a script's execArgv would be passed on to the
      // verifier worker of an in-process TLS server, which node refuses (bench/README.md).
      const env = { ...process.env, PATH: `${dirname(node)}${delimiter}${process.env.PATH ?? ''}` };
      const result = spawnSync(node, [`${dir}/${script}`, ...flags], { stdio: 'inherit', env });
      if (result.status !== 0) {
        failed++;
        process.stdout.write(`=== ${script} failed (${result.status ?? result.signal})\n`);
      }
    }
  }
}
if (failed > 0) process.stdout.write(`\n${failed} bench run(s) failed\n`);
process.exitCode = failed === 0 ? 0 : 1;
