// createServerDrain with a real host server: idle keep-alive sockets, a slow answer, one that never
// ends, and the operations system running the drain as a shutdown hook.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { createTestPki } from '@fabric-ops/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { createOperationsSystem, createServerDrain, isOpsServerError } from '../src/index.ts';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A host server whose handler the test decides per request; `received` fires as each request arrives. */
async function hostServer(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const arrivals: (() => void)[] = [];
  const server: Server = createServer((req, res) => {
    handler(req, res);
    arrivals.shift()?.();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => {
    server.closeAllConnections();
    server.close();
  });
  const port = (server.address() as AddressInfo).port;
  return { server, port, nextArrival: () => new Promise<void>((resolve) => arrivals.push(resolve)) };
}

/** A raw keep-alive client connection: what it received, and whether the server closed it. */
async function rawClient(port: number) {
  const socket: Socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  cleanups.push(() => socket.destroy());
  let received = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return {
    send: (path: string) => socket.write(`GET ${path} HTTP/1.1\r\nHost: test\r\n\r\n`),
    received: () => received,
    closed,
    waitFor: async (text: string) => {
      while (!received.includes(text)) await new Promise((resolve) => setTimeout(resolve, 5));
    },
  };
}

/** The TCP listeners and sockets this process holds. */
function tcpHandles(): number {
  return process.getActiveResourcesInfo().filter((kind) => kind === 'TCPServerWrap' || kind === 'TCPSocketWrap').length;
}

/** The TCP handles once closes under way have completed (libuv releases a handle a loop turn after `close`). */
async function settledTcpHandles(expected: number): Promise<number> {
  for (let turn = 0; turn < 50 && tcpHandles() !== expected; turn++) await new Promise((resolve) => setImmediate(resolve));
  return tcpHandles();
}

describe('createServerDrain', () => {
  it('closes an idle keep-alive connection at once and resolves, with the grace period unused', async () => {
    const before = tcpHandles();
    const { server, port } = await hostServer((_req, res) => res.end('hello'));
    const drain = createServerDrain(server, { graceMs: 600_000 });
    const client = await rawClient(port);
    client.send('/');
    await client.waitFor('hello');
    expect(client.received()).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*Connection: keep-alive\r\n/);
    // With a 10-minute grace period, resolving at all shows the idle socket was not waited for.
    const outcome = await drain.drain();
    await client.closed;
    expect(outcome).toEqual({ inFlightAtStart: 0, destroyedConnections: 0 });
    expect(server.listening).toBe(false);
    // No listener and no socket left: the process would exit.
    expect(await settledTcpHandles(before)).toBe(before);
  });

  it('lets an in-flight slow request finish, answered with Connection: close, then resolves', async () => {
    let finish: (() => void) | undefined;
    const { server, port, nextArrival } = await hostServer((_req, res) => {
      finish = () => res.end('slow answer');
    });
    const drain = createServerDrain(server, { graceMs: 600_000 });
    const client = await rawClient(port);
    const arrived = nextArrival();
    client.send('/slow');
    await arrived;
    expect(drain.inFlight).toBe(1);
    const draining = drain.drain();
    // A new connection is refused while the answer is still being written.
    await expect(
      new Promise((resolve, reject) => {
        const late = connect(port, '127.0.0.1');
        late.once('connect', () => resolve(late.destroy()));
        late.once('error', reject);
      }),
    ).rejects.toThrow(/ECONNREFUSED/);
    finish!();
    const outcome = await draining;
    await client.closed;
    expect(client.received()).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*Connection: close\r\n[\s\S]*\r\n\r\nslow answer$/);
    expect(outcome).toEqual({ inFlightAtStart: 1, destroyedConnections: 0 });
  });

  it('destroys a request that never ends at the grace period', async () => {
    const before = tcpHandles();
    const { server, port, nextArrival } = await hostServer(() => {
      // Never answered.
    });
    const drain = createServerDrain(server, { graceMs: 200 });
    const client = await rawClient(port);
    const arrived = nextArrival();
    client.send('/forever');
    await arrived;
    const outcome = await drain.drain();
    await client.closed;
    expect(client.received()).toBe('');
    expect(outcome).toEqual({ inFlightAtStart: 1, destroyedConnections: 1 });
    expect(server.listening).toBe(false);
    expect(await settledTcpHandles(before)).toBe(before);
  });

  it('refuses what is not a node:http server and a bad grace period, naming them', () => {
    const failure = (action: () => unknown): string => {
      try {
        action();
      } catch (error) {
        return isOpsServerError(error) ? error.message : String(error);
      }
      return 'no error';
    };
    expect(failure(() => createServerDrain({} as Server))).toMatch(/^createServerDrain: expected a node:http or node:https Server/);
    expect(failure(() => createServerDrain(createServer(), { graceMs: -1 }))).toMatch(/^invalid operations option graceMs: expected milliseconds from 0 to/);
  });
});

