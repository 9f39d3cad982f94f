import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { send, useRunningPeer } from '@fabric-ops/test-kit';

// Faults from the client side against the real peer bin: trickled headers and bodies,
// idle-connection floods, oversized and malformed requests.

const bin = fileURLToPath(new URL('../dist/bin.cjs', import.meta.url));
const peer = useRunningPeer(bin);

function open(): Promise<Socket> {
  const socket = connect(peer.port, '127.0.0.1');
  socket.on('error', () => {});
  return once(socket, 'connect').then(() => socket);
}

/** Resolves with everything the server sent and how long it took to close the socket. */
function collectUntilClosed(socket: Socket): Promise<{ text: string; closedAfterMs: number }> {
  const began = Date.now();
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  return once(socket, 'close').then(() => ({ text: Buffer.concat(chunks).toString('latin1'), closedAfterMs: Date.now() - began }));
}

describe('slow and hostile clients against the peer', () => {
  it('cuts off headers trickled byte by byte within the 10 s read timeout', async () => {
    const socket = await open();
    const closed = collectUntilClosed(socket);
    const request = 'GET /version HTTP/1.1\r\nHost: x\r\nX-Slow: ' + 'a'.repeat(200);
    let i = 0;
    const drip = setInterval(() => {
      if (!socket.destroyed && i < request.length) socket.write(request[i++]!);
    }, 100);
    const { text, closedAfterMs } = await closed;
    clearInterval(drip);
    expect(closedAfterMs).toBeGreaterThan(9_000);
    expect(closedAfterMs).toBeLessThan(13_000);
    // Node answers a request-timeout with 408 before closing; nothing else may have been served.
    expect(text === '' || text.startsWith('HTTP/1.1 408')).toBe(true);
  }, 20_000);

  it('cuts off a body trickled forever within the read timeout', async () => {
    const socket = await open();
    const closed = collectUntilClosed(socket);
    socket.write('PUT /logspec HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{"spec":"');
    const drip = setInterval(() => {
      if (!socket.destroyed) socket.write('d');
    }, 200);
    const { closedAfterMs } = await closed;
    clearInterval(drip);
    expect(closedAfterMs).toBeLessThan(13_000);
  }, 20_000);

  it('keeps serving new clients while 1,000 idle connections are open', async () => {
    const idle: Socket[] = [];
    try {
      for (let batch = 0; batch < 10; batch++) {
        idle.push(...(await Promise.all(Array.from({ length: 100 }, () => open()))));
      }
      expect(idle.filter((s) => !s.destroyed)).toHaveLength(1_000);
      const began = Date.now();
      const reply = await send(peer.app.address, '/version');
      expect(reply.status).toBe(200);
      expect(Date.now() - began).toBeLessThan(2_000);
    } finally {
      for (const s of idle) s.destroy();
    }
  }, 30_000);

  it('answers a declared oversized body with 413 without reading it', async () => {
    const socket = await open();
    const closed = collectUntilClosed(socket);
    // Declares 100 MiB but sends only a few bytes: a 413 proves the server did not wait for the rest.
    socket.write('PUT /logspec HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 104857600\r\n\r\n{"spec":');
    const { text, closedAfterMs } = await closed;
    expect(text.startsWith('HTTP/1.1 413')).toBe(true);
    expect(text.toLowerCase()).toContain('connection: close');
    expect(closedAfterMs).toBeLessThan(2_000);
  });

  it('answers a chunked body that crosses the cap with 413 and closes', async () => {
    const socket = await open();
    const closed = collectUntilClosed(socket);
    // Writes racing the server's close may fail here; what matters is the 413 that came first.
    socket.on('error', () => {});
    socket.write('PUT /logspec HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n');
    const chunk = 'x'.repeat(64 * 1024);
    for (let i = 0; i < 20 && !socket.destroyed; i++) {
      socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    }
    const { text } = await closed;
    expect(text.startsWith('HTTP/1.1 413')).toBe(true);
  });

  it.each([
    ['a garbage request line', 'HELLO\r\n\r\n'],
    ['a bad header line', 'GET /version HTTP/1.1\r\nHost: x\r\nno-colon-here\r\n\r\n'],
    ['an HTTP/1.1 request without Host', 'GET /version HTTP/1.1\r\n\r\n'],
    ['conflicting body framing', 'PUT /logspec HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'],
  ])('answers %s with 400 and a closed connection', async (_name, raw) => {
    const socket = await open();
    const closed = collectUntilClosed(socket);
    socket.write(raw);
    const { text } = await closed;
    expect(text.startsWith('HTTP/1.1 400')).toBe(true);
  });

  it('still answers normally after all of the above', async () => {
    const reply = await send(peer.app.address, '/version');
    expect(reply.status).toBe(200);
  });
});
