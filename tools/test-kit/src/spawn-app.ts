import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface RunningApp {
  readonly child: ChildProcess;
  /** `host:port` from the app's "listening on" log line. */
  readonly address: string;
  /** Every stdout line so far. */
  readonly stdout: string[];
  /** Every stderr line so far. */
  readonly stderr: string[];
  /** Resolves with the exit code (or null and the signal). */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends SIGKILL if still running. */
  kill(): void;
}

export interface SpawnAppOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly args?: readonly string[];
  /** Node's own options, given before the bin on the command line (`node <nodeArgs> bin <args>`), as an operator would. */
  readonly nodeArgs?: readonly string[];
  /** How long to wait for the listening line. Default 15 s. */
  readonly readyTimeoutMs?: number;
}

const LISTENING = /listening on (\S+)/;

/**
 * Starts an app bin with plain `node`, as containers do, and waits for its
 * "listening on <address>" line. Rejects with everything it printed when it exits first.
 */
export function spawnApp(binPath: string, options: SpawnAppOptions = {}): Promise<RunningApp> {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), binPath, ...(options.args ?? [])], {
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout: string[] = [];
  const stderr: string[] = [];
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  createInterface({ input: child.stderr! }).on('line', (line) => stderr.push(line));
  return new Promise<RunningApp>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no listening line within timeout; stdout: ${stdout.join('\n')}; stderr: ${stderr.join('\n')}`));
    }, options.readyTimeoutMs ?? 15_000);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      stdout.push(line);
      const match = LISTENING.exec(line);
      if (match) {
        clearTimeout(timer);
        resolve({ child, address: match[1]!.replace(/["}].*$/, ''), stdout, stderr, exited, kill: () => child.kill('SIGKILL') });
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(Object.assign(new Error(`app exited (${code ?? signal}) before listening; stderr: ${stderr.join('\n')}`), { code, stderr, stdout }));
    });
  });
}

/** Runs an app bin to completion (for start-up failures); resolves code and output. */
export async function runAppToExit(binPath: string, options: SpawnAppOptions = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), binPath, ...(options.args ?? [])], {
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const timer = setTimeout(() => child.kill('SIGKILL'), options.readyTimeoutMs ?? 15_000);
  const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
  clearTimeout(timer);
  return { code, stdout, stderr };
}

/** The fields of the JSON line (FABRIC_LOGGING_FORMAT=json) that announced the listener; throws when there is none. */
export function listeningFields(stdout: readonly string[]): Record<string, unknown> {
  const line = stdout.find((text) => text.includes('listening on'));
  if (line === undefined) throw new Error(`no "listening on" line; stdout: ${stdout.join('\n')}`);
  return JSON.parse(line) as Record<string, unknown>;
}

/**
 * Sends SIGUSR2 to an app started with a preloaded probe (`--import`) and resolves the rest of
 * the first stderr line after it that starts with `prefix` (polled every 50 ms, 20 s at most).
 */
export async function signalledReport(app: Pick<RunningApp, 'child' | 'stderr'>, prefix: string): Promise<string> {
  const before = app.stderr.length;
  app.child.kill('SIGUSR2');
  for (let attempt = 0; attempt < 400; attempt++) {
    const line = app.stderr.slice(before).find((text) => text.startsWith(prefix));
    if (line !== undefined) return line.slice(prefix.length);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no "${prefix.trim()}" report after SIGUSR2; stderr: ${app.stderr.join('\n')}`);
}
