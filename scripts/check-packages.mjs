// Checks that every publishable workspace package is fit for npm: package.json metadata, the
// shared-runtime peer rule, the exports map hiding ./internal/*, publint (strict) and
// @arethetypeswrong/cli on the packed tarball; and prints what installing each package costs
// (size on disk and number of packages, its workspace dependencies included). Needs `pnpm build`.
//   node scripts/check-packages.mjs [--json] [dir...]
// Exits 1 and prints one line per problem when anything is wrong.
import { execFile } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';

const run = promisify(execFile);
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const attwBin = join(root, 'node_modules', '.bin', 'attw');

// Runtime libraries a consumer shares with us (one prom-client registry, one pino): a library
// package takes them as peers, never installs its own copy. A
// package that uses one (imports it, or depends on a workspace package that takes it as a
// peer) says so in its own peerDependencies, optional where only some features need it, so the
// host application sees the choice; only a bin (the host itself) may install it outright.
const SHARED_RUNTIME_LIBRARIES = ['prom-client', 'pino'];

/** The shared libraries a package's own source (not its tests) imports. */
function sharedLibrariesImported(absolute) {
  const found = new Set();
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(ts|mts|cts|js|mjs|cjs)$/.test(entry.name) && !/\.test\.[cm]?[tj]s$/.test(entry.name)) {
        const text = readFileSync(path, 'utf8');
        for (const lib of SHARED_RUNTIME_LIBRARIES) {
          const name = lib.replace('-', '\\-');
          if (new RegExp(`(from|import|require)\\s*\\(?\\s*['"]${name}(/[^'"]*)?['"]`).test(text)) found.add(lib);
        }
      }
    }
  };
  if (existsSync(join(absolute, 'src'))) walk(join(absolute, 'src'));
  return found;
}

/** The workspace's packages by name (their directory and package.json). */
function workspacePackages() {
  const byName = new Map();
  for (const parent of ['packages', 'apps']) {
    const base = join(root, parent);
    if (!existsSync(base)) continue;
    for (const entry of readdirSync(base, { withFileTypes: true })) {
      const file = join(base, entry.name, 'package.json');
      if (!entry.isDirectory() || !existsSync(file)) continue;
      const pkg = JSON.parse(readFileSync(file, 'utf8'));
      byName.set(pkg.name, { dir: join(base, entry.name), pkg });
    }
  }
  return byName;
}

function peerRuleProblems(absolute, pkg) {
  const problems = [];
  const isBin = pkg.bin !== undefined;
  const workspace = workspacePackages();
  const needed = new Map();
  for (const lib of sharedLibrariesImported(absolute)) needed.set(lib, 'its source imports it');
  for (const dep of Object.keys({ ...pkg.dependencies, ...pkg.peerDependencies })) {
    const peers = workspace.get(dep)?.pkg.peerDependencies ?? {};
    for (const lib of SHARED_RUNTIME_LIBRARIES) if (peers[lib] !== undefined && !needed.has(lib)) needed.set(lib, `${dep} takes it as a peer`);
  }
  for (const lib of SHARED_RUNTIME_LIBRARIES) {
    const inDependencies = pkg.dependencies?.[lib] !== undefined;
    const inPeers = pkg.peerDependencies?.[lib] !== undefined;
    if (inDependencies && !isBin) problems.push(`peer rule: ${lib} is a dependency; the host shares one copy, make it a peerDependency`);
    const why = needed.get(lib);
    if (why !== undefined && !inPeers && !(isBin && inDependencies)) problems.push(`peer rule: ${lib} is not a peerDependency, but ${why}`);
  }
  return problems;
}

function exportsRuleProblems(pkg) {
  if (typeof pkg.exports !== 'object' || pkg.exports === null) return ['exports rule: there is no exports map to block "./internal/*"'];
  return pkg.exports['./internal/*'] === null ? [] : ['exports rule: exports does not block "./internal/*" (add "./internal/*": null)'];
}

