import { once } from 'node:events';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { scratchDir, useCleanup } from '@fabric-ops/test-kit';
import { describe, expect, it } from 'vitest';
import { dockerChecker, parseDockerEndpoint } from './docker.ts';
import { readDockerEndpoint } from './internal/endpoint.ts';
import { describePingError } from './internal/ping-error.ts';
import { isHealthError } from './errors.ts';
import type { Checker } from './registry.ts';

const defer = useCleanup();
const tempDir = (): string => scratchDir(defer, 'ops-health-docker-');

async function listen<T extends HttpServer | NetServer>(server: T, where: string | number): Promise<T> {
  defer(() => new Promise<void>((r) => server.close(() => r())));
  await new Promise<void>((r) => (typeof where === 'string' ? server.listen(where, r) : server.listen(where, '127.0.0.1', r)));
  return server;
}

async function failureOf(promise: ReturnType<Checker>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected the check to fail');
}

describe('parseDockerEndpoint', () => {
  // Every form the checker's former URL-based reading took that the shared grammar takes too
  // (endpoint.test.ts pins what each one reads as).
  it.each(['unix:///var/run/docker.sock', 'tcp://127.0.0.1:2375', 'tcp://docker.example.com:2376/', 'http://localhost:2375', 'HTTP://localhost:2375', 'tcp://[::1]:2375', 'tcp://127.0.0.1:02375'])(
    'reads %s as readDockerEndpoint does',
    (text) => {
      const reading = readDockerEndpoint(text);
      expect(reading.ok).toBe(true);
      expect(parseDockerEndpoint(text)).toEqual(reading.ok ? reading.endpoint : undefined);
    },
  );
  it('reads a socket path and a host and port', () => {
    expect(parseDockerEndpoint('unix:///var/run/docker.sock')).toEqual({ kind: 'unix', socketPath: '/var/run/docker.sock' });
    expect(parseDockerEndpoint('http://localhost:2375')).toEqual({ kind: 'tcp', host: 'localhost', port: 2375 });
  });

  it.each([
    ['/var/run/docker.sock', 'no scheme'],
    ['npipe:////./pipe/docker_engine', "unsupported scheme 'npipe'"],
    ['unix://relative.sock', 'the socket path must be absolute'],
    ['tcp://127.0.0.1', 'missing port in address'],
    ['tcp://127.0.0.1:', 'the port is missing'],
    ['tcp://127.0.0.1:0', 'the port is missing'],
    ['tcp://:2375', 'the host is missing'],
    ['tcp://127.0.0.1:2375/v1.41', 'only host and port may be given'],
    ['tcp://user@127.0.0.1:2375', 'only host and port may be given'],
    ['tcp://::1:2375', 'too many colons in address'],
  ])('refuses %s, naming the problem (parser and checker alike)', (endpoint, why) => {
    const expected = `invalid Docker endpoint '${endpoint}': ${why}; expected unix:///path/to/docker.sock or tcp://host:port`;
    for (const attempt of [() => parseDockerEndpoint(endpoint), () => dockerChecker(endpoint)]) {
      let caught: unknown;
      try {
        attempt();
      } catch (error) {
        caught = error;
      }
      expect(isHealthError(caught) && caught.code).toBe('INVALID_ENDPOINT');
      expect((caught as Error).message).toBe(expected);
    }
  });
});

