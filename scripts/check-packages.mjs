// Checks that every publishable workspace package is fit for npm: package.json metadata,
// publint (strict) and @arethetypeswrong/cli on the packed tarball. Needs `pnpm build` first.
//   node scripts/check-packages.mjs [--json] [dir...]
// Exits 1 and prints one line per problem when anything is wrong.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';

const run = promisify(execFile);
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const attwBin = join(root, 'node_modules', '.bin', 'attw');

// Runtime libraries a consumer shares with us (one prom-client registry, one pino, one
// hot-shots client): concern packages must take them as peers, never bundle their own copy.
const SHARED_RUNTIME_LIBRARIES = ['prom-client', 'hot-shots', 'pino'];

/** Workspace directories (relative to `workspace`) whose package.json is publishable. */
export function publishableDirs(workspace = root) {
  const dirs = [];
  for (const parent of ['packages', 'apps']) {
    const base = join(workspace, parent);
    if (!existsSync(base)) continue;
    for (const entry of readdirSync(base, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const file = join(base, entry.name, 'package.json');
      if (!existsSync(file)) continue;
      const pkg = JSON.parse(readFileSync(file, 'utf8'));
      if (pkg.private !== true) dirs.push(`${parent}/${entry.name}`);
    }
  }
  return dirs.sort();
}

/** Metadata rules publint does not cover; returns problem strings. */
function metadataProblems(absolute, dir, pkg) {
  const problems = [];
  const need = (condition, text) => { if (!condition) problems.push(text); };
  need(typeof pkg.license === 'string' && pkg.license.length > 0, 'license is not set');
  need(typeof pkg.engines?.node === 'string', 'engines.node is not set');
  need(pkg.sideEffects !== undefined, 'sideEffects is not set');
  need(Array.isArray(pkg.files) && pkg.files.includes('dist'), 'files does not list dist');
  need(pkg.repository?.directory === dir, `repository.directory is ${JSON.stringify(pkg.repository?.directory)}, expected "${dir}"`);
  need(pkg.type === 'module', 'type is not "module"');
  need(pkg.publishConfig?.access === 'public', 'publishConfig.access is not "public"');
  const dot = pkg.exports?.['.'];
  need(typeof dot?.import?.types === 'string' && typeof dot?.import?.default === 'string', 'exports["."].import lacks types/default');
  need(typeof dot?.require?.types === 'string' && typeof dot?.require?.default === 'string', 'exports["."].require lacks types/default');
  need(existsSync(join(absolute, 'README.md')), 'README.md is missing');
  if (dir.startsWith('packages/')) {
    for (const lib of SHARED_RUNTIME_LIBRARIES) {
      need(pkg.dependencies?.[lib] === undefined, `${lib} is a dependency; consumers share it, make it a peerDependency`);
    }
  }
  return problems;
}

async function publintProblems(dir, pkg) {
  const { messages } = await publint({ pkgDir: dir, strict: true, pack: 'pnpm' });
  return messages.map((m) => `publint ${m.type}: ${formatMessage(m, pkg) ?? m.code}`);
}

async function attwProblems(dir) {
  // Packed with pnpm into a temporary directory (workspace: ranges rewritten, nothing left in
  // the package folder), then checked with the default (strict) profile: besides node16 ESM/CJS
  // and bundler, it checks node10 resolution, which TypeScript users on `moduleResolution: node`
  // still get even though Node 20 itself never uses it.
  const packDir = mkdtempSync(join(tmpdir(), 'fabric-ops-attw-'));
  try {
    await run('pnpm', ['pack', '--pack-destination', packDir], { cwd: dir, timeout: 120_000 });
    const tarball = readdirSync(packDir).find((f) => f.endsWith('.tgz'));
    if (tarball === undefined) return ['attw: pnpm pack produced no tarball'];
    try {
      const { stdout } = await run(attwBin, [join(packDir, tarball), '--format', 'json'], { maxBuffer: 64 * 1024 * 1024, timeout: 120_000 });
      return problemsFromAttwJson(stdout);
    } catch (error) {
      if (typeof error.stdout === 'string' && error.stdout.trim().startsWith('{')) {
        const problems = problemsFromAttwJson(error.stdout);
        return problems.length > 0 ? problems : [`attw failed: ${firstLine(error.stderr || error.message)}`];
      }
      return [`attw failed: ${firstLine(error.stderr || error.message)}`];
    }
  } finally {
    rmSync(packDir, { recursive: true, force: true });
  }
}

function problemsFromAttwJson(text) {
  const { analysis } = JSON.parse(text);
  if (!analysis?.types) return ['attw: the package ships no type declarations'];
  return (analysis.problems ?? []).map((p) => `attw ${p.kind}${p.entrypoint ? ` (${p.entrypoint}, ${p.resolutionKind})` : ''}`);
}

function firstLine(text) {
  return String(text).trim().split('\n')[0] ?? '';
}

/** Checks one package directory (absolute, or relative to the repository root). */
export async function checkPackage(dir) {
  const absolute = isAbsolute(dir) ? dir : join(root, dir);
  const repoDir = relative(root, absolute).split(sep).join('/');
  const pkg = JSON.parse(readFileSync(join(absolute, 'package.json'), 'utf8'));
  const problems = metadataProblems(absolute, repoDir, pkg);
  if (!existsSync(join(absolute, 'dist'))) return { dir: repoDir, name: pkg.name, problems: [...problems, 'dist/ is missing: run pnpm build first'] };
  const [lint, types] = await Promise.all([publintProblems(absolute, pkg), attwProblems(absolute)]);
  return { dir: repoDir, name: pkg.name, problems: [...problems, ...lint, ...types] };
}

async function main() {
  const args = process.argv.slice(2);
  const json = args.includes('--json');
  const dirs = args.filter((a) => !a.startsWith('--'));
  const targets = dirs.length > 0 ? dirs.map((d) => resolve(d)) : publishableDirs();
  const results = [];
  // Two at a time: each check packs a tarball, and the machine has two cores.
  for (let i = 0; i < targets.length; i += 2) {
    results.push(...(await Promise.all(targets.slice(i, i + 2).map(checkPackage))));
  }
  if (json) {
    process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
  } else {
    for (const r of results) {
      if (r.problems.length === 0) process.stdout.write(`ok   ${r.name} (${r.dir})\n`);
      for (const p of r.problems) process.stdout.write(`FAIL ${r.name} (${r.dir}): ${p}\n`);
    }
  }
  process.exitCode = results.some((r) => r.problems.length > 0) ? 1 : 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
