// Installs the packed tarballs into a scratch project outside the workspace, as a third party
// would, and uses them from ESM, CommonJS and TypeScript.
import { execFile, spawn } from 'node:child_process';
import { copyFile, lstat, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishablePackages, repoRoot, type PublishablePackage } from './paths.ts';

const run = promisify(execFile);

/** The child's environment without pnpm's npm_config_* settings, which would steer npm. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(npm_|pnpm_)/i.test(key) && key !== 'NODE_OPTIONS' && key !== 'VITEST' && !key.startsWith('VITEST_')) env[key] = value;
  }
  return env;
}

async function exec(file: string, args: readonly string[], cwd: string, timeoutMs: number): Promise<string> {
  try {
    const { stdout } = await run(file, args, { cwd, env: cleanEnv(), timeout: timeoutMs, maxBuffer: 32 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${file} ${args.join(' ')} failed: ${failed.message}\n${failed.stdout ?? ''}\n${failed.stderr ?? ''}`);
  }
}

const TSC = join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
const packages: PublishablePackage[] = publishablePackages();
let scratch = '';

// What every entry point must offer, beyond "loads and has named exports".
const KEY_EXPORTS: Readonly<Record<string, readonly string[]>> = {
  '@fabric-ops/ops-http': ['createRouter', 'writeJson'],
  '@fabric-ops/ops-logspec': ['createLogging', 'createLeanLogging', 'logspecHandler'],
  '@fabric-ops/ops-health': ['createHealthRegistry', 'createHealthEndpoints', 'dockerChecker'],
  '@fabric-ops/ops-metrics': ['createMetricsProvider', 'MetricsError'],
  '@fabric-ops/go-x509': ['createClientTrustPool', 'verifyClientChain', 'clientCertificateMessageProblem'],
  '@fabric-ops/ops-tls-auth': ['clientSubjectOf'],
  '@fabric-ops/ops-config': ['loadPeerConfig', 'loadOrdererConfig'],
  '@fabric-ops/ops-server': ['createOperationsSystem', 'runUntilSignalled'],
  '@fabric-ops/peer': ['runPeer'],
  '@fabric-ops/orderer': ['runOrderer'],
  '@fabric-ops/opsctl': ['runOpsctl', 'parsePrometheusText'],
};

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'fabric-ops-consumer-'));
  const tarballs = join(scratch, 'tarballs');
  await mkdir(tarballs);
  // The recipe the root README gives, exactly: pack every publishable package (pnpm pack rewrites
  // workspace:^ ranges to the real versions, as publishing does), then npm install the tarballs
  // together, their dependencies on each other resolved among them.
  await exec('pnpm', ['--filter', './packages/*', '--filter', './apps/*', 'pack', '--pack-destination', tarballs], repoRoot, 240_000);
  const files = await readdir(tarballs);
  const tgz: string[] = [];
  for (const pkg of packages) {
    const file = files.find((f) => f === `${pkg.name.replace('@', '').replace('/', '-')}-${pkg.version}.tgz`);
    if (file === undefined) throw new Error(`no tarball for ${pkg.name} in ${files.join(', ')}`);
    tgz.push(`./tarballs/${file}`);
  }
  expect(files.filter((f) => f.endsWith('.tgz'))).toHaveLength(packages.length);
  await writeFile(join(scratch, 'package.json'), `${JSON.stringify({ name: 'fabric-ops-consumer', version: '0.0.0', private: true, dependencies: { '@types/node': '^20.19.0' } }, null, 2)}\n`);
  // The scratch project's own npm settings: no workspace .npmrc reaches it from /tmp.
  await writeFile(join(scratch, '.npmrc'), 'audit=false\nfund=false\nupdate-notifier=false\n');
  await exec('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', '--prefer-offline', ...tgz], scratch, 200_000);
  for (const file of ['check-modules.mjs', 'error-classes.mjs', 'builtins-loaded.mjs', 'exercise.cjs', 'run-esm.mjs', 'run-cjs.cjs', 'tsconfig.json']) {
    await copyFile(join(repoRoot, 'tools', 'consumer-test', 'fixtures', file), join(scratch, file));
  }
  // One consumer source, type-checked as an ES module and as CommonJS.
  const types = join(repoRoot, 'tools', 'consumer-test', 'fixtures', 'consumer-types.ts');
  await copyFile(types, join(scratch, 'types-esm.mts'));
  await copyFile(types, join(scratch, 'types-cjs.cts'));
  // The embedding example (plain JavaScript with JSDoc types), type-checked against the published
  // declarations and emitted by tsc as an ES module; the CommonJS run loads its require() form.
  await copyFile(join(repoRoot, 'examples', 'embedding', 'service.mjs'), join(scratch, 'service.mjs'));
}, 600_000);

afterAll(async () => {
  if (scratch !== '') await rm(scratch, { recursive: true, force: true });
});

describe('the packed packages, installed with npm outside the workspace', () => {
  it('are real copies with published dependency ranges, not workspace links', async () => {
    for (const pkg of packages) {
      const installed = join(scratch, 'node_modules', ...pkg.name.split('/'));
      expect((await lstat(installed)).isSymbolicLink(), pkg.name).toBe(false);
      const manifest = await readFile(join(installed, 'package.json'), 'utf8');
      expect(manifest, pkg.name).not.toContain('workspace:');
    }
  });

  it('load with import and with require, offering the same named exports', async () => {
    const report = JSON.parse(await exec(process.execPath, ['check-modules.mjs', ...packages.map((p) => p.name)], scratch, 60_000)) as {
      name: string;
      esm: string[];
      cjs: string[];
      esmFile: string;
      cjsFile: string;
    }[];
    expect(report.map((r) => r.name)).toEqual(packages.map((p) => p.name));
    for (const entry of report) {
      expect(entry.esmFile, entry.name).toMatch(/\/dist\/index\.js$/);
      expect(entry.cjsFile, entry.name).toMatch(/\/dist\/index\.cjs$/);
      expect(entry.esm, entry.name).toEqual(entry.cjs);
      for (const name of KEY_EXPORTS[entry.name] ?? []) expect(entry.esm, entry.name).toContain(name);
    }
  });

  it('derive every exported error class, in every entry, ESM and CommonJS, from the one FabricOpsError of ops-http/errors', async () => {
    const report = JSON.parse(await exec(process.execPath, ['error-classes.mjs', ...packages.map((p) => p.name)], scratch, 60_000)) as {
      classes: { specifier: string; exported: string; system: string; derives: boolean }[];
      unloadable: { specifier: string; code: string; message: string }[];
    };
    // Only an adapter whose optional peer is not installed may fail to load, and never for want of one of ours.
    for (const entry of report.unloadable) expect(entry.message, entry.specifier).not.toMatch(/(package|module) '@fabric-ops\//);
    const found = new Set(report.classes.map((c) => c.exported));
    for (const name of ['FabricOpsError', 'OpsHttpError', 'LogspecError', 'HealthError', 'MetricsError', 'ConfigError', 'TlsAuthError', 'OpsServerError', 'OpsctlError'])
      expect(found, name).toContain(name);
    expect(report.classes.filter((c) => !c.derives).map((c) => `${c.specifier} ${c.exported} (${c.system})`)).toEqual([]);
  });

  it('cost as little to import as to require: no builtin module facade that loads undici, http2, zlib, worker_threads or streams', async () => {
    // An ES module import of node:http, node:fs or node:util builds Node's facade of that module,
    // which reads every export, lazy ones included: http's WebSocket loads undici and, with it,
    // crypto, tls, http2, zlib, worker_threads and web streams (Node 22-26). The ES module builds
    // take those builtins with require (tsup.shared.ts, esmBuiltinsByRequire).
    // (On Node 20, where http has no WebSocket, the fs facade alone loaded Node's streams.)
    const heavy = ['NativeModule internal/deps/undici/undici', 'NativeModule http2', 'NativeModule zlib', 'NativeModule worker_threads', 'NativeModule assert', 'NativeModule stream/promises'];
    const loaded = async (name: string, how: 'esm' | 'cjs'): Promise<string[]> => JSON.parse(await exec(process.execPath, ['builtins-loaded.mjs', name, how], scratch, 60_000)) as string[];
    for (const pkg of packages) {
      const [esm, cjs] = await Promise.all([loaded(pkg.name, 'esm'), loaded(pkg.name, 'cjs')]);
      expect(esm.length, pkg.name).toBeGreaterThan(0); // it did load something: the list is real
      const required = new Set(cjs);
      expect(
        heavy.filter((entry) => esm.includes(entry) && !required.has(entry)),
        `${pkg.name}: loaded by import only`,
      ).toEqual([]);
    }
  });

  it('type-check a consumer (ESM and CommonJS) against the published declarations and compile the example', async () => {
    await exec(process.execPath, [TSC, '-p', 'tsconfig.json'], scratch, 200_000);
    const example = await readFile(join(scratch, 'service.mjs'), 'utf8');
    const { outputText } = ts.transpileModule(example, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 }, fileName: 'service.js' }); // .js: a .mjs name would keep the ES module syntax
    await writeFile(join(scratch, 'out', 'service.cjs'), outputText);
    const compiled = await readdir(join(scratch, 'out'));
    expect(compiled).toEqual(expect.arrayContaining(['service.mjs', 'service.cjs', 'types-esm.mjs', 'types-cjs.cjs']));
    // Compiled as CommonJS, the example loads our packages with require().
    expect(await readFile(join(scratch, 'out', 'service.cjs'), 'utf8')).toMatch(/require\("@fabric-ops\/ops-server"\)/);
  });

  it('install working bins: fabric-ops-peer answers /version and opsctl reads it', async () => {
    const bin = (name: string) => join(scratch, 'node_modules', '.bin', name);
    expect(await exec(bin('fabric-ops-peer'), ['--help'], scratch, 30_000)).toContain('usage: fabric-ops-peer');
    expect(await exec(bin('fabric-ops-orderer'), ['--help'], scratch, 30_000)).toContain('usage: fabric-ops-orderer');
    const config = join(scratch, 'core.yaml');
    await writeFile(config, 'vm:\n  endpoint: ""\noperations:\n  listenAddress: 127.0.0.1:0\n');
    const peer = spawn(bin('fabric-ops-peer'), ['--config', config], { cwd: scratch, env: { ...cleanEnv(), FABRIC_OPS_COMMIT_SHA: 'feed123' }, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const address = await new Promise<string>((resolve, reject) => {
        let seen = '';
        const timer = setTimeout(() => reject(new Error(`peer did not start: ${seen}`)), 30_000);
        peer.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          seen += chunk;
          const match = /listening on (\d+\.\d+\.\d+\.\d+:\d+)/.exec(seen);
          if (match) {
            clearTimeout(timer);
            resolve(match[1]!);
          }
        });
        peer.once('exit', (code) => reject(new Error(`peer exited ${code}: ${seen}`)));
      });
      const version = JSON.parse(await exec(bin('opsctl'), ['--address', address, 'version', '--json'], scratch, 30_000)) as { CommitSHA: string; Version: string };
      expect(version).toEqual({ CommitSHA: 'feed123', Version: packages.find((p) => p.name === '@fabric-ops/peer')!.version });
      expect(await exec(bin('opsctl'), ['--address', address, 'health'], scratch, 30_000)).toMatch(/^OK /);
    } finally {
      peer.kill('SIGKILL');
    }
  });

  for (const [flavour, runner] of [
    ['ES module', 'run-esm.mjs'],
    ['CommonJS', 'run-cjs.cjs'],
  ] as const) {
    it(`embed ops-server in a service (${flavour}): /healthz with a custom checker, /metrics with a custom metric, /logspec`, async () => {
      const result = JSON.parse(await exec(process.execPath, [runner], scratch, 60_000)) as Record<string, { status: number; body: string; contentType?: string }>;
      expect(result['orders']?.status).toBe(200);
      expect(result['healthy']?.status).toBe(200);
      expect(JSON.parse(result['healthy']!.body)).toMatchObject({ status: 'OK' });
      expect(result['unhealthy']?.status).toBe(503);
      expect(JSON.parse(result['unhealthy']!.body)).toMatchObject({
        status: 'Service Unavailable',
        failed_checks: [{ component: 'orders-db', reason: 'orders database unreachable' }],
      });
      expect(result['metrics']?.status).toBe(200);
      expect(result['metrics']?.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(result['metrics']?.body).toContain('# TYPE orders_requests_served counter');
      expect(result['metrics']?.body).toContain('orders_requests_served{outcome="ok"} 1');
      expect(result['metrics']?.body).toContain('fabric_version{version="1.0.0"} 1');
      expect(result['logspecBefore']).toEqual({ status: 200, body: '{"spec":"info"}\n', contentType: 'application/json' });
      expect(result['logspecPut']?.status).toBe(204);
      expect(result['logspecAfter']?.body).toBe('{"spec":"orders=debug:info"}\n');
      expect(result['version']?.body).toBe('{"CommitSHA":"example","Version":"1.0.0"}');
    });
  }
});
