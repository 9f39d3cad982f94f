// The TypeScript blocks in every package README (and examples/README.md) compile against the
// packages as they are: a README example that drifts from the API fails here.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from './peer.ts';

const run = promisify(execFile);

function readmes(): string[] {
  const files: string[] = [];
  for (const parent of ['packages', 'apps']) {
    for (const entry of readdirSync(join(repoRoot, parent), { withFileTypes: true })) {
      const file = join(repoRoot, parent, entry.name, 'README.md');
      if (entry.isDirectory() && existsSync(file)) files.push(file);
    }
  }
  files.push(join(repoRoot, 'examples', 'README.md'));
  return files;
}

/** ```ts blocks; a block right after `<!-- not-compiled -->` is skipped (shell-like fragments). */
export function typescriptBlocks(markdown: string): string[] {
  const blocks: string[] = [];
  const pattern = /(<!-- not-compiled -->\s*)?```(ts|typescript)\n([\s\S]*?)```/g;
  for (const match of markdown.matchAll(pattern)) if (match[1] === undefined) blocks.push(match[3]!);
  return blocks;
}

// Inside the repository (so imports resolve to the workspace packages), under the ignored .tmp/.
mkdirSync(join(repoRoot, '.tmp'), { recursive: true });
const workDir = mkdtempSync(join(repoRoot, '.tmp', 'readme-examples-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

describe('README TypeScript examples', () => {
  it('type-check against the workspace packages', async () => {
    const files: string[] = [];
    for (const readme of readmes()) {
      const name = relative(repoRoot, readme).replace(/[/.]/g, '_');
      typescriptBlocks(readFileSync(readme, 'utf8')).forEach((block, i) => {
        const dir = join(workDir, `${name}_${i}`);
        mkdirSync(dir, { recursive: true });
        // examples/README.md imports from './embedding/…' relative to examples/.
        const source = block.replaceAll("from './", `from '${relative(dir, join(repoRoot, 'examples')).replaceAll('\\', '/')}/`);
        writeFileSync(join(dir, 'example.ts'), `${source}\nexport {};\n`);
        files.push(join(dir, 'example.ts'));
      });
    }
    expect(files.length).toBeGreaterThan(5);
    writeFileSync(
      join(workDir, 'tsconfig.json'),
      JSON.stringify({ extends: '../../tsconfig.base.json', compilerOptions: { noEmit: true, noUnusedLocals: false, noUnusedParameters: false }, files }),
    );
    const tsc = join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = await run(process.execPath, [tsc, '-p', join(workDir, 'tsconfig.json')], { cwd: repoRoot, timeout: 200_000 }).then(
      () => '',
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );
    // Usage fragments may lean on names from the surrounding prose (a `logger`, a `config`); an
    // undeclared name is tolerated, anything else (a wrong export, option or type) is drift.
    const FRAGMENT_CODES = /error TS(2304|2552|18004|2582):/;
    const problems = result
      .replaceAll(workDir, '<readme>')
      .split('\n')
      .filter((line) => line.includes('error TS') && !FRAGMENT_CODES.test(line));
    expect(problems).toEqual([]);
  });
});
