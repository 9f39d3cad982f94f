import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { createOperationsSystem, type OperationsSystem } from '@fabric-ops/ops-server';
import { configDir, createTestPki, send, spawnApp, type RunningApp, type SendOptions, type TestPki } from '@fabric-ops/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Slowloris against the read-header deadline, beside keep-alive clients: every half-sent request
// must be cut within the deadline however the client treats the server's close. The clients here
// keep their side open after the server's FIN (allowHalfOpen), as a raw-socket attacker does;
// Node's own clients close on the FIN, which hid a server that only half-closed.

const bin = fileURLToPath(new URL('../dist/bin.cjs', import.meta.url));
const SLOW_REQUEST = 'GET /version HTTP/1.1\r\nHost: x\r\nX-Slow: ' + 'a'.repeat(4_000);

interface Target {
  readonly host: string;
  readonly port: number;
  readonly tls?: { readonly ca: string };
}

interface SlowOutcome {
  readonly closedAfterMs: number;
  readonly text: string;
}

/**
 * A client trickling one header byte every `dripMs` and never closing its side; resolves when the
 * server closes, or with `closedAfterMs: Infinity` when it is still open after `giveUpMs`.
 */
async function slowClient(target: Target, dripMs: number, giveUpMs: number): Promise<SlowOutcome> {
  const socket: Socket =
    target.tls === undefined
      ? connectTcp({ host: target.host, port: target.port, allowHalfOpen: true })
      : // allowHalfOpen reaches the TLS socket's own net.Socket (tls.connect passes it on), though its types omit it.
        connectTls({ host: target.host, port: target.port, ca: target.tls.ca, servername: 'localhost', ...{ allowHalfOpen: true } });
  socket.on('error', () => {});
  await once(socket, target.tls === undefined ? 'connect' : 'secureConnect');
  const began = Date.now();
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
  let at = 0;
  const drip = setInterval(() => {
    if (socket.writable && at < SLOW_REQUEST.length) socket.write(SLOW_REQUEST[at++]!);
  }, dripMs);
  // Not events.once: its promise rejects on the EPIPE a write after the server's close may raise.
  const closed = await new Promise<boolean>((resolve) => {
    const giveUp = setTimeout(() => resolve(false), giveUpMs);
    socket.once('close', () => {
      clearTimeout(giveUp);
      resolve(true);
    });
  });
  clearInterval(drip);
  socket.destroy();
  return { closedAfterMs: closed ? Date.now() - began : Infinity, text };
}

/** Eight idle keep-alive sockets, left by sixteen ordinary requests through one agent. */
async function idleKeepAlive(address: string, tls: SendOptions['tls']): Promise<HttpAgent> {
  const agent = tls === undefined ? new HttpAgent({ keepAlive: true, maxSockets: 8 }) : new HttpsAgent({ keepAlive: true, maxSockets: 8, ...tls });
  for (let round = 0; round < 2; round++) {
    const replies = await Promise.all(Array.from({ length: 8 }, () => send(address, '/version', { agent, ...(tls === undefined ? {} : { tls }) })));
    expect(replies.map((r) => r.status)).toEqual(Array(8).fill(200));
  }
  expect(Object.values(agent.freeSockets).flat()).toHaveLength(8);
  return agent;
}

/** Keep-alive requests one after another on four sockets until `until` settles; resolves the statuses. */
async function activeTraffic(address: string, tls: SendOptions['tls'], until: Promise<unknown>): Promise<number[]> {
  const agent = tls === undefined ? new HttpAgent({ keepAlive: true, maxSockets: 4 }) : new HttpsAgent({ keepAlive: true, maxSockets: 4, ...tls });
  let done = false;
  void until.finally(() => (done = true));
  const statuses: number[] = [];
  const lane = async (): Promise<void> => {
    while (!done)
      statuses.push(
        await send(address, '/version', { agent, ...(tls === undefined ? {} : { tls }) }).then(
          (r) => r.status,
          () => 0,
        ),
      );
  };
  await Promise.all([lane(), lane(), lane(), lane()]);
  agent.destroy();
  return statuses;
}