describe('dockerChecker', () => {
  it('passes on 200 from /_ping over a unix socket', async () => {
    const socketPath = join(tempDir(), 'docker.sock');
    const paths: string[] = [];
    await listen(
      createHttpServer((req, res) => {
        paths.push(`${req.method} ${req.url}`);
        res.end('OK');
      }),
      socketPath,
    );
    await dockerChecker(`unix://${socketPath}`)(new AbortController().signal);
    expect(paths).toEqual(['GET /_ping']);
  });

  it('passes on 200 over tcp', async () => {
    const server = await listen(
      createHttpServer((_, res) => res.end('OK')),
      0,
    );
    const port = (server.address() as { port: number }).port;
    await expect(dockerChecker(`tcp://127.0.0.1:${port}`)(new AbortController().signal)).resolves.toBeUndefined();
  });

  it('takes an endpoint already parsed (by ops-config) as well as the text', async () => {
    const server = await listen(
      createHttpServer((_, res) => res.end('OK')),
      0,
    );
    const port = (server.address() as { port: number }).port;
    await expect(dockerChecker({ kind: 'tcp', host: '127.0.0.1', port })(new AbortController().signal)).resolves.toBeUndefined();
    const socketPath = join(tempDir(), 'missing.sock');
    expect(await failureOf(dockerChecker({ kind: 'unix', socketPath })(new AbortController().signal))).toBe(
      `failed to ping to Docker daemon: Get "http://unix.sock/_ping": dial unix ${socketPath}: connect: no such file or directory`,
    );
  });

  it.each([
    [{ kind: 'unix', socketPath: 'docker.sock' }, 'socketPath must be an absolute path'],
    [{ kind: 'tcp', host: '', port: 2375 }, 'host must be a non-empty string'],
    [{ kind: 'tcp', host: 'localhost', port: 0 }, 'port must be a whole number from 1 to 65535'],
    [{ kind: 'tcp', host: 'localhost', port: 2375.5 }, 'port must be a whole number from 1 to 65535'],
    [{ kind: 'npipe', path: 'x' }, "kind must be 'unix' or 'tcp'"],
  ])('refuses a malformed endpoint object %j with one HealthError', (endpoint, why) => {
    let thrown: unknown;
    try {
      dockerChecker(endpoint as never);
    } catch (error) {
      thrown = error;
    }
    expect(isHealthError(thrown) && thrown.code).toBe('INVALID_ENDPOINT');
    expect((thrown as Error).message).toContain(why);
  });

  it('fails with Go-like wording when the socket file does not exist', async () => {
    const socketPath = join(tempDir(), 'missing.sock');
    expect(await failureOf(dockerChecker(`unix://${socketPath}`)(new AbortController().signal))).toBe(
      `failed to ping to Docker daemon: Get "http://unix.sock/_ping": dial unix ${socketPath}: connect: no such file or directory`,
    );
  });

  it('fails with connection refused on a closed tcp port', async () => {
    // A port that was just free: listened on, then closed again.
    const server = createNetServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    await new Promise<void>((r) => server.close(() => r()));
    expect(await failureOf(dockerChecker(`tcp://127.0.0.1:${port}`)(new AbortController().signal))).toBe(
      `failed to ping to Docker daemon: Get "http://127.0.0.1:${port}/_ping": dial tcp 127.0.0.1:${port}: connect: connection refused`,
    );
  });

  it('fails on a non-200 answer, quoting a bounded part of the body', async () => {
    const socketPath = join(tempDir(), 'docker.sock');
    await listen(
      createHttpServer((_, res) => {
        res.writeHead(500);
        res.end('{"message":"engine\nbroken"}' + 'x'.repeat(10_000));
      }),
      socketPath,
    );
    const reason = await failureOf(dockerChecker(`unix://${socketPath}`, { maxResponseBytes: 30 })(new AbortController().signal));
    expect(reason).toBe('failed to ping to Docker daemon: API error (500): {"message":"engine broken"}xxx');
  });

  it('gives up as soon as the signal aborts a request that never gets an answer', async () => {
    const socketPath = join(tempDir(), 'hung.sock');
    const sockets: Socket[] = [];
    let peerClosed!: () => void;
    const closed = new Promise<void>((r) => (peerClosed = r));
    await listen(
      createNetServer((socket) => {
        sockets.push(socket);
        socket.resume();
        socket.on('close', () => peerClosed());
      }),
      socketPath,
    );
    defer(() => sockets.forEach((s) => s.destroy()));
    const controller = new AbortController();
    const running = dockerChecker(`unix://${socketPath}`)(controller.signal);
    setTimeout(() => controller.abort(new Error('health check timed out after 50ms')), 50);
    expect(await failureOf(running)).toBe('failed to ping to Docker daemon: Get "http://unix.sock/_ping": health check timed out after 50ms');
    // The connection is closed, not left open behind the failed check.
    await closed;
    expect(sockets).toHaveLength(1);
  });

  describe('connection reuse', () => {
    /** A /_ping server on a unix socket that counts connections and may misbehave on the nth request of a connection. */
    async function countingRuntime(onRequest?: (nthOnConnection: number, socket: Socket) => boolean) {
      const socketPath = join(tempDir(), 'reuse.sock');
      const connections: Socket[] = [];
      const server = createHttpServer((req, res) => {
        const socket = req.socket as Socket & { served?: number };
        socket.served = (socket.served ?? 0) + 1;
        if (onRequest?.(socket.served, socket) === false) return;
        res.end('OK');
      });
      server.on('connection', (socket: Socket) => connections.push(socket));
      await listen(server, socketPath);
      defer(() => connections.forEach((c) => c.destroy()));
      return { endpoint: `unix://${socketPath}`, connections };
    }

    it('sends successive pings over one kept connection', async () => {
      const runtime = await countingRuntime();
      const check = dockerChecker(runtime.endpoint);
      for (let i = 0; i < 5; i++) await check(new AbortController().signal);
      expect(runtime.connections).toHaveLength(1);
    });

    it('opens a connection per ping with keepAliveMs 0', async () => {
      const runtime = await countingRuntime();
      const check = dockerChecker(runtime.endpoint, { keepAliveMs: 0 });
      for (let i = 0; i < 3; i++) await check(new AbortController().signal);
      expect(runtime.connections).toHaveLength(3);
    });

    it('closes the kept connection once it has been idle for keepAliveMs', async () => {
      const runtime = await countingRuntime();
      await dockerChecker(runtime.endpoint, { keepAliveMs: 50 })(new AbortController().signal);
      const [connection] = runtime.connections;
      const closed = await Promise.race([once(connection!, 'close').then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 2_000))]);
      expect(closed).toBe(true);
    });

    it('sends a ping again on a new connection when the kept one was closed under it', async () => {
      // The runtime drops the connection on its second request without answering, as one that
      // timed the idle connection out at the moment of reuse would.
      const runtime = await countingRuntime((nth, socket) => {
        if (nth < 2) return true;
        socket.destroy();
        return false;
      });
      const check = dockerChecker(runtime.endpoint);
      await check(new AbortController().signal);
      await expect(check(new AbortController().signal)).resolves.toBeUndefined();
      expect(runtime.connections).toHaveLength(2);
    });

    it('does not send again when a new connection is closed before the answer', async () => {
      const runtime = await countingRuntime((_, socket) => {
        socket.destroy();
        return false;
      });
      const failure = await failureOf(dockerChecker(runtime.endpoint)(new AbortController().signal));
      expect(failure).toBe('failed to ping to Docker daemon: Get "http://unix.sock/_ping": connection closed before a response arrived');
      expect(runtime.connections).toHaveLength(1);
    });

    it('refuses a keepAliveMs that is not a whole number of milliseconds', () => {
      expect(() => dockerChecker('unix:///run/docker.sock', { keepAliveMs: -1 })).toThrow(/keepAliveMs: expected a whole number of milliseconds, got -1/);
    });
  });

  it('fails at once with an already aborted signal', async () => {
    const controller = new AbortController();
    controller.abort();
    expect(await failureOf(dockerChecker('unix:///nonexistent/docker.sock')(controller.signal))).toMatch(/^failed to ping to Docker daemon: Get "http:\/\/unix.sock\/_ping": /);
  });
});

describe('describePingError', () => {
  it('names a lookup failure and a connection closed early', () => {
    const lookup = Object.assign(new Error('getaddrinfo ENOTFOUND nohost'), { syscall: 'getaddrinfo', code: 'ENOTFOUND', hostname: 'nohost' });
    expect(describePingError({ kind: 'tcp', host: 'nohost', port: 2375 }, lookup)).toBe('Get "http://nohost:2375/_ping": dial tcp: lookup nohost: no such host');
    const hangUp = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    expect(describePingError({ kind: 'unix', socketPath: '/s' }, hangUp)).toBe('Get "http://unix.sock/_ping": connection closed before a response arrived');
  });
});
