// Servers that misbehave on purpose, and the real opsctl bin run against them as a child process.
import { spawn } from 'node:child_process';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';

export const OPSCTL: string = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

export interface Hostile {
  /** `127.0.0.1:port` */
  readonly address: string;
  /** How long each connection stayed open, in ms, for the connections already closed. */
  readonly connectionMs: number[];
  close(): Promise<void>;
}

/**
 * A raw TCP server: `onRequest` runs once, at the first bytes the client sends, and may write
 * whatever it likes. Timers it starts go through `every`, so close() stops them.
 */
export async function startRawServer(onRequest: (socket: Socket, every: (ms: number, tick: () => void) => void) => void): Promise<Hostile> {
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const connectionMs: number[] = [];
  const server = createServer((socket) => {
    const opened = performance.now();
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      sockets.delete(socket);
      connectionMs.push(performance.now() - opened);
    });
    socket.once('data', () =>
      onRequest(socket, (ms, tick) => {
        const timer = setInterval(() => (socket.destroyed ? clearInterval(timer) : tick()), ms);
        timers.add(timer);
        socket.on('close', () => clearInterval(timer));
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as { port: number }).port}`,
    connectionMs,
    close: () => {
      for (const timer of timers) clearInterval(timer);
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** An HTTP server answering every request with `answer(path)`: status, body, content type. */
export async function startAnswering(answer: (path: string) => { status: number; body: string | Buffer; type?: string }): Promise<Hostile> {
  const server = createHttpServer((req: IncomingMessage, res: ServerResponse) => {
    const { status, body, type } = answer(req.url ?? '/');
    res.writeHead(status, { 'Content-Type': type ?? 'application/json', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as { port: number }).port}`,
    connectionMs: [],
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

export interface OpsctlRun {
  /** null when it had to be killed. */
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly elapsedMs: number;
}

/**
 * Runs the built opsctl bin with `args` (node options first in `nodeArgs`), without the
 * OPSCTL_* environment of whoever runs the tests. Killed after `killAfterMs`: a hang shows up as
 * code null, not as a stuck test.
 */
export function runOpsctlBin(args: readonly string[], options: { nodeArgs?: readonly string[]; killAfterMs?: number } = {}): Promise<OpsctlRun> {
  const started = performance.now();
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), OPSCTL, ...args], {
    env: { ...process.env, OPSCTL_ADDRESS: '', OPSCTL_CERT: '', OPSCTL_KEY: '', OPSCTL_CACERT: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), options.killAfterMs ?? 30_000);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), elapsedMs: performance.now() - started });
    }),
  );
}

/** Closes every server, together. */
export async function closeAll(servers: readonly Pick<Hostile, 'close'>[]): Promise<void> {
  await Promise.all(servers.map((server) => server.close()));
}
