// The TypeScript and JavaScript blocks in every README (the root one, each package's and app's,
// examples/README.md) compile against the packages as they are, exactly as a reader copies them
// into a file: a README example that drifts from the API, or leans on a name it never declares,
// fails here.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from './peer.ts';
import { codeBlocks, readmes } from './readme-blocks.ts';

const run = promisify(execFile);

// Inside this package (so imports resolve to the workspace packages, and to the Express and
// Fastify the framework examples import), under the ignored .tmp/.
const packageDir = join(repoRoot, 'tools', 'docs-test');
mkdirSync(join(packageDir, '.tmp'), { recursive: true });
const workDir = mkdtempSync(join(packageDir, '.tmp', 'readme-examples-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

describe('README TypeScript examples', () => {
  it('type-check against the workspace packages', async () => {
    const files: string[] = [];
    for (const readme of readmes()) {
      const name = relative(repoRoot, readme).replace(/[/.]/g, '_');
      codeBlocks(readFileSync(readme, 'utf8')).forEach((block, i) => {
        const dir = join(workDir, `${name}_${i}`);
        mkdirSync(dir, { recursive: true });
        // examples/README.md imports from './embedding/…' relative to examples/.
        const source = block.source.replaceAll("from './", `from '${relative(dir, join(repoRoot, 'examples')).replaceAll('\\', '/')}/`);
        // A JavaScript block is an ES module, as `node example.mjs` runs it; checkJs reads its types.
        const file = join(dir, block.language === 'ts' ? 'example.ts' : 'example.mjs');
        writeFileSync(file, `${source}\nexport {};\n`);
        files.push(file);
      });
    }
    expect(files.length).toBeGreaterThan(5);
    // Resolved as an npm user's project resolves them: each package's built dist/ types (no
    // source condition), JavaScript blocks checked without demanding annotations.
    writeFileSync(
      join(workDir, 'tsconfig.json'),
      JSON.stringify({
        extends: relative(workDir, join(repoRoot, 'tsconfig.base.json')),
        compilerOptions: {
          noEmit: true,
          noUnusedLocals: false,
          noUnusedParameters: false,
          allowJs: true,
          checkJs: true,
          noImplicitAny: false,
          isolatedDeclarations: false,
          declaration: false,
          customConditions: [],
          preserveSymlinks: true,
        },
        files,
      }),
    );
    const tsc = join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = await run(process.execPath, [tsc, '-p', join(workDir, 'tsconfig.json')], { cwd: repoRoot, timeout: 200_000 }).then(
      () => '',
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );
    // Every error counts, an undeclared name too: the reader copies the block as it is.
    const problems = result
      .replaceAll(workDir, '<readme>')
      .split('\n')
      .filter((line) => line.includes('error TS'));
    expect(problems).toEqual([]);
  });
});