/**
 * One slow client beside idle keep-alive sockets, `crowd` more at once beside active keep-alive
 * traffic; every one cut within the deadline (the check interval and the half-close's linger on
 * top), the traffic served throughout and a new client served afterwards.
 */
async function expectAllCut(target: Target, deadlineMs: number, crowd: number, dripMs: number): Promise<void> {
  const address = `${target.host}:${target.port}`;
  const tls = target.tls === undefined ? undefined : { ca: target.tls.ca, servername: 'localhost' };
  const idle = await idleKeepAlive(address, tls);
  const latestCutMs = deadlineMs + Math.min(1_000, deadlineMs) + 1_500;
  const slow = Promise.all(Array.from({ length: 1 + crowd }, () => slowClient(target, dripMs, latestCutMs + 1_000)));
  const traffic = activeTraffic(address, tls, slow);
  const outcomes = await slow;
  const statuses = await traffic;
  idle.destroy();
  for (const { closedAfterMs, text } of outcomes) {
    expect(closedAfterMs).toBeGreaterThan(deadlineMs * 0.9);
    expect(closedAfterMs).toBeLessThan(latestCutMs);
    expect(text).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
  }
  expect(statuses.length).toBeGreaterThan(20);
  expect(statuses.filter((s) => s !== 200)).toEqual([]);
  expect((await send(address, '/version', tls === undefined ? {} : { tls })).status).toBe(200);
}

describe('the peer bin cuts trickled headers at its 10 s read deadline beside keep-alive clients', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await spawnApp(bin, { env: { FABRIC_CFG_PATH: configDir('core.yaml', 'vm:\n  endpoint: ""\noperations:\n  listenAddress: 127.0.0.1:0\n') } });
  });
  afterAll(() => app?.kill());

  const openFds = (): number => readdirSync(`/proc/${app.child.pid}/fd`).length;
  const rssKiB = (): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${app.child.pid}/status`, 'utf8'))?.[1]);

  it('over HTTP, and lets go of every connection it cut', async () => {
    const port = Number(app.address.slice(app.address.lastIndexOf(':') + 1));
    await send(app.address, '/version');
    const fdsBefore = openFds();
    const rssBefore = rssKiB();
    await expectAllCut({ host: '127.0.0.1', port }, 10_000, 40, 500);
    // Every cut socket is closed on the server's side too (a half-closed one would still hold its
    // descriptor and parser), and the process did not grow with the clients it held for 10 s.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(openFds()).toBeLessThanOrEqual(fdsBefore + 1);
    // RSS only as a net: V8 may grow its young generation by 16 MiB under this load (Node 26).
    expect(rssKiB() - rssBefore).toBeLessThan(32 * 1024);
  }, 30_000);
});

describe('the operations system cuts trickled headers at a short read deadline', () => {
  let pki: TestPki;
  const systems: OperationsSystem[] = [];
  beforeAll(async () => {
    pki = await createTestPki();
  });
  afterAll(async () => {
    await Promise.all(systems.map((s) => s.stop()));
    await pki?.cleanup();
  });

  async function start(tls: boolean): Promise<Target> {
    const system = createOperationsSystem({
      listenAddress: '127.0.0.1:0',
      version: { version: '1.0.0', commitSHA: 'abc1234' },
      logger: { info() {}, warn() {}, error() {} },
      // Idle keep-alive sockets outlive the whole test: they are beside every slow client.
      limits: { requestTimeoutMs: 1_000, keepAliveTimeoutMs: 60_000 },
      ...(tls ? { tls: { enabled: true, clientAuthRequired: false, ...pki.serverTls } } : {}),
    });
    systems.push(system);
    await system.start();
    const address = system.address();
    return { host: '127.0.0.1', port: Number(address.slice(address.lastIndexOf(':') + 1)), ...(tls ? { tls: { ca: pki.ca.cert } } : {}) };
  }

  // The two run at once: each waits on its deadline, not on the machine.
  it.concurrent(
    'over HTTP',
    async () => {
      await expectAllCut(await start(false), 1_000, 40, 50);
    },
    15_000,
  );

  it.concurrent(
    'over HTTPS',
    async () => {
      await expectAllCut(await start(true), 1_000, 40, 50);
    },
    15_000,
  );
});
