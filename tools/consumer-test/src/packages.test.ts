import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from './paths.ts';

const run = promisify(execFile);

interface PackageReport {
  readonly dir: string;
  readonly name: string;
  readonly problems: readonly string[];
  /** What installing the package brings: bytes on disk and `name@version` of each package. */
  readonly install?: { readonly bytes: number; readonly packages: readonly string[] };
}

async function checkPackages(args: readonly string[] = []): Promise<{ code: number; reports: PackageReport[] }> {
  try {
    const { stdout } = await run(process.execPath, ['scripts/check-packages.mjs', '--json', ...args], { cwd: repoRoot, maxBuffer: 16 * 1024 * 1024, timeout: 200_000 });
    return { code: 0, reports: JSON.parse(stdout) as PackageReport[] };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    if (typeof failed.stdout !== 'string' || !failed.stdout.trim().startsWith('[')) throw new Error(`check-packages crashed: ${failed.stderr ?? String(error)}`);
    return { code: failed.code ?? -1, reports: JSON.parse(failed.stdout) as PackageReport[] };
  }
}

const scratch: string[] = [];
afterAll(async () => {
  for (const dir of scratch) await rm(dir, { recursive: true, force: true });
});

/** A built package in a scratch directory: an ES module `dist/index.js` with its types, a README, `files`, and the rest of `manifest`. */
async function fixturePackage(manifest: Record<string, unknown>, sources: Readonly<Record<string, string>> = {}): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'fabric-ops-fixture-pkg-'));
  scratch.push(dir);
  await mkdir(join(dir, 'dist'));
  await writeFile(join(dir, 'dist', 'index.js'), 'export const answer = 42;\n');
  await writeFile(join(dir, 'dist', 'index.d.ts'), 'export declare const answer: number;\n');
  await writeFile(join(dir, 'README.md'), `# ${String(manifest['name'])}\n`);
  for (const [file, text] of Object.entries(sources)) {
    await mkdir(join(dir, file, '..'), { recursive: true });
    await writeFile(join(dir, file), text);
  }
  await writeFile(join(dir, 'package.json'), JSON.stringify({ version: '1.0.0', type: 'module', files: ['dist'], ...manifest }));
  return dir;
}

describe('pnpm check:packages', () => {
  it('finds publint, attw and metadata clean for every publishable package', async () => {
    const { code, reports } = await checkPackages();
    const names = reports.map((r) => r.name);
    for (const expected of [
      '@fabric-ops/go-x509',
      '@fabric-ops/ops-http',
      '@fabric-ops/ops-logspec',
      '@fabric-ops/ops-health',
      '@fabric-ops/ops-metrics',
      '@fabric-ops/ops-tls-auth',
      '@fabric-ops/ops-config',
      '@fabric-ops/ops-server',
      '@fabric-ops/peer',
      '@fabric-ops/orderer',
      '@fabric-ops/opsctl',
    ]) {
      expect(names).toContain(expected);
    }
    expect(reports.filter((r) => r.problems.length > 0)).toEqual([]);
    expect(code).toBe(0);
    // An embedder installing the server gets neither ops-config's zod and yaml nor a native build.
    const server = reports.find((r) => r.name === '@fabric-ops/ops-server');
    expect(server?.install?.packages).toContain('@fabric-ops/ops-health@0.1.0');
    expect(server?.install?.packages.filter((p) => /^(zod|yaml|hot-shots|unix-dgram|@fabric-ops\/ops-config)@/.test(p))).toEqual([]);
    for (const report of reports) expect(report.install?.bytes ?? 0).toBeGreaterThan(0);
  });

  it('reports a package that installs a shared runtime library, uses one without a peer, exposes its internals or infers its declarations', async () => {
    const dir = await fixturePackage(
      {
        name: 'peer-rule-fixture',
        exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' } },
        dependencies: { pino: '^10.1.0' },
      },
      {
        'src/index.ts': "import { Registry } from 'prom-client';\nexport const registry = new Registry();\n",
        // A test may import what it likes: only the shipped source counts.
        'src/index.test.ts': "import 'hot-shots';\n",
        'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true } }),
      },
    );
    const { code, reports } = await checkPackages([dir]);
    expect(code).toBe(1);
    const problems = reports[0]?.problems ?? [];
    expect(problems).toContain('peer rule: pino is a dependency; the host shares one copy, make it a peerDependency');
    expect(problems).toContain('peer rule: prom-client is not a peerDependency, but its source imports it');
    expect(problems).toContain('exports rule: exports does not block "./internal/*" (add "./internal/*": null)');
    expect(problems).toContain('tsconfig.json does not turn on isolatedDeclarations');
    expect(problems.filter((p) => p.includes('hot-shots'))).toEqual([]);
  });

  it('reports a package whose exports map lies about its module format', async () => {
    const dir = await fixturePackage({
      name: 'broken-fixture',
      // An ES module behind `require`, and no CommonJS build: both linters must object.
      exports: { '.': { require: './dist/index.js', types: './dist/index.d.ts', import: './dist/index.js' } },
    });
    const { code, reports } = await checkPackages([dir]);
    expect(code).toBe(1);
    const problems = reports[0]?.problems ?? [];
    expect(problems).toContain('license is not set');
    expect(problems).toContain('sideEffects is not set');
    expect(problems.some((p) => p.startsWith('publint '))).toBe(true);
    expect(problems.some((p) => p.startsWith('attw '))).toBe(true);
  });
});
