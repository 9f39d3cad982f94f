import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRouter } from '@fabric-ops/ops-http';
import { send, type Reply } from '@fabric-ops/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { createHealthEndpoints, type HealthEndpoints, type HealthEndpointsOptions } from './handlers.ts';
import { createHealthRegistry, type HealthOptions, type HealthRegistry } from './registry.ts';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((r) => server.close(r));
});

async function serve(options: HealthOptions = {}, endpointOptions: HealthEndpointsOptions = {}): Promise<{ registry: HealthRegistry; endpoints: HealthEndpoints; port: number }> {
  const registry = createHealthRegistry(options);
  const endpoints = createHealthEndpoints(registry, endpointOptions);
  const router = createRouter({ routes: endpoints.routes });
  const server = createServer(router.handle);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { registry, endpoints, port: (server.address() as AddressInfo).port };
}

/** A request to the test server; its answer whatever the status. */
function get(port: number, path: string, method = 'GET'): Promise<Reply> {
  return send(`127.0.0.1:${port}`, path, { method, timeoutMs: 20_000 });
}

/** Registers a check that runs until `release()`; `running` settles once it has started. */
function registerHeldCheck(registry: HealthRegistry, component: string): { running: Promise<void>; release: () => void } {
  let release!: () => void;
  let started!: () => void;
  const running = new Promise<void>((r) => (started = r));
  registry.register(component, () => {
    started();
    return new Promise<void>((r) => (release = r));
  });
  return { running, release: () => release() };
}

const TIME = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d{1,9})?(Z|[+-]\\d\\d:\\d\\d)';

describe('/healthz (Fabric shape)', () => {
  it('answers 200 {"status":"OK","time":...} with no trailing newline and no extra headers', async () => {
    const { port, registry } = await serve();
    registry.register('fine', async () => {});
    const reply = await get(port, '/healthz');
    expect(reply.status).toBe(200);
    expect(reply.body).toMatch(new RegExp(`^\\{"status":"OK","time":"${TIME}"\\}$`));
    expect(reply.headers['content-type']).toBe('application/json');
    expect(reply.headers['cache-control']).toBeUndefined();
    expect(reply.headers['x-request-id']).toBeTruthy();
  });

  it('answers 503 with sorted failed_checks and Go escaping', async () => {
    const { port, registry } = await serve();
    registry.register('zeta', async () => Promise.reject(new Error('z <down> & out')));
    registry.register('alpha', async () => Promise.reject(new Error('a down')));
    registry.register('ok', async () => {});
    const reply = await get(port, '/healthz');
    expect(reply.status).toBe(503);
    expect(reply.body).toMatch(
      new RegExp(
        `^\\{"status":"Service Unavailable","time":"${TIME}","failed_checks":\\[\\{"component":"alpha","reason":"a down"\\},\\{"component":"zeta","reason":"z \\\\u003cdown\\\\u003e \\\\u0026 out"\\}\\]\\}$`,
      ),
    );
  });

  it.each(['HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS'])('answers %s with 405 and an empty body', async (method) => {
    const { port } = await serve();
    const reply = await get(port, '/healthz', method);
    expect(reply.status).toBe(405);
    expect(reply.body).toBe('');
    expect(reply.headers['content-type']).toBeUndefined();
    expect(reply.headers['content-length']).toBe('0');
  });

  it('answers 408 with an empty body when the overall deadline passes first', async () => {
    const { port, registry } = await serve({ deadlineMs: 100, checkTimeoutMs: 30_000 });
    registry.register('hung', (signal) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))));
    const reply = await get(port, '/healthz');
    expect(reply.status).toBe(408);
    expect(reply.body).toBe('');
    expect(reply.headers['content-length']).toBe('0');
    registry.deregister('hung');
  });

  it('answers a named failure when one check hangs past its own timeout', async () => {
    const { port, registry } = await serve({ checkTimeoutMs: 100 });
    registry.register('hung', () => new Promise(() => {}));
    const reply = await get(port, '/healthz');
    expect(reply.status).toBe(503);
    expect(JSON.parse(reply.body).failed_checks).toEqual([{ component: 'hung', reason: 'health check timed out after 100ms' }]);
  });

  it.each(['/healthz?verbose', '/healthz?verbose=1', '/healthz?foo=bar&verbose'])('answers %s exactly as plain /healthz: Fabric ignores the query', async (target) => {
    const { port, registry } = await serve();
    registry.register('b', async () => Promise.reject(new Error('b down')));
    registry.register('a', async () => {});
    const plain = await get(port, '/healthz');
    const reply = await get(port, target);
    expect(reply.status).toBe(503);
    expect(reply.headers['content-type']).toBe('application/json');
    expect(reply.headers['cache-control']).toBeUndefined();
    const withoutTime = (body: string) => body.replace(/"time":"[^"]+"/, '"time":""');
    expect(withoutTime(reply.body)).toBe(withoutTime(plain.body));
    expect(Object.keys(reply.headers).sort()).toEqual(Object.keys(plain.headers).sort());
  });

  it('ignores other query strings as Fabric does', async () => {
    const { port } = await serve();
    const reply = await get(port, '/healthz?foo=bar');
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('application/json');
  });
});

