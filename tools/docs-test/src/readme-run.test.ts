// The README blocks that can run, run: each as the module a reader would paste into a file and
// start with node, against the built packages. A block passes when it evaluates to the end (its
// top-level awaits included) and nothing throws, rejects or emits an unhandled error in the half
// second after (a port in use, a handler that crashes on its first request). A function the block
// only declares (`declare function loadCatalogue(): Promise<void>`, the reader's own code) is a
// no-op. Blocks that cannot run here carry `<!-- not-run: why -->` in the README.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from './peer.ts';
import { codeBlocks, readmes, type CodeBlock } from './readme-blocks.ts';

const packageDir = join(repoRoot, 'tools', 'docs-test');
mkdirSync(join(packageDir, '.tmp'), { recursive: true });
const workDir = mkdtempSync(join(packageDir, '.tmp', 'readme-run-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

/** Sent by the wrapper once the block has evaluated and the settling time has passed. */
const PASSED = 'README-BLOCK-PASSED';
const RUN_TIMEOUT_MS = 60_000;

const WRAPPER = `import net from 'node:net';
// The reader's port (9443, 3000) may be taken here (a \`pnpm peer\` left running from the quick
// start): every listen on a fixed port takes a free one instead.
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === 'number' || (typeof args[0] === 'string' && /^\\d+$/.test(args[0]))) args[0] = 0;
  else if (args[0] !== null && typeof args[0] === 'object' && typeof args[0].port !== 'undefined') args[0] = { ...args[0], port: 0 };
  return listen.apply(this, args);
};
const fail = (kind, error) => {
  process.stderr.write(\`\${kind}: \${error instanceof Error ? error.stack : String(error)}\\n\`);
  process.exit(1);
};
process.on('uncaughtException', (error) => fail('uncaught exception', error));
process.on('unhandledRejection', (error) => fail('unhandled rejection', error));
await import('./example.mjs');
setTimeout(() => {
  process.stdout.write('\\n${PASSED}\\n');
  process.exit(0);
}, 500);
`;

interface RunResult {
  readonly passed: boolean;
  readonly output: string;
}

/**
 * A block stands for the application's own work with `declare function name(…)`: the reader's
 * program defines it. Run here, each such name is a function that does nothing (and resolves, for
 * a caller that waits on it).
 */
function applicationStubs(source: string): string {
  let stubs = '';
  for (const [, name] of source.matchAll(/^declare function (\w+)/gm)) stubs += `const ${name} = async () => {};\n`;
  return stubs;
}

/** Runs one block in its own node process, from a directory under this package (so imports resolve as the type-check's do). */
function runBlock(block: CodeBlock, dir: string): Promise<RunResult> {
  mkdirSync(dir, { recursive: true });
  // examples/README.md imports from './embedding/…' relative to examples/.
  const source = block.source.replaceAll("from './", `from '${relative(dir, join(repoRoot, 'examples')).replaceAll('\\', '/')}/`);
  const js =
    block.language === 'ts' ? ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false } }).outputText : source;
  writeFileSync(join(dir, 'example.mjs'), `${applicationStubs(source)}${js}\nexport {};\n`);
  writeFileSync(join(dir, 'run.mjs'), WRAPPER);
  return new Promise((resolve) => {
    execFile(process.execPath, [join(dir, 'run.mjs')], { cwd: dir, timeout: RUN_TIMEOUT_MS, killSignal: 'SIGKILL', maxBuffer: 4 * 1024 * 1024 }, (error, stdout, stderr) => {
      const output = `${stdout}${stderr}`;
      resolve({ passed: error === null && stdout.includes(PASSED), output: error?.killed === true ? `still running after ${RUN_TIMEOUT_MS} ms (waits for something?)\n${output}` : output });
    });
  });
}

async function inTurn<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

describe('README examples that can run', () => {
  it('run without throwing', async () => {
    const runnable: { label: string; block: CodeBlock; dir: string }[] = [];
    const notRun: string[] = [];
    for (const readme of readmes()) {
      const name = relative(repoRoot, readme);
      codeBlocks(readFileSync(readme, 'utf8')).forEach((block, i) => {
        const label = `${name} block ${i + 1}`;
        if (block.notRun !== undefined) notRun.push(`${label}: ${block.notRun}`);
        else runnable.push({ label, block, dir: join(workDir, `${name.replace(/[/.]/g, '_')}_${i}`) });
      });
    }
    // Most blocks run; the ones that cannot say why.
    expect(runnable.length).toBeGreaterThan(notRun.length);
    for (const reason of notRun) expect(reason).toMatch(/: \S.{8,}/);
    const failures: string[] = [];
    // One at a time: several blocks listen on the same loopback port (9443, 3000), as a reader's would.
    await inTurn(runnable, 1, async ({ label, block, dir }) => {
      const result = await runBlock(block, dir);
      if (!result.passed) failures.push(`${label}:\n${result.output.trim()}`);
    });
    expect(failures).toEqual([]);
  }, 900_000);

  it('fails on a block that throws, and skips a block marked not-run', async () => {
    const markdown = [
      '```ts',
      "const list: number[] = JSON.parse('[1, 2]');",
      "if (list.length !== 3) throw new Error('the README is wrong');",
      '```',
      '',
      '<!-- not-run: binds port 9443 on every interface -->',
      '```ts',
      "throw new Error('never run');",
      '```',
      '',
      '```js',
      "setTimeout(() => Promise.reject(new Error('later')), 10);",
      '```',
    ].join('\n');
    const blocks = codeBlocks(markdown);
    expect(blocks.map((b) => b.notRun)).toEqual([undefined, 'binds port 9443 on every interface', undefined]);
    const throwing = await runBlock(blocks[0]!, join(workDir, 'self-test-throws'));
    expect(throwing.passed).toBe(false);
    expect(throwing.output).toContain('Error: the README is wrong');
    const rejectingLater = await runBlock(blocks[2]!, join(workDir, 'self-test-rejects'));
    expect(rejectingLater.passed).toBe(false);
    expect(rejectingLater.output).toContain('unhandled rejection: Error: later');
    const fine = await runBlock({ language: 'ts', source: "const n: number = 1;\nconsole.log('ok', n);\n" }, join(workDir, 'self-test-fine'));
    // A block that listens on the reader's port runs although something here holds that port.
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const taken = (holder.address() as AddressInfo).port;
    try {
      const listening = { language: 'js' as const, source: `import { createServer } from 'node:http';\nconst s = createServer().listen(${taken}, '127.0.0.1');\nsetTimeout(() => s.close(), 100);\n` };
      expect((await runBlock(listening, join(workDir, 'self-test-port'))).passed).toBe(true);
    } finally {
      holder.close();
    }
    expect(fine).toEqual({ passed: true, output: expect.stringContaining('ok 1') as string });
  }, 120_000);
});
