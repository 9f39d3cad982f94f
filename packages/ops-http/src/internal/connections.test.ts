import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { createRouter } from './router.ts';

describe('connection table', () => {
  it('lets go of a written response while its keep-alive connection stays open', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const written: WeakRef<ServerResponse>[] = [];
    const router = createRouter({
      routes: [
        {
          path: '/hello',
          secure: false,
          handler: (_req, res) => {
            written.push(new WeakRef(res));
            res.end('hi\n');
          },
        },
      ],
    });
    const server = createServer(router.handle).listen(0, '127.0.0.1');
    await once(server, 'listening');
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    try {
      let received = '';
      socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
      socket.write('GET /hello HTTP/1.1\r\nHost: x\r\n\r\n');
      while (!received.endsWith('hi\n')) await once(socket, 'data');
      // The connection stays open (keep-alive, no next request): nothing but the router could hold the response now.
      let collected = false;
      for (let attempt = 0; attempt < 20 && !collected; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        gc();
        collected = written[0]!.deref() === undefined;
      }
      expect(written).toHaveLength(1);
      expect(collected).toBe(true);
      expect(socket.destroyed).toBe(false);
    } finally {
      socket.destroy();
      server.closeAllConnections();
      server.close();
    }
  });
});
