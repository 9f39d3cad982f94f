import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './peer.ts';

/** The lines .ci/run tests (its SUPPORTED_LINES), which engines and the READMEs must state. */
function ciLines(): string[] {
  const match = /^SUPPORTED_LINES=\(([\d ]+)\)$/m.exec(readFileSync(join(repoRoot, '.ci', 'run'), 'utf8'));
  return match?.[1]?.split(' ') ?? [];
}

/** Every publishable package directory (packages/*, apps/*). */
function packageDirs(): string[] {
  return ['packages', 'apps'].flatMap((group) => readdirSync(join(repoRoot, group)).map((name) => join(repoRoot, group, name)));
}

describe('supported Node lines', () => {
  it('runs the tests on the node PATH gives, so bins started through shims and through process.execPath agree', () => {
    const onPath = execFileSync('node', ['-p', 'process.execPath'], { encoding: 'utf8' }).trim();
    expect(realpathSync(process.execPath)).toBe(realpathSync(onPath));
  });

  it('runs on one of the lines CI tests', () => {
    expect(ciLines()).toEqual(['20', '22', '24', '26']);
    expect(ciLines()).toContain(process.versions.node.split('.')[0]);
  });

  it('states exactly those lines in every package.json engines', () => {
    const expected = ciLines()
      .map((line) => (line === '20' ? '^20.11.0' : `^${line}.0.0`))
      .join(' || ');
    const manifests = [join(repoRoot, 'package.json'), ...packageDirs().map((dir) => join(dir, 'package.json'))];
    const engines = Object.fromEntries(manifests.map((file) => [file.slice(repoRoot.length), (JSON.parse(readFileSync(file, 'utf8')) as { engines?: { node?: string } }).engines?.node]));
    expect(Object.keys(engines).length).toBeGreaterThanOrEqual(11);
    for (const [file, range] of Object.entries(engines)) expect({ file, range }).toEqual({ file, range: expected });
  });

  it('names those lines in the root README and every package README', () => {
    const readmes = [join(repoRoot, 'README.md'), ...packageDirs().map((dir) => join(dir, 'README.md'))];
    for (const file of readmes) {
      const text = readFileSync(file, 'utf8');
      expect({ file, names: /Node 20(\.11\+| \(20\.11(\+| or later)\))?, 22, 24 (and|or) 26/.test(text) }).toEqual({ file, names: true });
    }
  });
});
