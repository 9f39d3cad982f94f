import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { requireForStartup } from './heap.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A directory with `main.cjs` (which requires `shared.cjs` and `helper.cjs`) and a parent URL inside it. */
function moduleGraph(): { dir: string; parent: string } {
  const dir = mkdtempSync(join(tmpdir(), 'heap-test-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'shared.cjs'), 'module.exports = { name: "shared" };\n');
  writeFileSync(join(dir, 'helper.cjs'), 'module.exports = (x) => x * 2;\n');
  writeFileSync(
    join(dir, 'main.cjs'),
    'const shared = require("./shared.cjs"); const double = require("./helper.cjs");\nmodule.exports = { read: (x) => ({ value: double(x), from: shared.name }) };\n',
  );
  return { dir, parent: pathToFileURL(join(dir, 'parent.mjs')).href };
}

describe('requireForStartup', () => {
  it('returns what use returned and drops every module the load added from the cache', () => {
    const { dir, parent } = moduleGraph();
    const result = requireForStartup('./main.cjs', parent, (main: { read(x: number): { value: number; from: string } }) => main.read(21));
    expect(result).toEqual({ value: 42, from: 'shared' });
    const cache = createRequire(parent).cache;
    expect(Object.keys(cache).filter((id) => id.startsWith(dir))).toEqual([]);
  });

  it('leaves modules that were cached before it where they are', () => {
    const { dir, parent } = moduleGraph();
    const load = createRequire(parent);
    const shared: unknown = load('./shared.cjs');
    requireForStartup('./main.cjs', parent, () => undefined);
    expect(Object.keys(load.cache).filter((id) => id.startsWith(dir))).toEqual([join(dir, 'shared.cjs')]);
    expect(load('./shared.cjs')).toBe(shared);
  });

  it('drops the modules when use throws', () => {
    const { dir, parent } = moduleGraph();
    expect(() =>
      requireForStartup('./main.cjs', parent, () => {
        throw new Error('bad configuration');
      }),
    ).toThrow('bad configuration');
    expect(Object.keys(createRequire(parent).cache).filter((id) => id.startsWith(dir))).toEqual([]);
  });
});

/** Every file under `dir` (recursively), tests and test directories left out. */
function shippedFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'test' || name === 'node_modules' ? [] : shippedFiles(path);
    return /\.test\.[cm]?[jt]s$/.test(name) ? [] : [path];
  });
}

describe('shipped code', () => {
  it('never changes a V8 flag at run time (no v8.setFlagsFromString in any src/ or dist/ file)', () => {
    const root = fileURLToPath(new URL('../../../', import.meta.url));
    const packageDirs = ['packages', 'apps'].flatMap((group) => readdirSync(join(root, group)).map((name) => join(root, group, name)));
    const files = packageDirs.flatMap((dir) => [...shippedFiles(join(dir, 'src')), ...shippedFiles(join(dir, 'dist'))]);
    // The scan saw the bins and this entry (source and, once built, dist).
    expect(files).toContain(join(root, 'apps', 'peer', 'src', 'bin.ts'));
    expect(files).toContain(join(root, 'apps', 'ops-server', 'src', 'heap.ts'));
    expect(files.filter((file) => readFileSync(file, 'utf8').includes('setFlagsFromString'))).toEqual([]);
  });
});
