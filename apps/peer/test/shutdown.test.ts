import { once } from 'node:events';
import { Agent } from 'node:http';
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { configDir, send, spawnApp, type RunningApp } from '@fabric-ops/test-kit';

const bin = fileURLToPath(new URL('../dist/bin.cjs', import.meta.url));
const running: RunningApp[] = [];
afterEach(() => {
  for (const app of running.splice(0)) app.kill();
});

async function startPeer(): Promise<{ app: RunningApp; port: number }> {
  const dir = configDir('core.yaml', 'vm:\n  endpoint: ""\noperations:\n  listenAddress: 127.0.0.1:0\n');
  const app = await spawnApp(bin, { env: { FABRIC_CFG_PATH: dir } });
  running.push(app);
  return { app, port: Number(app.address.slice(app.address.lastIndexOf(':') + 1)) };
}

async function openSocket(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  return socket;
}

function readResponse(socket: Socket): Promise<string> {
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  return once(socket, 'close').then(() => Buffer.concat(chunks).toString('latin1'));
}

describe('SIGTERM under load', () => {
  it('finishes in-flight requests, refuses new connections, fails /readyz, and exits 0 within 5 s', async () => {
    const { app, port } = await startPeer();

    // Background load on keep-alive connections until the server goes away.
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    let served = 0;
    let loadRunning = true;
    const loop = async () => {
      while (loadRunning) {
        try {
          const reply = await send(app.address, '/version', { agent });
          if (reply.status === 200) served++;
        } catch {
          return; // refused or reset once shutdown has begun: expected
        }
      }
    };
    const loops = Array.from({ length: 8 }, loop);
    await new Promise((r) => setTimeout(r, 500));
    expect(served).toBeGreaterThan(0);

    // An in-flight PUT whose body is still arriving when the signal lands.
    const putSocket = await openSocket(port);
    const putResponse = readResponse(putSocket);
    const body = '{"spec":"info:gossip=debug"}';
    putSocket.write(`PUT /logspec HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`);

    // A /readyz probe whose headers are still arriving: its connection is busy, so it is not closed as idle.
    const readySocket = await openSocket(port);
    const readyResponse = readResponse(readySocket);
    readySocket.write('GET /readyz HTTP/1.1\r\nHost: x\r\n');

    await new Promise((r) => setTimeout(r, 100));
    const signalledAt = Date.now();
    app.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));

    await expect(send(app.address, '/version', { timeoutMs: 2_000 })).rejects.toThrow(/ECONNREFUSED|ECONNRESET/);

    readySocket.write('\r\n');
    putSocket.write(body.slice(5));
    const ready = await readyResponse;
    expect(ready.startsWith('HTTP/1.1 503')).toBe(true);
    const put = await putResponse;
    expect(put.startsWith('HTTP/1.1 204')).toBe(true);

    const { code } = await app.exited;
    loadRunning = false;
    await Promise.all(loops);
    agent.destroy();
    expect(code).toBe(0);
    expect(Date.now() - signalledAt).toBeLessThan(5_000);
  }, 30_000);
});