/** Bytes a directory holds on disk, nested node_modules left out (pnpm lays dependencies out beside it). */
function directoryBytes(dir) {
  let bytes = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) bytes += directoryBytes(path);
    else if (entry.isFile()) bytes += lstatSync(path).size;
  }
  return bytes;
}

/** Node's lookup of `name` from `fromDir`: the nearest node_modules/<name> up the (real) path. */
function locate(name, fromDir) {
  let dir = realpathSync(fromDir);
  for (;;) {
    const candidate = join(dir, 'node_modules', ...name.split('/'));
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

const packedBytesCache = new Map();
/** What the packed tarball of a workspace package unpacks to (npm's own count of its files). */
async function packedBytes(dir) {
  if (!packedBytesCache.has(dir)) {
    packedBytesCache.set(
      dir,
      run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: dir, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }).then(({ stdout }) => JSON.parse(stdout)[0].unpackedSize),
    );
  }
  return packedBytesCache.get(dir);
}

/**
 * What a consumer installs with this package: it, its dependencies and required peers (npm
 * installs those), recursively, each once. Workspace packages count as their packed files;
 * registry packages as the copy in this workspace's node_modules (the same files npm unpacks;
 * an optional dependency counts when it is installed here). An estimate, not an npm install:
 * it needs no network and takes a second.
 */
export async function installFootprint(dir) {
  const workspace = workspacePackages();
  const seen = new Map();
  const visit = async (name, fromDir, ownDir) => {
    const local = ownDir ?? workspace.get(name)?.dir;
    const pkgDir = local ?? locate(name, fromDir);
    if (pkgDir === undefined) return;
    const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
    const key = `${pkg.name}@${pkg.version}`;
    if (seen.has(key)) return;
    seen.set(key, 0);
    seen.set(key, local !== undefined ? await packedBytes(pkgDir) : directoryBytes(pkgDir));
    const optionalPeers = pkg.peerDependenciesMeta ?? {};
    const requiredPeers = Object.keys(pkg.peerDependencies ?? {}).filter((peer) => optionalPeers[peer]?.optional !== true);
    for (const dep of [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.optionalDependencies ?? {}), ...requiredPeers]) await visit(dep, pkgDir);
  };
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  await visit(pkg.name, dir, dir);
  const packages = [...seen.keys()].sort();
  return { bytes: [...seen.values()].reduce((a, b) => a + b, 0), packages };
}

function formatBytes(bytes) {
  return bytes >= 1_000_000 ? `${(bytes / 1_000_000).toFixed(1)} MB` : `${Math.round(bytes / 1_000)} kB`;
}

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
  const need = (condition, text) => {
    if (!condition) problems.push(text);
  };
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
  // Declarations each file can emit alone: the public types never depend on inference across files.
  const tsconfig = join(absolute, 'tsconfig.json');
  if (existsSync(tsconfig)) need(JSON.parse(readFileSync(tsconfig, 'utf8')).compilerOptions?.isolatedDeclarations === true, 'tsconfig.json does not turn on isolatedDeclarations');
  problems.push(...peerRuleProblems(absolute, pkg), ...exportsRuleProblems(pkg));
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
  const [lint, types, install] = await Promise.all([publintProblems(absolute, pkg), attwProblems(absolute), installFootprint(absolute)]);
  return { dir: repoDir, name: pkg.name, problems: [...problems, ...lint, ...types], install };
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
      if (r.install !== undefined)
        process.stdout.write(`size ${r.name}: ${formatBytes(r.install.bytes)} installed, ${r.install.packages.length} package(s): itself and ${r.install.packages.length - 1} more\n`);
      if (r.problems.length === 0) process.stdout.write(`ok   ${r.name} (${r.dir})\n`);
      for (const p of r.problems) process.stdout.write(`FAIL ${r.name} (${r.dir}): ${p}\n`);
    }
  }
  process.exitCode = results.some((r) => r.problems.length > 0) ? 1 : 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
