// Versions and publishes every public package with changesets (one `fixed` version for all).
//   node scripts/release.mjs             build, check, `changeset version`, `changeset publish`
//   node scripts/release.mjs --dry-run   the same on a throw-away copy of the working tree:
//                                        `changeset version` there, then `pnpm publish -r --dry-run`;
//                                        the repository itself is left untouched
//   add --json for a machine-readable summary on stdout
// The dry run needs built packages (`pnpm build`); it reuses their dist/ folders.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { publishableDirs } from './check-packages.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const changesetBin = join(root, 'node_modules', '.bin', 'changeset');
const args = new Set(process.argv.slice(2));
const json = args.has('--json');
const log = (line) => process.stderr.write(`release: ${line}\n`);

function run(command, commandArgs, cwd) {
  log(`${command} ${commandArgs.join(' ')}${cwd === root ? '' : ` (in ${cwd})`}`);
  return execFileSync(command, commandArgs, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * 1024 * 1024 });
}

function pendingChangesets(base) {
  return readdirSync(join(base, '.changeset')).filter((f) => f.endsWith('.md') && f !== 'README.md');
}

/** Copies what git would see (tracked and untracked, minus ignored) plus each package's dist/. */
function copyWorkingTree() {
  const copy = mkdtempSync(join(tmpdir(), 'fabric-ops-release-'));
  const files = run('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], root).split('\0').filter(Boolean);
  for (const file of files) {
    if (!existsSync(join(root, file))) continue; // deleted but not yet staged
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    cpSync(join(root, file), join(copy, file));
  }
  for (const dir of publishableDirs(root)) {
    if (!existsSync(join(root, dir, 'dist'))) throw new Error(`${dir}/dist is missing: run pnpm build before the dry run`);
    cpSync(join(root, dir, 'dist'), join(copy, dir, 'dist'), { recursive: true });
  }
  return copy;
}

function summarise(base, published) {
  return publishableDirs(base).map((dir) => {
    const pkg = JSON.parse(readFileSync(join(base, dir, 'package.json'), 'utf8'));
    const changelogFile = join(base, dir, 'CHANGELOG.md');
    return {
      name: pkg.name,
      dir,
      version: pkg.version,
      published: published.some((p) => p.name === pkg.name && p.version === pkg.version),
      changelog: existsSync(changelogFile) ? readFileSync(changelogFile, 'utf8') : '',
    };
  });
}

function dryRun() {
  const pending = pendingChangesets(root);
  if (pending.length === 0) throw new Error('no changesets to release (add one with pnpm changeset)');
  const copy = copyWorkingTree();
  try {
    run(changesetBin, ['version'], copy);
    // The bumped versions must be in the copy's lockfile before pnpm resolves workspace: ranges.
    run('pnpm', ['install', '--offline', '--ignore-scripts', '--no-frozen-lockfile', '--reporter=silent'], copy);
    run('pnpm', ['publish', '-r', '--dry-run', '--no-git-checks', '--report-summary'], copy);
    const summary = JSON.parse(readFileSync(join(copy, 'pnpm-publish-summary.json'), 'utf8'));
    return { mode: 'dry-run', changesets: pending, packages: summarise(copy, summary.publishedPackages ?? []) };
  } finally {
    if (!args.has('--keep')) rmSync(copy, { recursive: true, force: true });
  }
}

function release() {
  const pending = pendingChangesets(root);
  if (pending.length === 0) throw new Error('no changesets to release (add one with pnpm changeset)');
  run('pnpm', ['build'], root);
  run(changesetBin, ['version'], root);
  run('pnpm', ['install', '--lockfile-only'], root);
  run('pnpm', ['build'], root);
  run(process.execPath, [join(root, 'scripts', 'check-packages.mjs')], root);
  run(changesetBin, ['publish'], root);
  return { mode: 'publish', changesets: pending, packages: summarise(root, []) };
}

try {
  const result = args.has('--dry-run') ? dryRun() : release();
  if (json) {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } else {
    for (const p of result.packages) process.stdout.write(`${p.published || result.mode === 'publish' ? 'ok  ' : 'SKIP'} ${p.name}@${p.version}\n`);
  }
  if (result.mode === 'dry-run' && result.packages.some((p) => !p.published)) process.exitCode = 1;
} catch (error) {
  process.stderr.write(`release: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
