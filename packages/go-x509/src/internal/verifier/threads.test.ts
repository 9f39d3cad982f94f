import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startVerifierThread, workerExecArgv } from './threads.ts';

const dir = mkdtempSync(join(tmpdir(), 'fabric-ops-verifier-threads-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A thread that reports the options it started with.
const reporter = join(dir, 'report.mjs');
writeFileSync(reporter, "import { parentPort } from 'node:worker_threads';\nparentPort.postMessage(process.execArgv);\n");

async function startedWith(execArgv: readonly string[] | undefined): Promise<string[]> {
  const worker = startVerifierThread(reporter, execArgv);
  const [argv] = (await once(worker, 'message')) as [string[]];
  await worker.terminate();
  return argv;
}

describe('verifier thread options', () => {
  it('inherits everything when there is no --conditions to drop, and drops only that otherwise', () => {
    expect(workerExecArgv(['--max-old-space-size=512', '--expose-gc'])).toBeUndefined();
    expect(workerExecArgv([])).toBeUndefined();
    expect(workerExecArgv(['--conditions=source', '--enable-source-maps', '-C', 'dev', '--no-warnings'])).toEqual(['--enable-source-maps', '--no-warnings']);
  });

  it("starts although the process runs with options Node refuses in a worker's execArgv (an operator's heap size, --expose-gc)", async () => {
    // Before: new Worker(file, { execArgv }) threw ERR_WORKER_INVALID_EXEC_ARGV, and every client certificate was refused.
    const argv = await startedWith(['--max-old-space-size=512', '--enable-source-maps', '--expose-gc', '--max-semi-space-size=1']);
    expect(argv).toContain('--enable-source-maps');
    expect(argv).not.toContain('--conditions=source');
  });

  it('starts with the options that are allowed when a --conditions was dropped', async () => {
    expect(await startedWith(['--enable-source-maps'])).toEqual(['--enable-source-maps']);
  });
});
