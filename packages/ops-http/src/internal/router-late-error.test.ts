import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createRouter, type Route } from './router.ts';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** Serves one open route at `path`; `errors` collects every error the router reports. */
async function serve(path: string, handler: Route['handler']): Promise<{ port: number; errors: unknown[] }> {
  const errors: unknown[] = [];
  const router = createRouter({ routes: [{ path, secure: false, handler }], onHandlerError: (error) => errors.push(error) });
  server = createServer(router.handle);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { port: (server.address() as AddressInfo).port, errors };
}

/** Sends raw requests and collects every byte until the server closes; `how` tells a clean close from a reset. */
function exchange(port: number, raw: string): Promise<{ text: string; how: 'end' | 'reset' }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(raw));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => resolve({ text: Buffer.concat(chunks).toString(), how: 'end' }));
    socket.on('error', () => resolve({ text: Buffer.concat(chunks).toString(), how: 'reset' }));
  });
}

const GET = (path: string, close = false) => `GET ${path} HTTP/1.1\r\nHost: x\r\n${close ? 'Connection: close\r\n' : ''}\r\n`;

describe('a handler that fails after sending its headers', () => {
  it('is reported once, and its response ends with the connection after what was written (no reset)', async () => {
    const { port, errors } = await serve('/sync', (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.write('partial');
      throw new Error('secret detail');
    });
    const answer = await exchange(port, GET('/sync'));
    expect(answer.how).toBe('end');
    expect(answer.text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(answer.text).toContain('partial');
    // Cut short: the chunked body has no last chunk, and nothing of the error reaches the wire.
    expect(answer.text).not.toContain('\r\n0\r\n\r\n');
    expect(answer.text).not.toContain('secret');
    expect(errors).toEqual([expect.objectContaining({ message: 'secret detail' })]);
  });

  it('is reported once when its promise rejects after writing', async () => {
    const { port, errors } = await serve('/async', async (_req, res) => {
      res.writeHead(200, { 'Content-Length': '10' });
      res.write('12345');
      await new Promise((resolve) => setImmediate(resolve));
      throw new Error('late');
    });
    const answer = await exchange(port, GET('/async'));
    expect(answer.how).toBe('end');
    expect(answer.text.endsWith('\r\n\r\n12345')).toBe(true);
    expect(errors).toHaveLength(1);
  });

  it('leaves a response it had already ended alone: the connection serves the next request', async () => {
    const { port, errors } = await serve('/done', (_req, res) => {
      res.writeHead(200, { 'Content-Length': '2' });
      res.end('ok');
      throw new Error('after the end');
    });
    const answer = await exchange(port, GET('/done') + GET('/done', true));
    expect(answer.how).toBe('end');
    expect(answer.text.match(/HTTP\/1\.1 200 OK/g)).toHaveLength(2);
    expect(errors).toHaveLength(2);
  });
});
