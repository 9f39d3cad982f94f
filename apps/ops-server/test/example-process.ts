// An example under examples/ as a test subject, started with plain `node` (from the built dist/)
// for a whole test file: free ports in its environment, its output kept (colour codes removed),
// a readiness wait, its output printed when a test fails, and a kill after the file.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { send } from '@fabric-ops/test-kit';
import { pollUntil } from './poll.ts';

export const repoRoot: string = resolve(import.meta.dirname, '../../..');

export interface ExampleProcess {
  readonly process: ChildProcess;
  /** Everything it printed so far, stdout and stderr, without ANSI colour codes. */
  output(): string;
  /** Polls `probe` until it gives a value; a failure names `what` and shows the output. */
  waitFor<T>(probe: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs?: number): Promise<T>;
}

const ANSI = /\u001b\[[0-9;]*m/g;

/**
 * Starts `examples/<path>` before the file's tests with `env()` (read when it starts) and waits
 * until `ready` (an operations path) answers 200.
 */
export function useExample(path: string, env: () => Record<string, string>, ready: { opsAddress: () => string; path: string }): ExampleProcess {
  let child: ChildProcess | undefined;
  let output = '';
  const example: ExampleProcess = {
    get process() {
      if (child === undefined) throw new Error(`examples/${path} has not been started`);
      return child;
    },
    output: () => output,
    waitFor(probe, what, timeoutMs = 20_000) {
      return pollUntil(probe, timeoutMs, () => `${what} not seen within ${timeoutMs} ms; examples/${path} printed:\n${output}`);
    },
  };

  beforeAll(async () => {
    child = spawn(process.execPath, [join(repoRoot, 'examples', path)], {
      cwd: repoRoot,
      env: { ...process.env, FABRIC_LOGGING_SPEC: '', FABRIC_LOGGING_FORMAT: '', ...env() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString().replace(ANSI, '')));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString().replace(ANSI, '')));
    await example.waitFor(async () => ((await send(ready.opsAddress(), ready.path)).status === 200 ? true : undefined), `${ready.path} answering 200`, 60_000);
  }, 90_000);

  afterEach((context) => {
    if (context.task.result?.state === 'fail') process.stderr.write(`examples/${path} output so far:\n${output}\n`);
  });

  afterAll(async () => {
    if (child !== undefined && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
  });

  return example;
}
