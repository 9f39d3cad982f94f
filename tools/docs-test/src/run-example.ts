// Runs an example under examples/ as a newcomer would (`node examples/<dir>/<file>.mjs`), and
// imports one in process for the tests that need to reach inside it.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { repoRoot } from './peer.ts';

export interface RunningExample {
  /** The first stdout line's match of the `ready` pattern. */
  readonly match: RegExpExecArray;
  /** Sends SIGTERM and resolves with the exit code (null: killed by a signal). */
  stop(): Promise<number | null>;
}

/** The child's environment without vitest's and pnpm's own settings. */
export function plainEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(npm_|pnpm_|VITEST)/i.test(key) && key !== 'NODE_OPTIONS') env[key] = value;
  }
  return { ...env, ...extra };
}

/** `node examples/<file>` from the repository root, resolved once stdout matches `ready`. */
export async function runExample(file: string, ready: RegExp, env: NodeJS.ProcessEnv = {}): Promise<RunningExample> {
  const child: ChildProcessByStdio<null, Readable, Readable> = spawn(process.execPath, [join('examples', file)], {
    cwd: repoRoot,
    env: plainEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${file} printed no ${String(ready)} in 30 s: ${stdout}${stderr}`)), 30_000);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const found = ready.exec(stdout);
      if (found) {
        clearTimeout(timer);
        resolve(found);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${file} exited ${code} before ready: ${stdout}${stderr}`));
    });
  });
  return {
    match,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/**
 * Imports `examples/<file>` (plain JavaScript, type-checked by examples/tsconfig.json rather than
 * here); `T` is what the test relies on.
 */
export async function importExample<T>(file: string): Promise<T> {
  const url: string = pathToFileURL(join(repoRoot, 'examples', file)).href;
  return (await import(url)) as T;
}