describe('a client that leaves before the answer', () => {
  it('gets nothing written and the server keeps serving', async () => {
    const { port, registry } = await serve();
    const { running, release } = registerHeldCheck(registry, 'slow');
    const req = request({ host: '127.0.0.1', port, path: '/healthz', agent: false });
    req.on('error', () => {});
    req.end();
    await running;
    req.destroy();
    await new Promise((r) => setTimeout(r, 50));
    release();
    registry.deregister('slow');
    expect((await get(port, '/healthz')).status).toBe(200);
  });
});

describe('/healthz/<component>', () => {
  it('runs one check and answers in the Fabric shape with no-store', async () => {
    const { port, registry } = await serve();
    let otherRan = false;
    registry.register('docker', async () => Promise.reject(new Error('daemon down')));
    registry.register('other', async () => {
      otherRan = true;
    });
    const reply = await get(port, '/healthz/docker');
    expect(reply.status).toBe(503);
    expect(JSON.parse(reply.body)).toMatchObject({ status: 'Service Unavailable', failed_checks: [{ component: 'docker', reason: 'daemon down' }] });
    expect(reply.headers['cache-control']).toBe('no-store');
    expect(otherRan).toBe(false);
    const fine = await get(port, '/healthz/other');
    expect(fine.status).toBe(200);
    expect(JSON.parse(fine.body)).toEqual({ status: 'OK', time: expect.any(String) });
    const head = await get(port, '/healthz/other', 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
  });

  it('keeps ?verbose: one line per check as text, marked no-store', async () => {
    const { port, registry } = await serve();
    registry.register('docker', async () => Promise.reject(new Error('daemon down')));
    const reply = await get(port, '/healthz/docker?verbose');
    expect(reply.status).toBe(503);
    expect(reply.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(reply.headers['cache-control']).toBe('no-store');
    expect(reply.body).toMatch(/^\[-\]docker failed: daemon down \([\d.]+[µnm]?s\)\nhealthz\/docker check failed\n$/);
  });

  it('answers Go 404s for /healthz/ itself and unknown components, 405 for other methods', async () => {
    const { port, registry } = await serve();
    registry.register('docker', async () => {});
    for (const path of ['/healthz/', '/healthz/nope']) {
      const reply = await get(port, path);
      expect(reply.status).toBe(404);
      expect(reply.body).toBe('404 page not found\n');
      expect(reply.headers['x-request-id']).toBeUndefined();
    }
    const post = await get(port, '/healthz/docker', 'POST');
    expect(post.status).toBe(405);
    expect(post.headers['allow']).toBe('GET, HEAD');
  });
});

describe('/livez and /readyz', () => {
  it('livez is 200 without running checks, also while shutting down', async () => {
    const { port, registry, endpoints } = await serve();
    registry.register('down', async () => Promise.reject(new Error('down')));
    const live = await get(port, '/livez');
    expect(live.status).toBe(200);
    expect(live.body).toMatch(new RegExp(`^\\{"status":"OK","time":"${TIME}"\\}$`));
    expect(live.headers['cache-control']).toBe('no-store');
    endpoints.beginShutdown();
    expect((await get(port, '/livez')).status).toBe(200);
    expect((await get(port, '/livez?verbose')).body).toBe('[+]ping ok\nlivez check passed\n');
    expect((await get(port, '/livez', 'HEAD')).status).toBe(200);
    expect((await get(port, '/livez', 'DELETE')).status).toBe(405);
  });

  it('readyz runs the checks, then fails as soon as shutdown begins', async () => {
    const { port, registry, endpoints } = await serve();
    registry.register('fine', async () => {});
    const ready = await get(port, '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.headers['cache-control']).toBe('no-store');
    expect(endpoints.isShuttingDown()).toBe(false);
    endpoints.beginShutdown();
    const draining = await get(port, '/readyz');
    expect(draining.status).toBe(503);
    expect(JSON.parse(draining.body)).toMatchObject({ status: 'Service Unavailable', failed_checks: [{ component: 'shutdown', reason: 'the process is shutting down' }] });
    const verbose = await get(port, '/readyz?verbose');
    expect(verbose.status).toBe(503);
    expect(verbose.body).toBe('[-]shutdown failed: the process is shutting down\nreadyz check failed\n');
    // /healthz keeps Fabric's meaning during shutdown: it reports the checks.
    expect((await get(port, '/healthz')).status).toBe(200);
  });

  it('readyz answers "not ready" when shutdown begins while its checks run', async () => {
    const { port, registry, endpoints } = await serve();
    const { running, release } = registerHeldCheck(registry, 'slow');
    const reply = get(port, '/readyz');
    await running;
    endpoints.beginShutdown();
    release();
    const answer = await reply;
    expect(answer.status).toBe(503);
    expect(JSON.parse(answer.body).failed_checks).toEqual([{ component: 'shutdown', reason: 'the process is shutting down' }]);
  });

  it('readyz fails when a check fails', async () => {
    const { port, registry } = await serve();
    registry.register('down', async () => Promise.reject(new Error('down')));
    const reply = await get(port, '/readyz?verbose');
    expect(reply.status).toBe(503);
    expect(reply.body).toMatch(/^\[-\]down failed: down \(.+\)\nreadyz check failed\n$/);
  });
});

describe('healthzComponent under other mount points', () => {
  type Listener = (req: IncomingMessage, res: ServerResponse) => void;
  // How each framework hands a request to a handler mounted below `/ops/healthz`.
  const shapes: Record<string, (handler: HealthEndpoints['healthzComponent']) => Listener> = {
    'node:http at /ops/healthz/': (handler) => (req, res) => void handler(req, res),
    // Fastify: `fastify.get('/ops/healthz/*', (request, reply) => handler(request.raw, reply.raw))`; the raw url is untouched.
    'Fastify request.raw': (handler) => (req, res) => void handler(req, res),
    // Express `app.get('/ops/healthz/:component', handler)`: url untouched, params added.
    'Express route with params': (handler) => (req, res) => {
      Object.assign(req, { params: { component: 'ignored' }, originalUrl: req.url, baseUrl: '' });
      void handler(req, res);
    },
    // Express `app.use('/ops/healthz', handler)`: the mount path is cut from req.url.
    "Express app.use('/ops/healthz')": (handler) => (req, res) => {
      const originalUrl = req.url ?? '/';
      Object.assign(req, { originalUrl, baseUrl: '/ops/healthz', url: originalUrl.slice('/ops/healthz'.length) || '/' });
      void handler(req, res);
    },
  };

  for (const [shape, mount] of Object.entries(shapes)) {
    it(`finds the component as ${shape}`, async () => {
      const registry = createHealthRegistry();
      registry.register('docker', async () => Promise.reject(new Error('daemon down')));
      registry.register('ledger', async () => {});
      const endpoints = createHealthEndpoints(registry);
      const server = createServer(mount(endpoints.healthzComponent));
      servers.push(server);
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const port = (server.address() as AddressInfo).port;

      const failing = await get(port, '/ops/healthz/docker');
      expect(failing.status).toBe(503);
      expect(JSON.parse(failing.body).failed_checks).toEqual([{ component: 'docker', reason: 'daemon down' }]);
      expect((await get(port, '/ops/healthz/ledger')).status).toBe(200);
      expect((await get(port, '/ops/healthz/ledger?verbose')).body).toMatch(/^\[\+\]ledger ok \(.+\)\nhealthz\/ledger check passed\n$/);
      expect((await get(port, '/ops/healthz/nope')).status).toBe(404);
      expect((await get(port, '/ops/healthz/')).status).toBe(404);
    });
  }

  it('behind the package routes, answers 404 for paths deeper than one component', async () => {
    const { port, registry } = await serve();
    registry.register('docker', async () => {});
    expect((await get(port, '/healthz/docker')).status).toBe(200);
    expect((await get(port, '/healthz/x/docker')).status).toBe(404);
  });
});

describe('readiness the application controls', () => {
  it("with requireReadySignal, /readyz is 503 until signalReady(); /healthz keeps Fabric's answer throughout", async () => {
    const { port, registry, endpoints } = await serve({}, { requireReadySignal: true });
    let checked = 0;
    registry.register('fine', async () => {
      checked++;
    });
    const waiting = await get(port, '/readyz');
    expect(waiting.status).toBe(503);
    expect(JSON.parse(waiting.body)).toMatchObject({ status: 'Service Unavailable', failed_checks: [{ component: 'ready-signal', reason: 'the application has not signalled ready yet' }] });
    expect(checked).toBe(0);
    expect((await get(port, '/healthz')).status).toBe(200);
    expect((await get(port, '/livez')).status).toBe(200);
    endpoints.readiness.signalReady();
    expect((await get(port, '/readyz')).status).toBe(200);
    endpoints.readiness.signalNotReady('draining the queue');
    const verbose = await get(port, '/readyz?verbose');
    expect(verbose.status).toBe(503);
    expect(verbose.body).toBe('[-]ready-signal failed: draining the queue\nreadyz check failed\n');
  });

  it('holds /readyz at 503 while a blocking task runs, then answers from the checks', async () => {
    const { port, registry, endpoints } = await serve();
    registry.register('down', async () => Promise.reject(new Error('down')));
    const task = endpoints.readiness.createBlockingTask('migrations');
    const waiting = await get(port, '/readyz');
    expect(JSON.parse(waiting.body).failed_checks).toEqual([{ component: 'startup', reason: "waiting for start-up task 'migrations'" }]);
    expect(endpoints.readiness.isReady()).toBe(false);
    task.resolve();
    expect(endpoints.readiness.isReady()).toBe(true);
    const checked = await get(port, '/readyz');
    expect(checked.status).toBe(503);
    expect(JSON.parse(checked.body).failed_checks).toEqual([{ component: 'down', reason: 'down' }]);
  });
});

describe('the probe hot path', () => {
  it('/livez: the verbose form only with ?verbose in the query, the JSON form with a current time otherwise', async () => {
    const { port } = await serve();
    for (const target of ['/livez', '/livez?', '/livez?x=1', '/livez?verbosely=1']) {
      const before = Date.now();
      const reply = await get(port, target);
      const after = Date.now();
      expect(reply.status, target).toBe(200);
      const match = new RegExp(`^\\{"status":"OK","time":"(${TIME})"\\}$`).exec(reply.body);
      expect(match, `${target}: ${reply.body}`).not.toBeNull();
      expect(reply.headers['content-length']).toBe(String(Buffer.byteLength(reply.body)));
      expect(reply.headers['content-type']).toBe('application/json');
      expect(reply.headers['cache-control']).toBe('no-store');
      // Millisecond precision survives Date.parse: the time is the time of the answer, not a cached one.
      const at = Date.parse(match![1]!);
      expect(at).toBeGreaterThanOrEqual(before);
      expect(at).toBeLessThanOrEqual(after);
    }
    for (const target of ['/livez?verbose', '/livez?x=1&verbose=true']) {
      const reply = await get(port, target);
      expect(reply.body, target).toBe('[+]ping ok\nlivez check passed\n');
      expect(reply.headers['content-type']).toBe('text/plain; charset=utf-8');
    }
  });

  it('answers /healthz and /readyz without waiting when every result is cached, and runs the check again once it expires', async () => {
    const { registry, endpoints, port } = await serve({ cacheTtlMs: 200 });
    let runs = 0;
    registry.register('counted', () => {
      runs++;
    });
    expect((await get(port, '/healthz')).status).toBe(200);
    expect(runs).toBe(1);
    // Called directly: with the result cached, the handler answers before it returns (no promise).
    const written: { status?: number; body?: string } = {};
    const fake = {
      destroyed: false,
      writableEnded: false,
      writeHead(status: number) {
        written.status = status;
        return fake;
      },
      end(body: string) {
        written.body = body;
        fake.writableEnded = true;
      },
    };
    const res = fake as unknown as ServerResponse;
    const returned = endpoints.healthz({ method: 'GET', url: '/healthz' } as IncomingMessage, res);
    expect(returned).toBeUndefined();
    expect(written.status).toBe(200);
    expect(written.body).toMatch(new RegExp(`^\\{"status":"OK","time":"${TIME}"\\}$`));
    const readyz = await get(port, '/readyz?verbose');
    expect(readyz.body).toMatch(/^\[\+\]counted ok \(.+, cached\)\nreadyz check passed\n$/);
    expect(runs).toBe(1);
    await new Promise((r) => setTimeout(r, 250));
    expect((await get(port, '/readyz')).status).toBe(200);
    expect(runs).toBe(2);
  });

  it('gives every request waiting on one run its own deadline, timed from its own arrival', async () => {
    const { port, registry } = await serve({ deadlineMs: 300, checkTimeoutMs: 30_000 });
    let release: (() => void) | undefined;
    let started = 0;
    registry.register('slow', () => {
      started++;
      return new Promise<void>((resolve) => {
        release = resolve;
      });
    });
    const t0 = performance.now();
    const first = get(port, '/healthz').then((reply) => ({ reply, at: performance.now() - t0 }));
    await new Promise((r) => setTimeout(r, 200));
    const second = get(port, '/readyz').then((reply) => ({ reply, at: performance.now() - t0 }));
    const a = await first;
    expect(a.reply.status).toBe(408);
    expect(a.at).toBeGreaterThanOrEqual(299);
    // The second request joined the same run (one check started) and is still inside its own deadline.
    await new Promise((r) => setTimeout(r, 20));
    expect(started).toBe(1);
    release!();
    const b = await second;
    expect(b.reply.status).toBe(200);
    expect(b.reply.body).toMatch(new RegExp(`^\\{"status":"OK","time":"${TIME}"\\}$`));
  });

  it('keeps answering 408 for a run that never settles, one request after another', async () => {
    const base = createHealthRegistry({ deadlineMs: 50 });
    const never = new Promise<never>(() => {});
    const registry: HealthRegistry = { ...base, run: () => never };
    const router = createRouter({ routes: createHealthEndpoints(registry).routes });
    const server = createServer(router.handle);
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    for (let i = 0; i < 3; i++) expect((await get(port, '/healthz')).status).toBe(408);
  });

  it('answers 408 to each of many requests waiting on one hung run, none before its deadline', async () => {
    const { port, registry } = await serve({ deadlineMs: 150, checkTimeoutMs: 30_000 });
    registry.register('hung', (signal) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))));
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        new Promise((r) => setTimeout(r, i * 5)).then(() => {
          const sent = performance.now();
          return get(port, i % 2 === 0 ? '/healthz' : '/readyz').then((reply) => ({ reply, waited: performance.now() - sent }));
        }),
      ),
    );
    for (const { reply, waited } of replies) {
      expect(reply.status).toBe(408);
      expect(reply.body).toBe('');
      expect(waited).toBeGreaterThanOrEqual(149);
    }
    registry.deregister('hung');
  });
});
