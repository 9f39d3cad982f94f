// ops-http's createVersionHandler, which embedders mount, answers as ops-server's /version does
// (src/version.ts, which builds its handler with it and checks its own option names first), for
// every method and for empty fields: status, headers and bytes. version-wire.test.ts pins the
// bytes themselves, through the whole system.
import { createServer, request, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createVersionHandler } from '@fabric-ops/ops-http';
import { afterEach, describe, expect, it } from 'vitest';
import { versionHandler } from '../src/version.ts';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function answers(listener: RequestListener, method: string): Promise<string> {
  const server = createServer(listener);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/version', method, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        const headers = Object.entries(res.headers)
          .filter(([name]) => name !== 'date')
          .map(([name, value]) => `${name}: ${String(value)}`)
          .sort();
        resolve(`${res.statusCode}\n${headers.join('\n')}\n\n${body}`);
      });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('createVersionHandler and ops-server’s /version', () => {
  it.each([
    ['2.5.16', '4072367'],
    ['latest', ''],
    ['', 'development build'],
    ['', ''],
  ])('answer alike for version %j, commit %j, whatever the method', async (version, commitSHA) => {
    for (const method of ['GET', 'PUT', 'POST', 'DELETE', 'HEAD', 'OPTIONS']) {
      const ours = await answers(createVersionHandler({ version, commitSHA }), method);
      const server = await answers(versionHandler({ version, commitSHA }), method);
      expect(ours).toBe(server);
    }
  });
});
