import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { send } from '@fabric-ops/test-kit';
import { capturingLogger, useSystems } from './systems.ts';

const systems = useSystems();

/** Connections that send part of a request's headers and then nothing (a slowloris client). */
async function hanging(address: string, count: number): Promise<Socket[]> {
  const [host, port] = [address.slice(0, address.lastIndexOf(':')), Number(address.slice(address.lastIndexOf(':') + 1))];
  return Promise.all(
    Array.from({ length: count }, async () => {
      const socket = connect(port, host);
      socket.on('error', () => undefined);
      await once(socket, 'connect');
      socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ');
      return socket;
    }),
  );
}

describe('stop() with connections whose request never completes', () => {
  it('closes them within a second, while a request under way is still answered (not after shutdownTimeoutMs)', async () => {
    // A drain time no test could wait for: stop() resolving at all shows nothing waited for it.
    const s = await systems.start({ logger: capturingLogger([]), shutdownTimeoutMs: 600_000 });
    let release: () => void = () => undefined;
    s.addRoute({ path: '/slow', secure: false, handler: (_req, res) => new Promise<void>((resolve) => (release = () => (res.end('done'), resolve()))) });
    const sockets = await hanging(s.address(), 100);
    // The server has read their bytes once a full request behind them is answered.
    expect((await send(s.address(), '/livez')).status).toBe(200);
    const slow = send(s.address(), '/slow');
    await new Promise((resolve) => setTimeout(resolve, 50));
    const [probe] = await hanging(s.address(), 1);
    const probeAnswer = new Promise<string>((resolve) => {
      let text = '';
      probe!.on('data', (chunk: Buffer) => (text += chunk.toString()));
      probe!.on('close', () => resolve(text));
    });
    const stopped = s.stop();
    // A probe that finishes its headers just after the signal is still answered (/healthz keeps its answers while stopping).
    probe!.write('1\r\n\r\n');
    expect(await probeAnswer).toMatch(/^HTTP\/1\.1 200 /);
    await Promise.all(sockets.map((socket) => (socket.destroyed ? undefined : once(socket, 'close'))));
    release();
    expect((await slow).body).toBe('done');
    await stopped;
  }, 15_000);
});
