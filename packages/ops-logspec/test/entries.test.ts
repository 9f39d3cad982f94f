import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// Installing @fabric-ops/ops-logspec pulls in no logger library: each is an optional peer, the
// main entry imports none (pino is loaded inside createLogging), and each adapter entry imports
// its own library only. Checked on the built files, which are what npm users get.

const pkgDir = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
  devDependencies: Record<string, string>;
  exports: Record<string, unknown>;
  files: string[];
};
const LOGGERS = ['pino', 'winston', 'bunyan', 'log4js'] as const;
// pino, bunyan and log4js are required inside createLogging, createBunyanLogging and
// createLog4jsLogging (so a missing one is a LogspecError naming what to install), not imported.
const ENTRIES: Record<string, string | undefined> = { index: undefined, spec: undefined, pino: undefined, winston: 'winston', bunyan: undefined, log4js: undefined };

const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

/**
 * A node_modules laid out as npm would for an application that installed the package and
 * `loggers` only: the package's packed files, ops-http, and nothing else above it.
 */
function installWith(loggers: readonly string[]): string {
  const app = mkdtempSync(join(tmpdir(), 'logspec-install-'));
  scratch.push(app);
  const target = join(app, 'node_modules', '@fabric-ops', 'ops-logspec');
  mkdirSync(target, { recursive: true });
  cpSync(join(pkgDir, 'package.json'), join(target, 'package.json'));
  cpSync(join(pkgDir, 'dist'), join(target, 'dist'), { recursive: true });
  symlinkSync(realpathSync(join(pkgDir, 'node_modules', '@fabric-ops', 'ops-http')), join(app, 'node_modules', '@fabric-ops', 'ops-http'));
  for (const logger of loggers) symlinkSync(realpathSync(join(pkgDir, 'node_modules', logger)), join(app, 'node_modules', logger));
  return app;
}

function runIn(app: string, file: string, source: string): unknown {
  writeFileSync(join(app, file), source);
  // pnpm exports NODE_PATH (its hoisted store, where every logger is): an npm user has none.
  const env = { ...process.env };
  delete env['NODE_PATH'];
  return JSON.parse(execFileSync(process.execPath, [join(app, file)], { cwd: app, encoding: 'utf8', env }));
}

describe('what installing the package brings', () => {
  it('takes every logger library as an optional peer, never as a dependency', () => {
    for (const logger of LOGGERS) {
      expect(pkg.dependencies[logger]).toBeUndefined();
      expect(pkg.peerDependencies[logger]).toBeDefined();
      expect(pkg.peerDependenciesMeta[logger]?.optional).toBe(true);
      // The adapters' tests run against the real library.
      expect(pkg.devDependencies[logger]).toBeDefined();
    }
    expect(Object.keys(pkg.dependencies)).toEqual(['@fabric-ops/ops-http']);
  });

  it.each(Object.entries(ENTRIES))('built entry %s imports no logger library but its own', (entry, own) => {
    expect(pkg.exports[entry === 'index' ? '.' : `./${entry}`]).toBeDefined();
    if (entry !== 'index') expect(pkg.files).toContain(`${entry}/package.json`);
    for (const ext of ['js', 'cjs']) {
      const file = join(pkgDir, 'dist', `${entry}.${ext}`);
      // `pnpm test` builds before testing.
      expect(existsSync(file)).toBe(true);
      const text = readFileSync(file, 'utf8');
      const imported = LOGGERS.filter((logger) => new RegExp(`(from\\s*|require\\(\\s*)['"]${logger}(/[^'"]*)?['"]`).test(text));
      expect(imported).toEqual(own === undefined ? [] : [own]);
    }
  });

  it('main entry: loads and decides levels with no logger installed; createLogging names what to install', () => {
    const app = installWith([]);
    const source = (load: string) => `${load}
const levels = m.createLogLevels({ spec: 'gossip=debug:warn' });
let code = '';
try { m.createLogging(); } catch (e) { code = e.code + ': ' + e.message; }
console.log(JSON.stringify([levels.levelOf('gossip.privdata'), levels.levelOf('ledger'), code]));`;
    const expected = ['debug', 'warn', 'PEER_MISSING: createLogging needs pino, an optional peer dependency of @fabric-ops/ops-logspec: npm install pino'];
    expect(runIn(app, 'esm.mjs', source("const m = await import('@fabric-ops/ops-logspec');"))).toEqual(expected);
    expect(runIn(app, 'cjs.cjs', source("const m = require('@fabric-ops/ops-logspec');"))).toEqual(expected);
  });

  it.each([
    ['bunyan', 'createBunyanLogging'],
    ['log4js', 'createLog4jsLogging'],
  ])('the %s entry loads without it installed, and %s names what to install', (logger, create) => {
    const app = installWith([]);
    const source = `const m = await import('@fabric-ops/ops-logspec/${logger}');
let code = '';
try { m.${create}({ spec: 'info' }); } catch (e) { code = e.code + ': ' + e.message; }
console.log(JSON.stringify(code));`;
    expect(runIn(app, 'missing.mjs', source)).toBe(`PEER_MISSING: ${create} needs ${logger}, an optional peer dependency of @fabric-ops/ops-logspec: npm install ${logger}`);
  });

  it.each(['winston', 'bunyan', 'log4js', 'pino'])('the %s entry works with that library alone installed', (logger) => {
    const app = installWith([logger]);
    const others = LOGGERS.filter((l) => l !== logger);
    const make: Record<string, string> = {
      winston: "const l = (await import('@fabric-ops/ops-logspec/winston')).createWinstonLogging({ spec: 'a=debug' }).getLogger('a.b'); const level = l.level;",
      bunyan: "const l = (await import('@fabric-ops/ops-logspec/bunyan')).createBunyanLogging({ spec: 'a=debug' }).getLogger('a.b'); const level = l.level();",
      log4js: "const l = (await import('@fabric-ops/ops-logspec/log4js')).createLog4jsLogging({ spec: 'a=debug' }).getLogger('a.b'); const level = String(l.level);",
      pino: "const l = (await import('@fabric-ops/ops-logspec/pino')).createLogging({ spec: 'a=debug' }).getLogger('a.b'); const level = l.level;",
    };
    const result = runIn(
      app,
      'check.mjs',
      `${make[logger] ?? ''}
const missing = [];
for (const other of ${JSON.stringify(others)}) { try { await import(other); } catch { missing.push(other); } }
console.log(JSON.stringify([level, missing]));`,
    );
    // The other libraries really are absent: the entry loaded without them.
    expect(result).toEqual([{ winston: 'debug', bunyan: 20, log4js: 'DEBUG', pino: 'debug' }[logger], others]);
  });
});
