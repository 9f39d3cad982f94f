import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { publishablePackages, repoRoot } from './paths.ts';

const run = promisify(execFile);

interface ReleaseSummary {
  mode: string;
  changesets: string[];
  packages: { name: string; dir: string; version: string; published: boolean; changelog: string }[];
}

function snapshot(): Record<string, string> {
  const state: Record<string, string> = {};
  for (const pkg of publishablePackages()) {
    state[pkg.name] = `${pkg.version} changelog:${existsSync(join(repoRoot, pkg.dir, 'CHANGELOG.md')) ? readFileSync(join(repoRoot, pkg.dir, 'CHANGELOG.md'), 'utf8').length : 'none'}`;
  }
  return state;
}

describe('pnpm release:dry-run', () => {
  it('versions every public package to one fixed version with generated CHANGELOGs and dry-run publishes them all, touching nothing', async () => {
    const before = snapshot();
    const { stdout } = await run(process.execPath, ['scripts/release.mjs', '--dry-run', '--json'], { cwd: repoRoot, timeout: 200_000, maxBuffer: 64 * 1024 * 1024 });
    const summary = JSON.parse(stdout) as ReleaseSummary;
    expect(summary.mode).toBe('dry-run');
    expect(summary.changesets).toContain('opsctl-and-operator-kit.md');

    const expectedNames = publishablePackages()
      .map((p) => p.name)
      .sort();
    expect(summary.packages.map((p) => p.name).sort()).toEqual(expectedNames);
    // The `fixed` group: one version for the whole family, above the current one.
    const versions = new Set(summary.packages.map((p) => p.version));
    expect(versions.size).toBe(1);
    const [next] = [...versions];
    const current = publishablePackages()[0]!.version;
    expect(next).not.toBe(current);
    for (const pkg of summary.packages) {
      expect(pkg.published, pkg.name).toBe(true);
      expect(pkg.changelog, pkg.name).toMatch(new RegExp(`^# ${pkg.name.replace('/', '\\/')}\\n\\n## ${next!.replace(/\./g, '\\.')}\\n`));
    }
    const opsctl = summary.packages.find((p) => p.name === '@fabric-ops/opsctl')!;
    expect(opsctl.changelog).toContain('New `opsctl` command-line client');

    // The dry run worked on a copy: versions, CHANGELOGs and changesets here are as they were.
    expect(snapshot()).toEqual(before);
    expect(existsSync(join(repoRoot, '.changeset', 'opsctl-and-operator-kit.md'))).toBe(true);
  });
});
