// The TypeScript and JavaScript blocks of the READMEs, as a reader copies them: which READMEs, how
// blocks are found, and the markers that leave a block out of compiling or running.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './peer.ts';

/** Every README whose code blocks are checked: each package's and app's, examples/README.md, the root one. */
export function readmes(): string[] {
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
  /** Why the block is not run (`<!-- not-run: why -->` above it); undefined for a block that runs. */
  readonly notRun?: string;
}

/**
 * ```ts and ```js blocks. A block right after `<!-- not-compiled -->` is skipped (shell-like
 * fragments, or a shape shown in prose that is not a program). A block right after
 * `<!-- continues the block above -->` is checked as the reader would paste it: below the last
 * block that is not itself a continuation (several continuations may share one head). Every
 * compiled block is also run, unless `<!-- not-run: why -->` precedes it (before or after the
 * continuation marker): a block that binds a fixed port, needs a service or file that is not
 * here, or waits for a signal says so there.
 */
export function codeBlocks(markdown: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  const pattern = /((?:<!-- (?:not-compiled|continues the block above|not-run: [^>]*?) -->\s*)*)```(ts|typescript|js|javascript|mjs)\n([\s\S]*?)```/g;
  let head: CodeBlock | undefined;
  for (const match of markdown.matchAll(pattern)) {
    const markers = match[1] ?? '';
    if (markers.includes('<!-- not-compiled -->')) continue;
    const notRun = /<!-- not-run: ([^>]*?) -->/.exec(markers)?.[1];
    const language = match[2]!.startsWith('t') ? 'ts' : 'js';
    const source = match[3]!;
    if (!markers.includes('<!-- continues the block above -->')) {
      head = { language, source };
      blocks.push(notRun === undefined ? head : { ...head, notRun });
    } else {
      if (head === undefined || head.language !== language) throw new Error(`a continued block with no ${language} block above it:\n${source}`);
      // A continuation of a block that cannot run cannot run either.
      const why = notRun ?? head.notRun;
      blocks.push({ language, source: `${head.source}\n${source}`, ...(why === undefined ? {} : { notRun: why }) });
    }
  }
  return blocks;
}
