import { once } from 'node:events';
import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readBody } from './body.ts';
import { writeJson } from './json.ts';
import { writeNotFound } from './not-found.ts';
import { answerClientErrorAsGo } from './go-errors.ts';
import { createRouter, type Route, type RouterOptions } from './router.ts';
import { serverOptionsFor, DEFAULT_SERVER_LIMITS } from './server-limits.ts';

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

let server: Server | undefined;
afterEach(async () => {
  if (server) {
    server.closeAllConnections();
    await new Promise((r) => server!.close(r));
    server = undefined;
  }
});

async function serve(routes: Route[], options: Omit<RouterOptions, 'routes'> = {}, withServerOptions = false): Promise<number> {
  const router = createRouter({ routes, ...options });
  server = withServerOptions ? createServer(serverOptionsFor(DEFAULT_SERVER_LIMITS), router.handle) : createServer(router.handle);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

function send(port: number, method: string, path: string, headers: Record<string, string> = {}, body?: string | Buffer): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const hello: Route = { path: '/hello', secure: false, handler: (_req, res) => writeJson(res, 200, { hi: '<x>' }) };

describe('router', () => {
  it('answers an unknown path exactly as Go ServeMux', async () => {
    const port = await serve([hello]);
    const reply = await send(port, 'GET', '/nope');
    expect(reply.status).toBe(404);
    expect(reply.body).toBe('404 page not found\n');
    expect(reply.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(reply.headers['x-content-type-options']).toBe('nosniff');
    expect(reply.headers['x-request-id']).toBeUndefined();
  });

  it("answers a handler's writeNotFound as its own 404, without the routed request's id", async () => {
    for (const withServerOptions of [true, false]) {
      const port = await serve([{ path: '/things', secure: false, handler: (_req, res) => writeNotFound(res) }], {}, withServerOptions);
      const reply = await send(port, 'GET', '/things', { 'X-Request-Id': 'r1' });
      expect(reply.status).toBe(404);
      expect(reply.body).toBe('404 page not found\n');
      expect(reply.headers['x-content-type-options']).toBe('nosniff');
      expect(reply.headers['x-request-id']).toBeUndefined();
      server!.closeAllConnections();
      await new Promise((r) => server!.close(r));
      server = undefined;
    }
  });

  it('treats a trailing slash as a different path', async () => {
    const port = await serve([hello]);
    expect((await send(port, 'GET', '/hello/')).status).toBe(404);
  });

  it('redirects unclean paths with 307 to the cleaned path, as Go 1.26 ServeMux does', async () => {
    const port = await serve([hello]);
    const reply = await send(port, 'GET', '//hello');
    expect(reply.status).toBe(307);
    expect(reply.headers.location).toBe('/hello');
    expect(reply.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(reply.body).toBe('<a href="/hello">Temporary Redirect</a>.\n\n');
    const dotted = await send(port, 'GET', '/x/../hello?q=1&r=2');
    expect(dotted.status).toBe(307);
    expect(dotted.headers.location).toBe('/hello?q=1&r=2');
    expect(dotted.body).toBe('<a href="/hello?q=1&amp;r=2">Temporary Redirect</a>.\n\n');
  });

  it('sends no redirect body for methods other than GET, and only the Content-Type for HEAD', async () => {
    const port = await serve([hello]);
    const reply = await send(port, 'PUT', '//hello');
    expect(reply.status).toBe(307);
    expect(reply.body).toBe('');
    expect(reply.headers['content-type']).toBeUndefined();
    expect(await exchange(port, 'HEAD /a/../hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).toMatch(
      /^HTTP\/1\.1 307 Temporary Redirect\r\nContent-Type: text\/html; charset=utf-8\r\nLocation: \/hello\r\n/,
    );
  });

  it('ignores the query string when routing', async () => {
    const port = await serve([hello]);
    const reply = await send(port, 'GET', '/hello?verbose=1');
    expect(reply.status).toBe(200);
    expect(reply.body).toBe('{"hi":"\\u003cx\\u003e"}');
  });

  it('leaves methods to the handler', async () => {
    const seen: string[] = [];
    const port = await serve([
      {
        path: '/m',
        secure: false,
        handler: (req, res) => {
          seen.push(req.method!);
          res.end();
        },
      },
    ]);
    await send(port, 'POST', '/m');
    await send(port, 'DELETE', '/m');
    expect(seen).toEqual(['POST', 'DELETE']);
  });

  it('answers OPTIONS * with 200 and no body', async () => {
    const port = await serve([hello]);
    const socket = connect(port, '127.0.0.1');
    socket.write('OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    await once(socket, 'end');
    const text = Buffer.concat(chunks).toString();
    expect(text.startsWith('HTTP/1.1 200 OK')).toBe(true);
    expect(text).toContain('Content-Length: 0');
  });

  it('echoes the client X-Request-Id and makes a UUIDv4 otherwise', async () => {
    const port = await serve([hello]);
    const echoed = await send(port, 'GET', '/hello', { 'X-Request-Id': 'abc-123' });
    expect(echoed.headers['x-request-id']).toBe('abc-123');
    const fresh = await send(port, 'GET', '/hello');
    expect(fresh.headers['x-request-id']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const another = await send(port, 'GET', '/hello');
    expect(another.headers['x-request-id']).not.toBe(fresh.headers['x-request-id']);
  });

  it('echoes only the first of repeated X-Request-Id headers, as Go Header.Get does', async () => {
    const port = await serve([hello]);
    const reply = await new Promise<Reply>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/hello', agent: false, headers: { 'X-Request-Id': ['first-id', 'second-id'] } }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: '' }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(reply.headers['x-request-id']).toBe('first-id');
  });

  it('makes the request id visible to the handler', async () => {
    let seen: unknown;
    const port = await serve([
      {
        path: '/id',
        secure: false,
        handler: (req, res) => {
          seen = req.headers['x-request-id'];
          res.end();
        },
      },
    ]);
    await send(port, 'GET', '/id', { 'X-Request-Id': 'trace-7' });
    expect(seen).toBe('trace-7');
  });

  it('refuses a secure route when authorize says no, without a request id', async () => {
    const port = await serve([{ ...hello, secure: true }], { authorize: () => ({ allow: false, status: 401 }) });
    const reply = await send(port, 'GET', '/hello');
    expect(reply.status).toBe(401);
    expect(reply.body).toBe('');
    expect(reply.headers['content-length']).toBe('0');
    expect(reply.headers['content-type']).toBeUndefined();
    expect(reply.headers['x-request-id']).toBeUndefined();
  });

  it('never consults authorize for an open route', async () => {
    let asked = 0;
    const port = await serve([hello], {
      authorize: () => {
        asked++;
        return { allow: false, status: 401 };
      },
    });
    expect((await send(port, 'GET', '/hello')).status).toBe(200);
    expect(asked).toBe(0);
  });

  it('answers 500 with an empty body when a handler throws, and reports the error', async () => {
    const errors: unknown[] = [];
    const port = await serve(
      [
        {
          path: '/boom',
          secure: false,
          handler: async () => {
            throw new Error('secret detail');
          },
        },
      ],
      { onHandlerError: (e) => errors.push(e) },
    );
    const reply = await send(port, 'GET', '/boom');
    expect(reply.status).toBe(500);
    expect(reply.body).toBe('');
    expect(errors).toHaveLength(1);
  });

  it('destroys a response that outlives the write timeout, and forgets finished ones', async () => {
    const router = createRouter({
      routes: [hello, { path: '/hang', secure: false, handler: () => new Promise<void>(() => {}) }],
      writeTimeoutMs: 200,
    });
    server = createServer(router.handle);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as AddressInfo).port;
    await send(port, 'GET', '/hello');
    const began = Date.now();
    await expect(send(port, 'GET', '/hang')).rejects.toThrow(/socket hang up|ECONNRESET/);
    expect(Date.now() - began).toBeLessThan(2_000);
    // The response's own 'close' arrives a tick after the client sees the reset.
    await vi.waitFor(() => expect([...router.inFlight()]).toHaveLength(0));
  });

  it('refuses duplicate and unclean patterns', () => {
    const router = createRouter({ routes: [hello] });
    expect(() => router.add(hello)).toThrowError(expect.objectContaining({ code: 'DUPLICATE_ROUTE' }));
    expect(() => router.add({ ...hello, path: '/a//b' })).toThrowError(expect.objectContaining({ code: 'INVALID_ROUTE' }));
  });

  it('matches subtree patterns below their prefix, preferring exact routes', async () => {
    const port = await serve([
      {
        path: '/healthz',
        secure: false,
        handler: (_q, res) => {
          res.end('all');
        },
      },
      {
        path: '/healthz/',
        secure: false,
        handler: (req, res) => {
          res.end(`one:${req.url}`);
        },
      },
    ]);
    expect((await send(port, 'GET', '/healthz')).body).toBe('all');
    expect((await send(port, 'GET', '/healthz/docker')).body).toBe('one:/healthz/docker');
  });
});

describe('what a handler returns', () => {
  it('ignores a value that is not a promise (a JavaScript handler returning res.end()), on every request of a connection', async () => {
    const returned: unknown[] = [res0(), 42, 'text', null, { then: 'not a function' }];
    let call = 0;
    const port = await serve([
      { path: '/hello', secure: false, handler: (_req, res) => res.end('hi\n') },
      {
        path: '/other',
        secure: false,
        handler: (_req, res) => {
          res.end('other\n');
          return returned[call++ % returned.length];
        },
      },
    ]);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (let i = 0; i < 3; i++) {
        expect(await sendWith(agent, port, '/hello')).toEqual({ status: 200, body: 'hi\n' });
      }
      for (let i = 0; i < returned.length; i++) {
        expect(await sendWith(agent, port, '/other')).toEqual({ status: 200, body: 'other\n' });
      }
    } finally {
      agent.destroy();
    }
  });

  it('serves a request pipelined behind a handler that returned a value', async () => {
    const port = await serve([{ path: '/hello', secure: false, handler: (_req, res) => res.end('hi\n') }]);
    const text = await exchange(port, 'GET /hello HTTP/1.1\r\nHost: x\r\n\r\nGET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(text.split('HTTP/1.1 200 OK')).toHaveLength(3);
  });

  it('answers 500 and writes one stderr line when a promise rejects and no onHandlerError is given', async () => {
    const lines: string[] = [];
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    }) as typeof process.stderr.write);
    try {
      const port = await serve([{ path: '/boom', secure: false, handler: () => Promise.reject(new Error('secret detail')) }]);
      const reply = await send(port, 'GET', '/boom');
      expect(reply.status).toBe(500);
      expect(reply.body).toBe('');
      expect(lines.filter((l) => l.startsWith('ops-http: handler for GET /boom failed: Error: secret detail'))).toHaveLength(1);
    } finally {
      write.mockRestore();
    }
  });

  it('waits on a native promise with its own callbacks, and on a promise whose then was replaced through that then', async () => {
    const errors: unknown[] = [];
    const port = await serve(
      [
        {
          path: '/native',
          secure: false,
          handler: async (_req, res) => {
            await new Promise((resolve) => setTimeout(resolve, 5));
            res.end('native\n');
          },
        },
        {
          path: '/replaced',
          secure: false,
          handler: () =>
            // A resolved promise whose own `then` reports a failure: the router must go through it.
            Object.assign(Promise.resolve(), {
              then: (_ok: () => void, bad: (e: unknown) => void) => bad(new Error('own then')),
            }),
        },
      ],
      { onHandlerError: (e) => errors.push(e) },
    );
    const text = await exchange(port, 'GET /native HTTP/1.1\r\nHost: x\r\n\r\nGET /native HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(text.split('native\n')).toHaveLength(3);
    expect((await send(port, 'GET', '/replaced')).status).toBe(500);
    expect(errors.map((e) => (e as Error).message)).toEqual(['own then']);
  });

  it('takes the first outcome of a thenable that calls back twice or throws from then', async () => {
    const errors: unknown[] = [];
    const port = await serve(
      [
        {
          path: '/twice',
          secure: false,
          handler: (_req, res) => {
            res.end('ok');
            return {
              then: (ok: () => void, bad: (e: unknown) => void) => {
                ok();
                ok();
                bad(new Error('late'));
              },
            };
          },
        },
        {
          path: '/throws',
          secure: false,
          handler: () => ({
            then: () => {
              throw new Error('then threw');
            },
          }),
        },
        {
          path: '/getter',
          secure: false,
          handler: () => ({
            get then(): never {
              throw new Error('getter threw');
            },
          }),
        },
      ],
      { onHandlerError: (e) => errors.push(e) },
    );
    expect((await send(port, 'GET', '/twice')).status).toBe(200);
    expect((await send(port, 'GET', '/throws')).status).toBe(500);
    expect((await send(port, 'GET', '/getter')).status).toBe(500);
    expect(errors.map((e) => (e as Error).message)).toEqual(['then threw', 'getter threw']);
  });

  it('keeps serving when onHandlerError itself throws', async () => {
    const port = await serve(
      [
        {
          path: '/boom',
          secure: false,
          handler: () => {
            throw new Error('x');
          },
        },
      ],
      {
        onHandlerError: () => {
          throw new Error('logger broke');
        },
      },
    );
    expect((await send(port, 'GET', '/boom')).status).toBe(500);
    expect((await send(port, 'GET', '/boom')).status).toBe(500);
  });
});

function res0(): unknown {
  return { end: () => undefined };
}

function sendWith(agent: Agent, port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('request bodies', () => {
  const echo: Route = {
    path: '/echo',
    secure: false,
    handler: async (req, res) => {
      const body = await readBody(req, { limit: 16 });
      res.end(body);
    },
  };

  it('reads a body under the cap', async () => {
    const port = await serve([echo]);
    expect((await send(port, 'PUT', '/echo', {}, 'small')).body).toBe('small');
  });

  it('refuses a declared oversized body with 413 before reading it', async () => {
    const port = await serve([echo]);
    const reply = await send(port, 'PUT', '/echo', {}, 'x'.repeat(17));
    expect(reply.status).toBe(413);
    expect(reply.headers.connection).toBe('close');
    expect(JSON.parse(reply.body)).toEqual({ error: 'request body is larger than 16 bytes' });
  });

  it('refuses a chunked body once it crosses the cap, and closes the connection', async () => {
    const port = await serve([echo]);
    const socket = connect(port, '127.0.0.1');
    socket.write('PUT /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n');
    socket.write('10\r\n' + 'a'.repeat(16) + '\r\n');
    socket.write('10\r\n' + 'b'.repeat(16) + '\r\n');
    // The terminating chunk is never sent: the server must answer anyway.
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    await once(socket, 'close');
    const text = Buffer.concat(chunks).toString();
    expect(text.startsWith('HTTP/1.1 413')).toBe(true);
  });
});

/** Writes `raw` on a fresh socket and resolves with everything received until the server closes it (or `waitMs`). */
async function exchange(port: number, raw: string, waitMs = 2_000): Promise<string> {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => {});
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  socket.write(raw);
  const timer = setTimeout(() => socket.destroy(), waitMs);
  await once(socket, 'close');
  clearTimeout(timer);
  return Buffer.concat(chunks).toString('latin1');
}

describe('headers in one writeHead call (serverOptionsFor response class)', () => {
  it('sends the request id exactly once from the writers and from a raw handler', async () => {
    const port = await serve(
      [
        hello,
        {
          path: '/raw',
          secure: false,
          handler: (_req, res) => {
            res.end('raw');
          },
        },
      ],
      {},
      true,
    );
    const text = await exchange(port, 'GET /hello HTTP/1.1\r\nHost: x\r\n\r\nGET /raw HTTP/1.1\r\nHost: x\r\nX-Request-Id: given\r\nConnection: close\r\n\r\n');
    const [first, second] = text.split('HTTP/1.1 ').filter(Boolean);
    expect(first).toMatch(/^200 OK\r\n/);
    expect(first!.match(/X-Request-Id: [0-9a-f-]{36}\r\n/g)).toHaveLength(1);
    expect(first).toContain('Content-Type: application/json\r\n');
    expect(second!.match(/X-Request-Id: given\r\n/g)).toHaveLength(1);
  });

  it('adds the id to headers a handler gives writeHead as an object, or sets progressively', async () => {
    const port = await serve(
      [
        {
          path: '/object',
          secure: false,
          handler: (_req, res) => {
            res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': '2' });
            res.end('ok');
          },
        },
        {
          path: '/progressive',
          secure: false,
          handler: (_req, res) => {
            res.setHeader('X-Extra', 'yes');
            res.statusCode = 202;
            res.end();
          },
        },
      ],
      {},
      true,
    );
    const text = await exchange(port, 'GET /object HTTP/1.1\r\nHost: x\r\n\r\nGET /progressive HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    const [first, second] = text.split('HTTP/1.1 ').filter(Boolean);
    expect(first).toMatch(/^200 OK\r\nX-Request-Id: [0-9a-f-]{36}\r\nContent-Type: text\/plain\r\nContent-Length: 2\r\n/);
    expect(second).toMatch(/^202 Accepted\r\n/);
    expect(second!.match(/X-Request-Id: [0-9a-f-]{36}\r\n/g)).toHaveLength(1);
    expect(second).toContain('X-Extra: yes\r\n');
  });

  it('leaves the id off refused and unknown requests', async () => {
    const port = await serve([{ ...hello, secure: true }], { authorize: () => ({ allow: false, status: 401 }) }, true);
    expect((await send(port, 'GET', '/hello', { 'X-Request-Id': 'r1' })).headers['x-request-id']).toBeUndefined();
    expect((await send(port, 'GET', '/nope')).headers['x-request-id']).toBeUndefined();
  });
});

describe('requests pipelined on one connection', () => {
  /** A resource whose PUT takes effect only after its body is read and a turn of the event loop. */
  function slowStore(): Route {
    let value = 'old';
    return {
      path: '/value',
      secure: false,
      handler: async (req, res) => {
        if (req.method === 'PUT') {
          const body = await readBody(req);
          await new Promise((r) => setImmediate(r));
          value = body.toString();
          res.writeHead(204);
          res.end();
          return;
        }
        writeJson(res, 200, { value });
      },
    };
  }

  it('runs a GET pipelined behind a PUT after the PUT has taken effect (20 of 20)', async () => {
    const port = await serve([slowStore()]);
    for (let i = 0; i < 20; i++) {
      const v = `new-${i}`;
      const text = await exchange(port, `PUT /value HTTP/1.1\r\nHost: x\r\nContent-Length: ${v.length}\r\n\r\n${v}` + 'GET /value HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      expect(text).toMatch(/^HTTP\/1\.1 204 /);
      expect(text).toContain(`{"value":"${v}"}`);
    }
  });

  it('answers pipelined requests in order when a handler fails', async () => {
    const port = await serve([
      {
        path: '/boom',
        secure: false,
        handler: async () => {
          await new Promise((r) => setImmediate(r));
          throw new Error('no');
        },
      },
      hello,
    ]);
    const text = await exchange(port, 'GET /boom HTTP/1.1\r\nHost: x\r\n\r\nGET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(text.indexOf('HTTP/1.1 500')).toBe(0);
    expect(text.indexOf('HTTP/1.1 200')).toBeGreaterThan(0);
  });

  it('does not run requests queued behind a response that closes the connection', async () => {
    let ran = 0;
    const port = await serve([
      {
        path: '/last',
        secure: false,
        handler: async (_req, res) => {
          await new Promise((r) => setImmediate(r));
          res.writeHead(200, ['Connection', 'close', 'Content-Length', '0']);
          res.end();
        },
      },
      {
        path: '/count',
        secure: false,
        handler: (_req, res) => {
          ran++;
          res.end();
        },
      },
    ]);
    const text = await exchange(port, 'GET /last HTTP/1.1\r\nHost: x\r\n\r\nGET /count HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(text).toMatch(/^HTTP\/1\.1 200 /);
    expect(ran).toBe(0);
  });

  it('closes a connection that pipelines too deep behind a request still being handled', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const port = await serve([
      {
        path: '/wait',
        secure: false,
        handler: async (_req, res) => {
          await gate;
          res.end();
        },
      },
      hello,
    ]);
    const text = await exchange(port, 'GET /wait HTTP/1.1\r\nHost: x\r\n\r\n' + 'GET /hello HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(500), 5_000);
    release();
    // Closed by the server (not by the 5 s fallback), with nothing answered.
    expect(text).toBe('');
  });
});

describe('write deadline per connection', () => {
  it('leaves an idle keep-alive connection open past the deadline', async () => {
    const router = createRouter({ routes: [hello], writeTimeoutMs: 100 });
    server = createServer(router.handle);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as AddressInfo).port;
    const socket = connect(port, '127.0.0.1');
    let closed = false;
    socket.on('close', () => (closed = true));
    socket.write('GET /hello HTTP/1.1\r\nHost: x\r\n\r\n');
    await once(socket, 'data');
    await new Promise((r) => setTimeout(r, 400));
    expect(closed).toBe(false);
    // The deadline is re-armed for the next request: it is answered, not cut off.
    socket.write('GET /hello HTTP/1.1\r\nHost: x\r\n\r\n');
    const [again] = (await once(socket, 'data')) as [Buffer];
    expect(again.toString()).toMatch(/^HTTP\/1\.1 200 /);
    socket.destroy();
  });

  it('lists the responses being served for stop()', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const router = createRouter({
      routes: [
        hello,
        {
          path: '/wait',
          secure: false,
          handler: async (_req, res) => {
            await gate;
            res.end();
          },
        },
      ],
    });
    server = createServer(router.handle);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as AddressInfo).port;
    await send(port, 'GET', '/hello');
    const waiting = send(port, 'GET', '/wait');
    await vi.waitFor(() => expect([...router.inFlight()]).toHaveLength(1));
    release();
    await waiting;
    await vi.waitFor(() => expect([...router.inFlight()]).toHaveLength(0));
  });
});

describe('request lines and targets Go refuses or routes differently', () => {
  it("answers HTTP/2.0 with Go's 505, byte for byte", async () => {
    const port = await serve([hello]);
    expect(await exchange(port, 'GET /hello HTTP/2.0\r\nHost: x\r\n\r\n')).toBe(
      'HTTP/1.1 505 HTTP Version Not Supported: unsupported protocol version\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n505 HTTP Version Not Supported: unsupported protocol version',
    );
  });

  it("answers a request line without a version with Go's 400, byte for byte", async () => {
    const port = await serve([hello]);
    expect(await exchange(port, 'GET /hello\r\n\r\n')).toBe('HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request');
  });

  it("answers a broken escape with Go's 400 before routing", async () => {
    const port = await serve([hello]);
    expect(await exchange(port, 'GET /hel%zzlo HTTP/1.1\r\nHost: x\r\n\r\n')).toBe('HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request');
  });

  it('routes an absolute-form target with ? before the path to / (307 to /?<query>, as Go)', async () => {
    const port = await serve([hello]);
    const text = await exchange(port, 'GET http://h?/hello HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n');
    expect(text).toMatch(/^HTTP\/1\.1 307 Temporary Redirect\r\n/);
    expect(text).toContain('Location: /?/hello\r\n');
    expect(text.endsWith('<a href="/?/hello">Temporary Redirect</a>.\n\n')).toBe(true);
  });

  // What Go 1.26.8's net/http answers a ServeMux with the same routes (probed by hand), for each target.
  it.each([
    ['/hel%6co', 200, undefined],
    ['/a/../hel%6co', 307, '/hel%256co'],
    ['/%2E%2E/hello', 404, undefined],
    ['/a/%2E%2E/hello', 404, undefined],
    ['/hello%2F', 404, undefined],
    ['/a/..%2Fhello', 404, undefined],
    ['/./hello', 307, '/hello'],
    ['/hello/.', 307, '/hello'],
    ['/hello/..', 307, '/'],
    ['/a/../h#x', 307, '/h%2523x'],
    ['/a/../b?c#d', 307, '/b?c#d'],
    ['/x/../hello?a=%ZZ', 307, '/hello?a=%ZZ'],
    ['/a/../x%20y', 307, '/x%2520y'],
    ['http://h:1/hello', 200, undefined],
    ['http://[::1]:80/hello', 200, undefined],
    ['http://user@h/hello', 200, undefined],
    ['http://h:/hello', 200, undefined],
    ['HTTP://h/hello', 200, undefined],
    ['ftp://a:1:2/hello', 200, undefined],
    ['http://h:1:2/hello', 400, undefined],
    ['http://::1/hello', 400, undefined],
    ['http://h:x/hello', 400, undefined],
    ['http://[1.2.3.4]/hello', 400, undefined],
    ['http://a%41b/hello', 400, undefined],
    ['http://u%ZZ@h/hello', 400, undefined],
  ])('answers GET %s as Go 1.26 ServeMux does: %i', async (target, status, location) => {
    const port = await serve([hello, { path: '/', secure: false, handler: (_req, res) => res.end('root') }]);
    const text = await exchange(port, `GET ${target} HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n`);
    expect(Number(text.slice(9, 12))).toBe(status);
    if (location !== undefined) expect(text).toContain(`\r\nLocation: ${location}\r\n`);
  });

  it('matches escaped segments one by one below a subtree pattern', async () => {
    const port = await serve([{ path: '/tree/', secure: false, handler: (_req, res) => res.end('tree') }]);
    expect(await exchange(port, 'GET /tr%65e/a%2Fb HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n')).toMatch(/tree$/);
    expect(await exchange(port, 'GET /tree%2Fa HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1\.1 404 /);
    const bare = await exchange(port, 'GET /tree?x=1 HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n');
    expect(bare).toMatch(/^HTTP\/1\.1 307 Temporary Redirect\r\n/);
    expect(bare).toContain('\r\nLocation: /tree/?x=1\r\n');
  });

  it('keeps # in the path (404), and refuses * for methods other than OPTIONS', async () => {
    const port = await serve([hello]);
    expect(await exchange(port, 'GET /hello#x HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1\.1 404 /);
    expect(await exchange(port, 'GET * HTTP/1.1\r\nHost: h\r\n\r\n')).toMatch(/^HTTP\/1\.1 400 Bad Request\r\nConnection: close\r\n/);
  });
});

describe('the Host header, as Go checks it before any handler', () => {
  const goError = (line: string): string => `HTTP/1.1 ${line}\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n${line}`;

  it('answers two Host headers with a plain 400, as Go does (Node alone would serve it)', async () => {
    const port = await serve([hello], {}, true);
    expect(await exchange(port, 'GET /hello HTTP/1.1\r\nHost: a\r\nhost: b\r\n\r\n')).toBe(goError('400 Bad Request'));
  });

  it('answers a missing Host on HTTP/1.1 and a malformed one with their reasons, and serves HTTP/1.0 without one', async () => {
    const port = await serve([hello], {}, true);
    expect(await exchange(port, 'GET /hello HTTP/1.1\r\n\r\n')).toBe(goError('400 Bad Request: missing required Host header'));
    expect(await exchange(port, 'GET /hello HTTP/1.1\r\nHost: a"b\r\n\r\n')).toBe(goError('400 Bad Request: malformed Host header'));
    expect(await exchange(port, 'GET /hello HTTP/1.0\r\n\r\n')).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
  });

  it("still serves 3,001 cookies: Fabric's handlers never parse them, so Go 1.26's cookie limit never applies", async () => {
    const port = await serve([hello], {}, true);
    // Short pairs, so the header block stays small.
    const cookies = Array.from({ length: 3001 }, () => 'a=1').join('; ');
    expect(await exchange(port, `GET /hello HTTP/1.1\r\nHost: h\r\nCookie: ${cookies}\r\nConnection: close\r\n\r\n`)).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
  });
});

describe('router body limit', () => {
  it('makes bodyLimitBytes the default of readBody for its requests', async () => {
    const port = await serve(
      [
        {
          path: '/put',
          secure: false,
          handler: async (req, res) => {
            res.end(await readBody(req));
          },
        },
      ],
      { bodyLimitBytes: 10 },
    );
    const reply = await send(port, 'PUT', '/put', {}, 'x'.repeat(11));
    expect(reply.status).toBe(413);
    expect(JSON.parse(reply.body)).toEqual({ error: 'request body is larger than 10 bytes' });
    expect((await send(port, 'PUT', '/put', {}, 'x'.repeat(10))).body).toBe('x'.repeat(10));
  });
});

describe('a refused body', () => {
  it('is answered 413, then the connection drains what the client still sends instead of resetting it', async () => {
    const router = createRouter({ routes: [{ path: '/put', secure: false, handler: async (req, res) => void (await readBody(req, { limit: 10 }), res.end()) }] });
    const server = createServer(serverOptionsFor(DEFAULT_SERVER_LIMITS), router.handle).listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      // Half-open, as a client that has not read the answer yet: it keeps writing its body.
      const socket = connect({ port: (server.address() as AddressInfo).port, host: '127.0.0.1', allowHalfOpen: true });
      await once(socket, 'connect');
      const errors: Error[] = [];
      socket.on('error', (error) => errors.push(error));
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
      const ended = once(socket, 'end');
      socket.write('PUT /put HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n14\r\n' + 'x'.repeat(20) + '\r\n');
      await ended;
      expect(text.startsWith('HTTP/1.1 413')).toBe(true);
      // The client is still sending its body: the server must not answer that with a reset.
      for (let i = 0; i < 8; i++) socket.write(`10000\r\n${'y'.repeat(0x10000)}\r\n`);
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(errors).toEqual([]);
      socket.destroy();
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

describe("answerClientErrorAsGo: Go's bytes for requests Node's parser refuses", () => {
  const goText = (status: string, body = status): string => `HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n${body}`;

  async function serveWithGoErrors(): Promise<number> {
    const echo: Route = {
      path: '/echo',
      secure: false,
      handler: async (req, res) => {
        res.end(await readBody(req));
      },
    };
    const router = createRouter({ routes: [hello, echo] });
    server = createServer(serverOptionsFor(DEFAULT_SERVER_LIMITS), router.handle);
    server.on('clientError', answerClientErrorAsGo);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return (server.address() as AddressInfo).port;
  }

  it("answers an empty Content-Length and a bare LF in a chunked body with Go's text/plain 400", async () => {
    const port = await serveWithGoErrors();
    expect(await exchange(port, 'PUT /hello HTTP/1.1\r\nHost: x\r\nContent-Length:\r\n\r\n')).toBe(goText('400 Bad Request'));
    expect(await exchange(port, 'PUT /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\nabc\r\n0\r\n\r\n')).toBe(goText('400 Bad Request'));
  });

  it("answers an oversized header block with Go's 431", async () => {
    const port = await serveWithGoErrors();
    expect(await exchange(port, `GET /hello HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(1024 * 1024 + 8192)}\r\n\r\n`)).toBe(goText('431 Request Header Fields Too Large'));
  });
});
