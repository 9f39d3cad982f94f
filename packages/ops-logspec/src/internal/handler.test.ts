import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRouter } from '@fabric-ops/ops-http';
import { DECODE_CASES, ERROR_CASES, SPEC_CASES } from '@fabric-ops/test-kit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AUDIT_SPEC_LIMIT, logspecHandler } from './handler.ts';
import { createLogging, type Logging } from './registry.ts';

const lines: string[] = [];
let logging: Logging;
let server: Server;
let port = 0;

beforeAll(async () => {
  logging = createLogging({ format: 'json', destination: { write: (line: string) => void lines.push(line) } });
  const router = createRouter({
    routes: [{ path: '/logspec', secure: true, handler: logspecHandler(logging, { identify: (req) => req.headers['x-test-identity'] as string | undefined, bodyLimit: 4096 }) }],
  });
  server = createServer(router.handle).listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  logging.activateSpec('');
  lines.length = 0;
});

function call(method: string, body?: string | Buffer, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/logspec', method, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.setTimeout(10_000, () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end(body);
  });
}

const auditLines = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((r) => r['msg'] === 'logging spec changed');

describe('GET /logspec', () => {
  it('answers 200 application/json {"spec":…} with a newline', async () => {
    logging.activateSpec('b=warn:a=error');
    const reply = await call('GET');
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('application/json');
    expect(reply.body).toBe('{"spec":"a=error:b=warn:info"}\n');
  });
});

describe('PUT /logspec', () => {
  it.each(SPEC_CASES)('%j reads back as %j', async (input, normalised) => {
    const put = await call('PUT', JSON.stringify({ spec: input }));
    expect(put.status).toBe(204);
    expect(put.body).toBe('');
    expect(put.headers['content-type']).toBeUndefined();
    expect((await call('GET')).body).toBe(`${JSON.stringify({ spec: normalised })}\n`);
  });

  it.each(ERROR_CASES)('%j is refused with Fabric’s text and changes nothing', async (spec, message) => {
    logging.activateSpec('fatal:a=warn');
    const put = await call('PUT', JSON.stringify({ spec }));
    expect(put.status).toBe(400);
    expect(put.headers['content-type']).toBe('application/json');
    expect(put.body).toBe(`${JSON.stringify({ error: message })}\n`);
    expect((await call('GET')).body).toBe('{"spec":"a=warn:fatal"}\n');
    expect(auditLines()).toEqual([]);
  });

  it.each(DECODE_CASES)('decode row: $name', async (row) => {
    logging.activateSpec('x=debug:fatal');
    const put = await call('PUT', row.body);
    expect(put.status).toBe(row.status);
    if (row.status === 400) {
      expect(put.body).toBe(`${JSON.stringify({ error: row.error })}\n`);
      expect((await call('GET')).body).toBe('{"spec":"x=debug:fatal"}\n');
    } else {
      expect(put.body).toBe('');
      expect((await call('GET')).body).toBe(`{"spec":"${row.specAfter}"}\n`);
    }
  });

  it('logs each change once at info on the operations logger, with who asked', async () => {
    logging.activateSpec('warn');
    expect((await call('PUT', '{"spec":"a=debug"}', { 'x-test-identity': 'CN=admin,O=Org1' })).status).toBe(204);
    expect((await call('PUT', '{"spec":"info"}')).status).toBe(204);
    const audit = auditLines();
    expect(audit).toHaveLength(2);
    expect(audit[0]).toMatchObject({ level: 30, name: 'operations', oldSpec: 'warn', newSpec: 'a=debug:info', client: 'CN=admin,O=Org1' });
    expect(audit[0]!['remoteAddress']).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(audit[1]).toMatchObject({ oldSpec: 'a=debug:info', newSpec: 'info' });
    expect(audit[1]).not.toHaveProperty('client');
  });

  it('records a change that silences the operations logger, and one that unsilences it', async () => {
    logging.activateSpec('info');
    expect((await call('PUT', '{"spec":"operations=error:info"}')).status).toBe(204);
    expect((await call('PUT', '{"spec":"operations=fatal"}')).status).toBe(204);
    expect((await call('PUT', '{"spec":"debug"}')).status).toBe(204);
    expect(auditLines().map((r) => [r['oldSpec'], r['newSpec']])).toEqual([
      ['info', 'operations=error:info'],
      ['operations=fatal:info', 'debug'],
    ]);
  });

  it('asks who the client is only when the audit line is written', async () => {
    const asked: string[] = [];
    const own = createLogging({ format: 'json', destination: { write: (line: string) => void lines.push(line) } });
    const handler = logspecHandler(own, { identify: () => (asked.push('asked'), 'CN=who') });
    const quiet = createServer(createRouter({ routes: [{ path: '/logspec', secure: true, handler }] }).handle).listen(0, '127.0.0.1');
    await once(quiet, 'listening');
    const put = (spec: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: (quiet.address() as AddressInfo).port, path: '/logspec', method: 'PUT', agent: false }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end(JSON.stringify({ spec }));
      });
    try {
      own.activateSpec('operations=warn:info');
      expect(await put('operations=warn:info')).toBe(204);
      expect(asked).toEqual([]);
      expect(auditLines()).toEqual([]);
      expect(await put('info')).toBe(204);
      expect(asked).toEqual(['asked']);
      expect(auditLines()).toEqual([expect.objectContaining({ oldSpec: 'operations=warn:info', newSpec: 'info', client: 'CN=who' })]);
    } finally {
      quiet.closeAllConnections();
      await new Promise((resolve) => quiet.close(resolve));
    }
  });

  it('refuses a body over the limit with 413 and keeps the spec', async () => {
    logging.activateSpec('warn');
    const put = await call('PUT', JSON.stringify({ spec: 'a'.repeat(5000) }));
    expect(put.status).toBe(413);
    expect((await call('GET')).body).toBe('{"spec":"warn"}\n');
  });
});

