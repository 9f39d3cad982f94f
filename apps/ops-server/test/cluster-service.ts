// examples/cluster-service as a test subject, started with `node` (from the built dist/) for a
// whole test file: the shared start, readiness wait, failure output and teardown of the cluster tests.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { freeTcpPort, send } from '@fabric-ops/test-kit';
import { pollUntil } from './poll.ts';

const repoRoot = resolve(import.meta.dirname, '../../..');
const EXAMPLE = join(repoRoot, 'examples', 'cluster-service', 'index.mjs');

export const WORKERS = 2;

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** One request to port `port` on loopback (test-kit's send; never rejects on a status). */
export function call(port: number, path: string, options: { method?: string; body?: string; timeoutMs?: number } = {}): Promise<{ status: number; body: string }> {
  return send(`127.0.0.1:${port}`, path, options);
}

export interface ClusterService {
  /** The operations endpoint's port and the workers' application port. */
  readonly opsPort: number;
  readonly appPort: number;
  readonly process: ChildProcess;
  /** Everything the service printed so far. */
  output(): string;
  /** Polls `probe` until it gives a value; a failure names `what` and shows the service's output. */
  waitFor<T>(probe: () => Promise<T | undefined> | T | undefined, timeoutMs: number, what: string | (() => string)): Promise<T>;
}

/** Node options that load `test/fixtures/hostile-worker.mjs` into every process of the service (it acts in workers only). */
export function hostileWorkerOptions(): string {
  return `${process.env['NODE_OPTIONS'] ?? ''} --import ${join(import.meta.dirname, 'fixtures', 'hostile-worker.mjs')}`.trim();
}

/** The pids of the service's live workers (the primary's children). */
export function workerPids(primary: number): number[] {
  let children = '';
  try {
    children = readFileSync(`/proc/${primary}/task/${primary}/children`, 'utf8');
  } catch {
    return [];
  }
  return children.split(' ').filter(Boolean).map(Number);
}

/**
 * Starts the service before the file's tests with `WORKERS` workers plus `env()` (read when it
 * starts), waits until every worker is ready, prints its output when a test fails, and kills it
 * after the file unless a test stopped it.
 */
export function useClusterService(env: () => Record<string, string> = () => ({}), options: { readonly waitUntil?: 'ready' | 'listening' } = {}): ClusterService {
  let child: ChildProcess | undefined;
  let output = '';
  const ports = { ops: 0, app: 0 };

  const service: ClusterService = {
    get opsPort() {
      return ports.ops;
    },
    get appPort() {
      return ports.app;
    },
    get process() {
      if (child === undefined) throw new Error('the cluster service has not been started');
      return child;
    },
    output: () => output,
    waitFor(probe, timeoutMs, what) {
      return pollUntil(probe, timeoutMs, () => `${typeof what === 'string' ? what : what()} not seen within ${timeoutMs} ms; output:\n${output}`);
    },
  };

  beforeAll(async () => {
    ports.ops = await freeTcpPort();
    ports.app = await freeTcpPort();
    child = spawn(process.execPath, [EXAMPLE], {
      cwd: repoRoot,
      env: { ...process.env, OPS_ADDRESS: `127.0.0.1:${ports.ops}`, APP_PORT: String(ports.app), WORKERS: String(WORKERS), ...env() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    // `listening`: for a service some of whose workers are meant never to join.
    if (options.waitUntil === 'listening') await service.waitFor(async () => ((await call(ports.ops, '/version')).status === 200 ? true : undefined), 30_000, 'the operations endpoint');
    else await service.waitFor(async () => ((await call(ports.ops, '/readyz')).status === 200 ? true : undefined), 30_000, 'every worker ready');
  }, 60_000);

  // The service's own output explains a failure (a crashed primary, a worker that never joined).
  afterEach((context) => {
    if (context.task.result?.state === 'fail') process.stderr.write(`examples/cluster-service output so far:\n${output}\n`);
  });

  afterAll(async () => {
    if (child !== undefined && child.exitCode === null) {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
  });

  return service;
}