describe('createServerDrain with an https.Server', () => {
  it('closes an idle keep-alive TLS connection and lets an in-flight answer finish with Connection: close', async () => {
    const pki = await createTestPki();
    let finish: (() => void) | undefined;
    let arrived: (() => void) | undefined;
    const server = createHttpsServer({ cert: pki.server.cert, key: pki.server.key }, (req, res) => {
      if (req.url === '/slow') finish = () => res.end('slow over tls');
      else res.end('quick');
      arrived?.();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => {
      server.closeAllConnections();
      server.close();
    });
    const port = (server.address() as AddressInfo).port;
    const drain = createServerDrain(server, { graceMs: 600_000 });
    const tlsClient = async () => {
      const socket = connectTls({ host: '127.0.0.1', port, ca: pki.ca.cert, servername: 'localhost' });
      await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
      cleanups.push(() => socket.destroy());
      let received = '';
      socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
      socket.on('error', () => {});
      return { socket, received: () => received, closed: new Promise<void>((resolve) => socket.once('close', () => resolve())) };
    };
    const idle = await tlsClient();
    idle.socket.write('GET /quick HTTP/1.1\r\nHost: test\r\n\r\n');
    while (!idle.received().includes('quick')) await new Promise((resolve) => setTimeout(resolve, 5));
    const busy = await tlsClient();
    const busyArrived = new Promise<void>((resolve) => (arrived = resolve));
    busy.socket.write('GET /slow HTTP/1.1\r\nHost: test\r\n\r\n');
    await busyArrived;
    const draining = drain.drain();
    await idle.closed;
    finish!();
    expect(await draining).toEqual({ inFlightAtStart: 1, destroyedConnections: 0 });
    await busy.closed;
    expect(busy.received()).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*Connection: close\r\n[\s\S]*\r\n\r\nslow over tls$/);
  }, 60_000);
});

describe('createServerDrain as an operations system shutdown hook', () => {
  it('stop() turns readiness false, drains the host server (in-flight answer with Connection: close), then resolves', async () => {
    let finish: (() => void) | undefined;
    const { server, port, nextArrival } = await hostServer((_req, res) => {
      finish = () => res.end('done');
    });
    const ops = createOperationsSystem({ listenAddress: '127.0.0.1:0', version: { version: '1', commitSHA: 'x' }, logger: { info() {}, warn() {}, error() {} } });
    const drain = createServerDrain(server, { graceMs: 60_000 });
    ops.addShutdownHook('app-server', drain.hook);
    await ops.start();
    const client = await rawClient(port);
    const arrived = nextArrival();
    client.send('/work');
    await arrived;
    const stopped = ops.stop();
    expect(ops.isShuttingDown()).toBe(true);
    const opsPort = Number(ops.address()!.slice(ops.address()!.lastIndexOf(':') + 1));
    const readyz = await fetch(`http://127.0.0.1:${opsPort}/readyz`);
    expect(readyz.status).toBe(503);
    finish!();
    await stopped;
    await client.closed;
    expect(client.received()).toMatch(/Connection: close\r\n[\s\S]*\r\n\r\ndone$/);
    expect(server.listening).toBe(false);
  });
});
