import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { podmanServiceArgs, tieSocketPair } from './podman-shared.mjs';

export interface PodmanService {
  /** The Docker-compatible API socket. */
  readonly socketPath: string;
  /** `unix://<socketPath>`, what Fabric's `vm.endpoint` takes. */
  readonly endpoint: string;
  /** True while the service process runs. */
  running(): boolean;
  /** Starts the service (again) on the same socket and waits until `GET /_ping` answers 200. */
  start(): Promise<void>;
  /** Stops the service and waits for it to exit; its socket disappears. */
  stop(): Promise<void>;
  /** Stops the service and removes every file it made. */
  dispose(): Promise<void>;
}

export interface PodmanServiceOptions {
  /** How long start() waits for /_ping. Default 30 s. */
  readonly readyTimeoutMs?: number;
}

const LOG_LIMIT = 16_384;

/** Fails with a pointer to the installer when podman is missing, instead of a spawn ENOENT. */
export function assertPodmanInstalled(): void {
  const probe = spawnSync('podman', ['--version'], { encoding: 'utf8' });
  if (probe.error !== undefined || probe.status !== 0) {
    throw new Error('podman is not installed: run scripts/test-deps.sh (apt-get install podman) first');
  }
}

function ping(socketPath: string, timeoutMs: number): Promise<number> {
  return new Promise((resolve) => {
    const req = request({ socketPath, path: '/_ping', agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.setTimeout(timeoutMs, () => req.destroy());
    req.on('error', () => resolve(0));
    req.end();
  });
}

/**
 * A podman Docker-compatible API service (`podman system service --time=0`) on a socket in
 * a fresh temp dir, standing in for the Docker daemon. Storage, run state and events live
 * in that dir too (vfs storage, cgroupfs, file events), so it needs no system config,
 * systemd, journald or overlay support, and runs beside other services without sharing state.
 */
export async function startPodmanService(options: PodmanServiceOptions = {}): Promise<PodmanService> {
  assertPodmanInstalled();
  const dir = mkdtempSync(join(tmpdir(), 'fabric-ops-podman-'));
  const socketPath = join(dir, 'docker.sock');
  const readyTimeoutMs = options.readyTimeoutMs ?? 30_000;
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let log = '';

  const killOnExit = () => child?.kill('SIGKILL');
  process.once('exit', killOnExit);

  const start = async (): Promise<void> => {
    if (child !== undefined) return;
    log = '';
    const proc = spawn('podman', podmanServiceArgs(dir, socketPath), {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, XDG_RUNTIME_DIR: process.env['XDG_RUNTIME_DIR'] ?? join(dir, 'xdg') },
    });
    const keep = (chunk: Buffer) => {
      log = (log + chunk.toString('utf8')).slice(-LOG_LIMIT);
    };
    proc.stdout?.on('data', keep);
    proc.stderr?.on('data', keep);
    child = proc;
    exited = new Promise<void>((resolve) => {
      proc.once('exit', () => {
        if (child === proc) child = undefined;
        resolve();
      });
      proc.once('error', (error) => {
        keep(Buffer.from(String(error)));
        if (child === proc) child = undefined;
        resolve();
      });
    });
    const deadline = Date.now() + readyTimeoutMs;
    while (Date.now() < deadline) {
      if (child !== proc) throw new Error(`podman system service exited before answering /_ping:\n${log}`);
      if ((await ping(socketPath, 2_000)) === 200) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    proc.kill('SIGKILL');
    throw new Error(`podman system service did not answer /_ping within ${readyTimeoutMs} ms:\n${log}`);
  };

  const stop = async (): Promise<void> => {
    const proc = child;
    if (proc === undefined) return;
    proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
    // A service killed hard leaves its socket behind; the next start and the tests expect none.
    rmSync(socketPath, { force: true });
  };

  const dispose = async (): Promise<void> => {
    await stop();
    process.off('exit', killOnExit);
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    await start();
  } catch (error) {
    await dispose();
    throw error;
  }
  return { socketPath, endpoint: `unix://${socketPath}`, running: () => child !== undefined, start, stop, dispose };
}

export interface PingCountingProxy {
  /** The proxy's own socket, to use as `unix://<socketPath>`. */
  readonly socketPath: string;
  readonly endpoint: string;
  /** `GET /_ping` requests that went through so far. */
  pings(): number;
  /** From now on, hold the runtime's answers back, on new and open connections alike (requests still go through and are counted). */
  hold(): void;
  /** Lets every held answer through and stops holding. */
  release(): void;
  close(): Promise<void>;
}

const PING_REQUEST = 'GET /_ping ';

/**
 * A unix-socket proxy that forwards every byte to `targetSocketPath` and counts the
 * `GET /_ping` requests it carries, so tests can see how often the runtime was asked.
 */
export async function startPingCountingProxy(targetSocketPath: string): Promise<PingCountingProxy> {
  const dir = mkdtempSync(join(tmpdir(), 'fabric-ops-pingproxy-'));
  const socketPath = join(dir, 'proxy.sock');
  let count = 0;
  let holding = false;
  const held: (() => void)[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(targetSocketPath);
    // Requests may be split across chunks: keep the tail that could start a match.
    let tail = '';
    client.on('data', (chunk: Buffer) => {
      const text = tail + chunk.toString('latin1');
      let at = text.indexOf(PING_REQUEST);
      while (at !== -1) {
        count++;
        at = text.indexOf(PING_REQUEST, at + PING_REQUEST.length);
      }
      tail = text.slice(-(PING_REQUEST.length - 1));
    });
    client.pipe(upstream);
    // Held per chunk, not per connection: a checker that keeps its connection between pings
    // (as the docker checker does) must have its answers held too.
    const forward = (deliver: () => void) => (holding ? held.push(deliver) : deliver());
    upstream.on('data', (chunk: Buffer) => forward(() => client.write(chunk)));
    upstream.on('end', () => forward(() => client.end()));
    // Upstream's end reaches the client possibly after a held answer is released.
    tieSocketPair(sockets, client, upstream);
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return {
    socketPath,
    endpoint: `unix://${socketPath}`,
    pings: () => count,
    hold: () => {
      holding = true;
    },
    release: () => {
      holding = false;
      for (const letGo of held.splice(0)) letGo();
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface SilentSocket {
  /** A socket that accepts connections and never answers. */
  readonly socketPath: string;
  readonly endpoint: string;
  /** Connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

/** A unix socket that accepts and reads but never answers: a hung daemon. */
export async function startSilentSocket(): Promise<SilentSocket> {
  const dir = mkdtempSync(join(tmpdir(), 'fabric-ops-silent-'));
  const socketPath = join(dir, 'hung.sock');
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.resume();
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return {
    socketPath,
    endpoint: `unix://${socketPath}`,
    connections: () => accepted,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
