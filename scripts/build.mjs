#!/usr/bin/env node
// Builds every workspace package's dist/ with tsup, printing one line per package instead of
// tsup's full log (which is printed only when a build fails).
//
//   node scripts/build.mjs             build everything (what `pnpm install` runs)
//   node scripts/build.mjs --if-stale  build only packages whose inputs changed since their last
//                                      build, or that were built at another commit (what `pnpm test`
//                                      and `pnpm bench` run, so a test run after install builds nothing)
import { execFileSync, spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const ifStale = process.argv.includes('--if-stale');
const stampDir = join(root, 'node_modules', '.cache', 'fabric-ops-build');
const sharedInputs = ['tsup.shared.ts', 'tsconfig.base.json'].map((file) => join(root, file));

function headCommit() {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

/** Workspace packages with a build script, in dependency order (packages before apps). */
function buildablePackages() {
  const found = [];
  for (const group of ['packages', 'apps']) {
    const groupDir = join(root, group);
    if (!existsSync(groupDir)) continue;
    for (const name of readdirSync(groupDir).sort()) {
      const dir = join(groupDir, name);
      const manifestPath = join(dir, 'package.json');
      if (!existsSync(manifestPath)) continue;
      const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
      if (manifest.scripts?.build) found.push({ dir, name: manifest.name, deps: Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies }) });
    }
  }
  const byName = new Map(found.map((pkg) => [pkg.name, pkg]));
  const ordered = [];
  const seen = new Set();
  const visit = (pkg) => {
    if (seen.has(pkg.name)) return;
    seen.add(pkg.name);
    for (const dep of pkg.deps) if (byName.has(dep)) visit(byName.get(dep));
    ordered.push(pkg);
  };
  for (const pkg of found) visit(pkg);
  return ordered;
}

function newestMtime(path) {
  if (!existsSync(path)) return 0;
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

function stampPath(pkg) {
  return join(stampDir, `${pkg.name.replace(/[@/]/g, '_')}.json`);
}

function isStale(pkg, commit) {
  const stamp = stampPath(pkg);
  if (!existsSync(stamp) || !existsSync(join(pkg.dir, 'dist'))) return true;
  const recorded = JSON.parse(readFileSync(stamp, 'utf8'));
  if (recorded.commit !== commit) return true;
  const inputs = [join(pkg.dir, 'src'), join(pkg.dir, 'package.json'), join(pkg.dir, 'tsup.config.ts'), join(pkg.dir, 'tsconfig.json'), ...sharedInputs];
  return Math.max(...inputs.map(newestMtime)) > recorded.builtAt;
}

const commit = headCommit();
const packages = buildablePackages();
const toBuild = ifStale ? packages.filter((pkg) => isStale(pkg, commit)) : packages;
if (toBuild.length === 0) {
  console.log(`build: all ${packages.length} packages up to date`);
  process.exit(0);
}

mkdirSync(stampDir, { recursive: true });
const started = Date.now();
const pending = new Set(toBuild.map((pkg) => pkg.name));
const concurrency = Math.max(1, Math.min(4, availableParallelism()));

// Progress goes to stderr, one line as each package starts and finishes, so an install on an empty
// cache (minutes) is not silent; stdout keeps only the one summary line.
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
const clock = () => new Date().toISOString().slice(11, 19);
let finished = 0;
const progress = (line) => process.stderr.write(`build: [${clock()} +${elapsed()}] ${line}\n`);
progress(`building ${toBuild.length} of ${packages.length} packages, ${concurrency} at a time: ${toBuild.map((pkg) => pkg.name).join(', ')}`);

function buildOne(pkg) {
  progress(`${pkg.name} started`);
  return new Promise((resolve) => {
    const builtAt = Date.now();
    const child = spawn('pnpm', ['run', '--silent', 'build'], { cwd: pkg.dir, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (code) => {
      if (code !== 0) {
        process.stderr.write(`build: ${pkg.name} failed (${relative(root, pkg.dir)})\n${output}`);
        process.exit(code ?? 1);
      }
      writeFileSync(stampPath(pkg), JSON.stringify({ commit, builtAt }));
      finished++;
      progress(`${pkg.name} built in ${((Date.now() - builtAt) / 1000).toFixed(1)} s (${finished}/${toBuild.length})`);
      resolve();
    });
  });
}

// A package starts once every workspace package it depends on that is also being built is done
// (tsup's declaration build reads its dependencies' dist/ types).
const running = new Map();
const queue = [...toBuild];
while (queue.length > 0 || running.size > 0) {
  const readyIndex = queue.findIndex((pkg) => pkg.deps.every((dep) => !pending.has(dep)));
  if (readyIndex >= 0 && running.size < concurrency) {
    const [pkg] = queue.splice(readyIndex, 1);
    running.set(
      pkg.name,
      buildOne(pkg).then(() => {
        pending.delete(pkg.name);
        running.delete(pkg.name);
      }),
    );
    continue;
  }
  if (running.size === 0) throw new Error(`build: dependency cycle among ${queue.map((pkg) => pkg.name).join(', ')}`);
  await Promise.race(running.values());
}
const skipped = packages.length - toBuild.length;
console.log(`build: ${toBuild.length} package${toBuild.length === 1 ? '' : 's'} built in ${((Date.now() - started) / 1000).toFixed(1)} s${skipped > 0 ? ` (${skipped} up to date)` : ''}`);
