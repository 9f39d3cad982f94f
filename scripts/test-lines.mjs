// Runs the tests that can differ between Node lines (scripts/line-tests.txt) on the node that
// runs this script: `pnpm test:lines`, which .ci/run runs on every supported line other than the
// machine's, where `pnpm test` runs everything. Each entry of the list is a path prefix of test
// files with the reason it belongs there; an entry that matches no test file fails the run, so a
// renamed file cannot silently drop out of the lines' coverage.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const listFile = fileURLToPath(new URL('./line-tests.txt', import.meta.url));

/** The list's entries: the first word of every line that is neither blank nor a comment. */
export function readLineTests(text) {
  return text
    .split('\n')
    .map((line) => line.replace(/#.*$/, '').trim())
    .filter((line) => line !== '')
    .map((line) => line.split(/\s+/)[0]);
}

const entries = readLineTests(readFileSync(listFile, 'utf8'));
const tracked = spawnSync('git', ['ls-files', '*.test.ts'], { cwd: root, encoding: 'utf8' });
if (tracked.status === 0) {
  const files = tracked.stdout.split('\n').filter(Boolean);
  const unmatched = entries.filter((entry) => !files.some((file) => file.startsWith(entry)));
  if (unmatched.length > 0) {
    process.stderr.write(`test-lines: ${listFile} names paths that hold no test file: ${unmatched.join(', ')}\n`);
    process.exit(2);
  }
}
const run = spawnSync(process.execPath, [fileURLToPath(new URL('../node_modules/vitest/vitest.mjs', import.meta.url)), 'run', ...process.argv.slice(2), ...entries], {
  cwd: root,
  stdio: 'inherit',
});
process.exit(run.status ?? 1);