describe('other methods', () => {
  it.each(['POST', 'DELETE', 'PATCH', 'OPTIONS'])('%s → 400 with Fabric’s error and newline', async (method) => {
    const reply = await call(method, '{"spec":"debug"}');
    expect(reply.status).toBe(400);
    expect(reply.headers['content-type']).toBe('application/json');
    expect(reply.body).toBe(`{"error":"invalid request method: ${method}"}\n`);
    expect(logging.spec()).toBe('info');
  });

  it('HEAD → 400 with no body', async () => {
    const reply = await call('HEAD');
    expect(reply.status).toBe(400);
    expect(reply.body).toBe('');
  });
});

describe('a logger made before the PUT', () => {
  it('logs at the new level as soon as the 204 is out', async () => {
    const early = logging.getLogger('gossip.privdata').child({ channel: 'c1' });
    early.debug('before');
    expect((await call('PUT', '{"spec":"gossip=debug"}')).status).toBe(204);
    early.debug('after');
    const debug = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((r) => r['level'] === 20 && r['name'] === 'gossip.privdata');
    expect(debug.map((r) => r['msg'])).toEqual(['after']);
  });
});

describe('behind a framework body parser (req.body)', () => {
  // What express.json(), express.text() and express.raw() leave behind: the body on
  // req.body and the request stream consumed. Faked here; no framework is a dependency.
  function parsedServer(parse: (raw: Buffer, req: IncomingMessage) => unknown, path = '/ops/admin/logspec') {
    const handler = logspecHandler(logging);
    return createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        (req as IncomingMessage & { body?: unknown }).body = parse(Buffer.concat(chunks), req);
        // Mounted under a prefix, as app.use('/ops/admin', ...) would.
        if (req.url !== path) {
          res.statusCode = 404;
          res.end();
          return;
        }
        void handler(req, res);
      });
    });
  }

  async function with_<T>(server: Server, run: (port: number) => Promise<T>): Promise<T> {
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      return await run((server.address() as AddressInfo).port);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  }

  function put(port: number, path: string, body: string) {
    return new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path, method: 'PUT', agent: false }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  it.each([
    ['a parsed JSON object (express.json())', (raw: Buffer) => JSON.parse(raw.toString('utf8')) as unknown],
    ['a string (express.text())', (raw: Buffer) => raw.toString('utf8')],
    ['a Buffer (express.raw())', (raw: Buffer) => raw],
  ])('uses %s, under any mount path', async (_name, parse) => {
    await with_(parsedServer(parse), async (port) => {
      expect(await put(port, '/ops/admin/logspec', '{"spec":"b=warn:a=error"}')).toEqual({ status: 204, body: '' });
      expect(logging.spec()).toBe('a=error:b=warn:info');
      expect(auditLines()).toHaveLength(1);
    });
  });

  it.each([
    ['{"spec":5}', 'json: cannot unmarshal number into Go struct field LogSpec.spec of type string'],
    ['{"Spec":{"a":1}}', 'json: cannot unmarshal object into Go struct field LogSpec.spec of type string'],
    ['[]', 'json: cannot unmarshal array into Go value of type httpadmin.LogSpec'],
    ['{"spec":"bogus"}', "invalid logging specification 'bogus': bad segment 'bogus'"],
  ])('answers a parsed %s with Fabric’s 400', async (body, error) => {
    logging.activateSpec('warn');
    await with_(
      parsedServer((raw) => JSON.parse(raw.toString('utf8')) as unknown),
      async (port) => {
        expect(await put(port, '/ops/admin/logspec', body)).toEqual({ status: 400, body: `${JSON.stringify({ error })}\n` });
        expect(logging.spec()).toBe('warn');
      },
    );
  });

  it('resets to info for a parsed null, {} or {"spec":null}, as Go does', async () => {
    for (const body of ['null', '{}', '{"spec":null,"other":1}']) {
      logging.activateSpec('warn');
      await with_(
        parsedServer((raw) => JSON.parse(raw.toString('utf8')) as unknown),
        async (port) => {
          expect((await put(port, '/ops/admin/logspec', body)).status).toBe(204);
        },
      );
      expect(logging.spec()).toBe('info');
    }
  });

  it('reads the stream when a parser left `{}` without reading it (a content type not its own)', async () => {
    const handler = logspecHandler(logging);
    const server = createServer((req, res) => {
      (req as IncomingMessage & { body?: unknown }).body = {};
      void handler(req, res);
    });
    await with_(server, async (port) => {
      expect((await put(port, '/anything', '{"spec":"x=debug"}')).status).toBe(204);
      expect(logging.spec()).toBe('x=debug:info');
    });
  });
});

