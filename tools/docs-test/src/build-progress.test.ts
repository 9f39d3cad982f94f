// scripts/build.mjs reports progress on stderr (a line as each package starts and as it is built,
// with the time), keeps stdout to its one summary line, and says nothing more when all is current.
// Run on a throw-away workspace of two tiny packages, so the check costs no real build.
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from './peer.ts';

const run = promisify(execFile);
const packageDir = join(repoRoot, 'tools', 'docs-test');
mkdirSync(join(packageDir, '.tmp'), { recursive: true });
const workspace = mkdtempSync(join(packageDir, '.tmp', 'build-progress-'));
afterAll(() => rmSync(workspace, { recursive: true, force: true }));

function tinyPackage(name: string, dependencies: Record<string, string>): void {
  const dir = join(workspace, 'packages', name.slice(name.indexOf('/') + 1));
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'src', 'index.js'), 'export {};\n');
  const build = "node -e \"require('node:fs').mkdirSync('dist',{recursive:true})\"";
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '0.0.0', private: true, scripts: { build }, dependencies }));
}

describe('scripts/build.mjs progress', () => {
  it('prints a timed line per package to stderr as it starts and finishes, and nothing when all is current', async () => {
    mkdirSync(join(workspace, 'scripts'), { recursive: true });
    copyFileSync(join(repoRoot, 'scripts', 'build.mjs'), join(workspace, 'scripts', 'build.mjs'));
    tinyPackage('@tiny/base', {});
    tinyPackage('@tiny/app', { '@tiny/base': '0.0.0' });
    const script = join(workspace, 'scripts', 'build.mjs');

    const first = await run(process.execPath, [script, '--if-stale'], { cwd: workspace, timeout: 120_000 });
    expect(first.stdout.trim()).toMatch(/^build: 2 packages built in \d+\.\d s$/);
    const lines = first.stderr.trim().split('\n');
    const stamp = String.raw`build: \[\d\d:\d\d:\d\d \+\d+\.\d s\]`;
    expect(lines[0]).toMatch(new RegExp(`^${stamp} building 2 of 2 packages, \\d at a time: @tiny/base, @tiny/app$`));
    // The dependency first: @tiny/app starts only once @tiny/base is built.
    expect(lines.slice(1).map((line) => line.replace(new RegExp(`^${stamp} `), '').replace(/ in \d+\.\d s/, ' in …'))).toEqual([
      '@tiny/base started',
      '@tiny/base built in … (1/2)',
      '@tiny/app started',
      '@tiny/app built in … (2/2)',
    ]);

    const second = await run(process.execPath, [script, '--if-stale'], { cwd: workspace, timeout: 120_000 });
    expect(second.stdout.trim()).toBe('build: all 2 packages up to date');
    expect(second.stderr).toBe('');
  }, 240_000);
});
