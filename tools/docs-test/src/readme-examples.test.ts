// The TypeScript and JavaScript blocks in every README (the root one, each package's and app's,
// examples/README.md) compile against the packages as they are, exactly as a reader copies them
// into a file: a README example that drifts from the API, or leans on a name it never declares,
// fails here.
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
  files.push(join(repoRoot, 'examples', 'README.md'), join(repoRoot, 'README.md'));
  return files;
}

export interface CodeBlock {
  readonly language: 'ts' | 'js';
  readonly source: string;
}

/**
 * ```ts and ```js blocks. A block right after `<!-- not-compiled -->` is skipped (shell-like
 * fragments, or a shape shown in prose that is not a program). A block right after
 * `<!-- continues the block above -->` is checked as the reader would paste it: below the last
 * block that is not itself a continuation (several continuations may share one head).
 */
export function codeBlocks(markdown: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  const pattern = /(<!-- (not-compiled|continues the block above) -->\s*)?```(ts|typescript|js|javascript|mjs)\n([\s\S]*?)```/g;
  let head: CodeBlock | undefined;
  for (const match of markdown.matchAll(pattern)) {
    if (match[2] === 'not-compiled') continue;
    const block: CodeBlock = { language: match[3]!.startsWith('t') ? 'ts' : 'js', source: match[4]! };
    if (match[2] === undefined) {
      head = block;
      blocks.push(block);
    } else {
      if (head === undefined || head.language !== block.language) throw new Error(`a continued block with no ${block.language} block above it:\n${block.source}`);
      blocks.push({ language: block.language, source: `${head.source}\n${block.source}` });
    }
  }
  return blocks;
}

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