describe('the audit line of a very large spec', () => {
  it('accepts a 100,000-logger PUT and keeps the line within a few KiB, naming length and hash', async () => {
    const server = createServer(logspecHandler(logging) as (req: IncomingMessage, res: ServerResponse) => void);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const names = Array.from({ length: 100_000 }, (_, i) => `a${i.toString(36)}`);
      const spec = `${names.join(',')}=debug:warn`;
      const body = JSON.stringify({ spec });
      expect(body.length).toBeLessThan(1024 * 1024);
      const reply = await new Promise<number>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, path: '/logspec', method: 'PUT', agent: false }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end(body);
      });
      expect(reply).toBe(204);
      expect(logging.spec().length).toBeGreaterThan(600_000);
      const line = lines.find((l) => l.includes('logging spec changed'))!;
      expect(line.length).toBeLessThanOrEqual(2 * AUDIT_SPEC_LIMIT + 512);
      const record = JSON.parse(line) as Record<string, unknown>;
      expect(record['oldSpec']).toBe('info');
      expect(record['newSpecLength']).toBe(logging.spec().length);
      expect(record['newSpecSha256']).toBe(createHash('sha256').update(logging.spec()).digest('hex').slice(0, 16));
      expect(String(record['newSpec'])).toBe(`${logging.spec().slice(0, AUDIT_SPEC_LIMIT)}…`);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('beforeActivate', () => {
  function fakeExchange(body: unknown): { req: IncomingMessage; res: ServerResponse; status: () => number } {
    let statusCode = 0;
    const req = { method: 'PUT', headers: {}, body, readableEnded: true, socket: { remoteAddress: '127.0.0.1', remotePort: 1 } } as unknown as IncomingMessage;
    const res = {
      headersSent: false,
      writeHead(code: number) {
        statusCode = code;
        return this;
      },
      setHeader() {},
      end() {},
    } as unknown as ServerResponse;
    return { req, res, status: () => statusCode };
  }

  it('runs with the normalised spec before it is activated, and the 204 waits for it', async () => {
    const own = createLogging({ format: 'json', destination: { write() {} } });
    let release: () => void = () => {};
    const seen: string[] = [];
    const handler = logspecHandler(own, {
      beforeActivate: (spec) => {
        seen.push(spec);
        return new Promise<void>((resolve) => (release = resolve));
      },
    });
    const exchange = fakeExchange({ spec: 'b=warn:a=debug' });
    const done = handler(exchange.req, exchange.res);
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual(['a=debug:b=warn:info']);
    expect(own.spec()).toBe('info');
    expect(exchange.status()).toBe(0);
    release();
    await done;
    expect(own.spec()).toBe('a=debug:b=warn:info');
    expect(exchange.status()).toBe(204);
  });

  it('is not called for a refused spec', async () => {
    const own = createLogging({ format: 'json', destination: { write() {} } });
    let calls = 0;
    const handler = logspecHandler(own, { beforeActivate: async () => void calls++ });
    const exchange = fakeExchange({ spec: 'a=nonsense' });
    await handler(exchange.req, exchange.res);
    expect(calls).toBe(0);
    expect(exchange.status()).toBe(400);
  });
});

describe('a large PUT body', () => {
  it('is parsed between turns of the event loop, not in one block', async () => {
    const own = createLogging({ format: 'json', destination: { write() {} } });
    const order: string[] = [];
    const handler = logspecHandler(own, {
      beforeActivate: async () => {
        order.push('activate');
      },
    });
    const spec = Array.from({ length: 20_000 }, (_, i) => `logger${i}=debug`).join(':');
    const exchange = {
      req: { method: 'PUT', headers: {}, body: { spec }, readableEnded: true, socket: { remoteAddress: '127.0.0.1', remotePort: 1 } } as unknown as IncomingMessage,
      res: {
        headersSent: false,
        writeHead() {
          return this;
        },
        setHeader() {},
        end() {},
      } as unknown as ServerResponse,
    };
    setImmediate(() => order.push('other work'));
    await handler(exchange.req, exchange.res);
    expect(order).toEqual(['other work', 'activate']);
    expect(own.levelOf('logger19999')).toBe('debug');
  });
});
