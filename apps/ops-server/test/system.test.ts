import { once } from 'node:events';
import { createServer, Agent } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { OperationsSystem } from '../src/index.ts';
import type { Route } from '@fabric-ops/ops-http';
import { send } from '@fabric-ops/test-kit';
import { useSystems } from './systems.ts';

const systems = useSystems();
const system = (listenAddress = '127.0.0.1:0', shutdownTimeoutMs?: number): OperationsSystem =>
  systems.create({ listenAddress, version: { version: '9.9.9', commitSHA: 'abc1234' }, ...(shutdownTimeoutMs === undefined ? {} : { shutdownTimeoutMs }) });

/** A route whose answer waits until `release()` is called, to hold a request in flight. */
function gatedRoute(path: string): { route: Route; release: () => void } {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const route: Route = {
    path,
    secure: false,
    handler: async (_req, res) => {
      await gate;
      res.end('done');
    },
  };
  return { route, release };
}

describe('operations system', () => {
  it('serves /version on the bound address', async () => {
    const s = system();
    expect(s.address()).toBe('');
    await s.start();
    expect(s.address()).toMatch(/^127\.0\.0\.1:\d+$/);
    const reply = await send(s.address(), '/version');
    expect(reply.status).toBe(200);
    expect(reply.body).toBe('{"CommitSHA":"abc1234","Version":"9.9.9"}');
    expect(reply.headers['x-request-id']).toBeTypeOf('string');
  });

  it('fails start with Go wording when the port is taken', async () => {
    const blocker = createServer();
    blocker.listen(0, '127.0.0.1');
    await once(blocker, 'listening');
    const { port } = blocker.address() as AddressInfo;
    try {
      const s = system(`127.0.0.1:${port}`);
      await expect(s.start()).rejects.toThrowError(`listen tcp 127.0.0.1:${port}: bind: address already in use`);
    } finally {
      blocker.close();
    }
  });

  it('rejects a malformed address when created', () => {
    expect(() => system('127.0.0.1')).toThrowError('listen tcp: address 127.0.0.1: missing port in address');
  });

  it('cannot be started twice', async () => {
    const s = system();
    await s.start();
    await expect(s.start()).rejects.toMatchObject({ code: 'ALREADY_STARTED' });
  });

  // The server's socket inactivity timer is not set (re-arming it cost ~1 µs per request): a
  // connection that never sends a request must still be closed, by the request timeout.
  it('closes a connection that never sends a request once the request timeout passes', async () => {
    const s = systems.create({ limits: { requestTimeoutMs: 300 } });
    await s.start();
    const address = s.address();
    const socket = connect(Number(address.slice(address.lastIndexOf(':') + 1)), '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
    const began = Date.now();
    const closed = await Promise.race([once(socket, 'close').then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 5_000))]);
    socket.destroy();
    expect(closed).toBe(true);
    expect(Date.now() - began).toBeGreaterThanOrEqual(250);
    expect(received === '' || received.startsWith('HTTP/1.1 408')).toBe(true);
  });

  it('stops promptly with an idle keep-alive client connected', async () => {
    const s = system();
    await s.start();
    const agent = new Agent({ keepAlive: true });
    await send(s.address(), '/version', { agent });
    const began = Date.now();
    await s.stop();
    expect(Date.now() - began).toBeLessThan(1_000);
    expect(s.isShuttingDown()).toBe(true);
    agent.destroy();
  });

  it("serves a JavaScript-style handler that returns res.end()'s value, request after request (it used to crash the process)", async () => {
    const s = system();
    // What an embedder writes in plain JavaScript: the arrow returns the response object.
    s.addRoute({ path: '/hello', secure: false, handler: (_req, res) => res.end('hi\n') });
    await s.start();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (let i = 0; i < 3; i++) expect((await send(s.address(), '/hello', { agent })).body).toBe('hi\n');
      expect((await send(s.address(), '/version', { agent })).status).toBe(200);
    } finally {
      agent.destroy();
    }
  });

  it('lets an in-flight request finish, then refuses new connections', async () => {
    const s = system();
    const { route, release } = gatedRoute('/slow');
    s.addRoute(route);
    await s.start();
    const address = s.address();
    const inflight = send(address, '/slow');
    await new Promise((r) => setTimeout(r, 50));
    const stopped = s.stop();
    await new Promise((r) => setTimeout(r, 50));
    await expect(send(address, '/version')).rejects.toThrow(/ECONNREFUSED/);
    release();
    const reply = await inflight;
    expect(reply.body).toBe('done');
    expect(reply.headers.connection).toBe('close');
    await stopped;
  });

  it('closes a keep-alive connection as soon as its in-flight answer is out', async () => {
    const s = system();
    const { route, release } = gatedRoute('/slow');
    s.addRoute(route);
    await s.start();
    const agent = new Agent({ keepAlive: true });
    const inflight = send(s.address(), '/slow', { agent });
    await new Promise((r) => setTimeout(r, 50));
    const began = Date.now();
    const stopped = s.stop();
    await new Promise((r) => setTimeout(r, 50));
    release();
    const reply = await inflight;
    expect(reply.headers.connection).toBe('close');
    await stopped;
    // Well under the 5 s shutdown timeout: the socket was not left idling until the force-close.
    expect(Date.now() - began).toBeLessThan(1_000);
    agent.destroy();
  });

  it('cuts off a request that outlives the shutdown timeout', async () => {
    const s = system('127.0.0.1:0', 200);
    s.addRoute({ path: '/hang', secure: false, handler: () => new Promise<void>(() => {}) });
    await s.start();
    const hung = send(s.address(), '/hang');
    await new Promise((r) => setTimeout(r, 50));
    const began = Date.now();
    await s.stop();
    expect(Date.now() - began).toBeLessThan(2_000);
    await expect(hung).rejects.toThrow();
  });
});
