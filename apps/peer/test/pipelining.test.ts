import { once } from 'node:events';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useRunningPeer } from '@fabric-ops/test-kit';

// One connection, raw bytes, against the real peer bin: requests pipelined on a connection see
// each other's effects in order, and request lines Go refuses are refused with Go's answers.

const bin = fileURLToPath(new URL('../dist/bin.cjs', import.meta.url));
const peer = useRunningPeer(bin);

/** Writes `raw` on a fresh connection and resolves with everything received until the server closes it. */
async function exchange(raw: string): Promise<string> {
  const socket = connect(peer.port, '127.0.0.1');
  socket.on('error', () => {});
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  socket.write(raw);
  const timer = setTimeout(() => socket.destroy(), 5_000);
  await once(socket, 'close');
  clearTimeout(timer);
  return Buffer.concat(chunks).toString('latin1');
}

describe('the peer on one connection', () => {
  it('answers a GET /logspec pipelined behind a PUT with the new spec (20 of 20)', async () => {
    const levels = ['debug', 'info', 'warn', 'error'];
    for (let i = 0; i < 20; i++) {
      const spec = `gossip=debug:${levels[i % levels.length]}`; // already in the normal form GET reports
      const body = JSON.stringify({ spec });
      const text = await exchange(
        `PUT /logspec HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}` + 'GET /logspec HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      );
      expect(text).toMatch(/^HTTP\/1\.1 204 /);
      expect(text).toContain(`{"spec":"${spec}"}\n`);
    }
  });

  it('answers HTTP/2.0 with 505 and a request line without a version with 400, as Go', async () => {
    expect(await exchange('GET /logspec HTTP/2.0\r\nHost: x\r\n\r\n')).toBe(
      'HTTP/1.1 505 HTTP Version Not Supported: unsupported protocol version\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n505 HTTP Version Not Supported: unsupported protocol version',
    );
    expect(await exchange('GET /logspec\r\n\r\n')).toBe('HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request');
  });

  it('routes GET http://h?/logspec to / as Go 1.26 does (307 to /?/logspec), not to /logspec', async () => {
    const text = await exchange('GET http://h?/logspec HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n');
    expect(text).toMatch(/^HTTP\/1\.1 307 Temporary Redirect\r\n/);
    expect(text).toContain('Location: /?/logspec\r\n');
    expect(text).not.toContain('"spec"');
  });
});
