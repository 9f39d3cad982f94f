// Long certificate lists are read in a lane of their own (peer-chain.ts): reading one costs the
// main thread per certificate, so clients that send many can only delay each other, and an
// ordinary client is served at once while they wait. The lane's own rules with a fake clock,
// then a real server and real clients in the same run.
import type { Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { createTestPki, type PemPair, type TestPki } from '@fabric-ops/test-kit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadTlsCredentials } from './credentials.ts';
import { createLongListLane, createRefusalHold, LONG_LIST_BUSY_REASON, LONG_LIST_HANDSHAKE_BYTES } from './peer-chain.ts';
import { getBody, useTestServers } from '../../test/servers.ts';

describe('the long-list lane', () => {
  const open = (): Socket => ({ destroyed: false }) as Socket;

  it('reads at once when idle, then keeps its reads to its share of the time, and refuses past its queue', () => {
    vi.useFakeTimers();
    try {
      let now = 0;
      const lane = createLongListLane(0.25, 2, () => now);
      const events: string[] = [];
      // each read costs 10 ms of the fake clock: at a quarter share the next may start 30 ms later
      const read = (name: string) => () => {
        events.push(`${name}@${now}`);
        now += 10;
      };
      const busy = (name: string) => () => events.push(`${name} busy`);
      lane.schedule(open(), read('a'), busy('a'));
      lane.schedule(open(), read('b'), busy('b'));
      const closed = open();
      lane.schedule(closed, read('c'), busy('c'));
      lane.schedule(open(), read('d'), busy('d'));
      expect(events).toEqual(['a@0', 'd busy']);
      (closed as { destroyed: boolean }).destroyed = true;
      // a closed connection's place is given to the next one
      lane.schedule(open(), read('e'), busy('e'));
      now = 39;
      vi.advanceTimersByTime(29);
      expect(events).toEqual(['a@0', 'd busy']);
      now = 40;
      vi.advanceTimersByTime(1);
      expect(events).toEqual(['a@0', 'd busy', 'b@40']);
      now = 80;
      vi.advanceTimersByTime(40);
      expect(events).toEqual(['a@0', 'd busy', 'b@40', 'e@80']);
      // idle again once its pause has passed
      now = 200;
      lane.schedule(open(), read('f'), busy('f'));
      expect(events.at(-1)).toBe('f@200');
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('the refusal hold', () => {
  /** A stand-in socket: records pause and destroy, and emits 'close' on destroy as a socket does. */
  function fakeSocket(events: string[], name: string): Socket {
    const listeners: (() => void)[] = [];
    const socket = {
      destroyed: false,
      pause: () => void events.push(`${name} paused`),
      once: (_event: string, listener: () => void) => void listeners.push(listener),
      destroy() {
        if (socket.destroyed) return;
        socket.destroyed = true;
        events.push(`${name} closed`);
        for (const listener of listeners) listener();
      },
    };
    return socket as unknown as Socket;
  }

  it('keeps a refused connection open and paused for its hold, closes past its limit at once, and ends all on a stop', () => {
    vi.useFakeTimers();
    try {
      const events: string[] = [];
      const hold = createRefusalHold(250, 2);
      hold.hold(fakeSocket(events, 'a'));
      vi.advanceTimersByTime(100);
      hold.hold(fakeSocket(events, 'b'));
      hold.hold(fakeSocket(events, 'c'));
      expect(events).toEqual(['a paused', 'b paused', 'c closed']);
      vi.advanceTimersByTime(149);
      expect(events).not.toContain('a closed');
      vi.advanceTimersByTime(1);
      expect(events).toEqual(['a paused', 'b paused', 'c closed', 'a closed']);
      // a's place is free again; a stop ends every held connection at once
      hold.hold(fakeSocket(events, 'd'));
      expect(hold.endAll()).toBe(2);
      expect(events.slice(-3)).toEqual(['d paused', 'b closed', 'd closed']);
      // no hold: closed at once
      createRefusalHold(0).hold(fakeSocket(events, 'e'));
      expect(events.at(-1)).toBe('e closed');
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('a server with clients that send long lists', () => {
  let pki: TestPki;
  let rogues: PemPair[];
  let padding: string;
  beforeAll(async () => {
    pki = await createTestPki();
    rogues = await Promise.all(Array.from({ length: 4 }, (_, i) => pki.rogueCa.issue(`long-list-rogue-${i}`, { subject: { O: 'Org1', CN: `rogue-${i}` }, extendedKeyUsage: ['clientAuth'] })));
    // unrelated CA certificates after the chain, past the lane's threshold
    padding = pki.rogueCa.cert.repeat(Math.ceil((LONG_LIST_HANDSHAKE_BYTES * 1.5) / pki.rogueCa.cert.length));
  }, 60_000);
  afterAll(() => pki?.cleanup());
  const startServer = useTestServers();

  const get = (port: number, cert: string, key: string): Promise<string> => getBody(port, { ca: pki.ca.cert, cert, key });

  /** A handshake that is closed by the server (refused) or by its deadline; resolves once it is. */
  function hangsOn(port: number, client: PemPair): Promise<void> {
    return new Promise((resolve) => {
      const socket = connectTls({ host: '127.0.0.1', port, cert: client.cert + padding, key: client.key, rejectUnauthorized: false });
      socket.on('error', () => undefined);
      socket.once('close', () => resolve());
    });
  }

  it('admits a long valid list; while others wait in the lane or are refused as busy, an ordinary client is served at once', async () => {
    const lines: string[] = [];
    const credentials = loadTlsCredentials({ certFile: pki.server.certFile, keyFile: pki.server.keyFile, clientRootCAs: [pki.ca.certFile] });
    // A share so small that after one read the lane stays shut for the rest of the test.
    const { port } = await startServer({
      credentials,
      handshakeTimeoutMs: 3_000,
      internals: { longListLane: { share: 1e-6, maxWaiting: 1 } },
      logger: { warn: (fields, message) => void lines.push(`${String((fields as { reason?: string }).reason)} ${message ?? ''}`) },
    });
    expect(await get(port, pki.clients.good.cert + pki.ca.cert + padding, pki.clients.good.key)).toMatch(/CN=/);
    const attackers = rogues.map((rogue) => hangsOn(port, rogue));
    await vi.waitFor(() => expect(lines.filter((line) => line.includes(LONG_LIST_BUSY_REASON))).toHaveLength(rogues.length - 1), { timeout: 2_500 });
    // One long list still waits in the lane; an ordinary client is not behind it.
    expect(await get(port, pki.clients.good.cert + pki.ca.cert, pki.clients.good.key)).toMatch(/CN=/);
    await Promise.all(attackers);
    expect(lines.filter((line) => /i\/o timeout|failed to verify/.test(line))).toHaveLength(1);
  }, 30_000);

  it('holds a connection refused after a long list before closing it, so a client that waits for the close retries less often; ordinary clients are served meanwhile', async () => {
    const credentials = loadTlsCredentials({ certFile: pki.server.certFile, keyFile: pki.server.keyFile, clientRootCAs: [pki.ca.certFile] });
    const holdMs = 300;
    const { port } = await startServer({ credentials, handshakeTimeoutMs: 3_000, internals: { longListLane: { share: 0.1, maxWaiting: 32, refusalHoldMs: holdMs } } });
    // a refused short list is closed at once, a refused long one only after the hold
    const closedAfter = async (cert: string, key: string): Promise<number> => {
      const started = performance.now();
      await new Promise<void>((resolve) => {
        const socket = connectTls({ host: '127.0.0.1', port, cert, key, rejectUnauthorized: false });
        socket.on('error', () => undefined);
        socket.once('close', () => resolve());
      });
      return performance.now() - started;
    };
    expect(await closedAfter(rogues[0]!.cert, rogues[0]!.key)).toBeLessThan(holdMs);
    expect(await closedAfter(rogues[1]!.cert + padding, rogues[1]!.key)).toBeGreaterThanOrEqual(holdMs - 20);
    // two clients that try again as soon as they are closed, for 1.5 s: at most one handshake per hold each
    let handshakes = 0;
    const until = performance.now() + 1_500;
    const loop = async (rogue: PemPair): Promise<void> => {
      while (performance.now() < until) {
        handshakes++;
        await closedAfter(rogue.cert + padding, rogue.key);
      }
    };
    const loops = Promise.all([loop(rogues[2]!), loop(rogues[3]!)]);
    // an ordinary client is served while they are held
    expect(await get(port, pki.clients.good.cert + pki.ca.cert, pki.clients.good.key)).toMatch(/CN=/);
    await loops;
    expect(handshakes).toBeGreaterThanOrEqual(2);
    expect(handshakes).toBeLessThanOrEqual(2 * (Math.ceil(1_500 / holdMs) + 1));
  }, 30_000);
});
