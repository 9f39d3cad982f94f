// examples/frameworks: the operations handlers mounted under /ops in real Express 4 and 5,
// Fastify 4 and 5 and plain node:http services answer every request exactly as the operations
// server (ops-server, on its own listener) answers the same request at the root.
import { fork } from 'node:child_process';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogging } from '@fabric-ops/ops-logspec';
import { createOperationsSystem, type OperationsSystem } from '@fabric-ops/ops-server';
import { plainEnv, runExample } from './run-example.ts';

interface Answer {
  readonly status: number;
  readonly contentType: string | null;
  readonly body: string;
}

interface Step {
  readonly method: string;
  readonly path: string;
  readonly body?: string;
  readonly contentType?: string;
  /** The database the `orders-db` check reaches, before the request. */
  readonly databaseReachable?: boolean;
  /** Only status and content type must match (a body parser's own error text). */
  readonly textMayDiffer?: boolean;
}

const JSON_TYPE = 'application/json';
const FORM_TYPE = 'application/x-www-form-urlencoded'; // what curl -d sends

// One conversation, stateful (PUT then GET): run against the operations server and against each
// mounted variant, every answer compared.
const STEPS: readonly Step[] = [
  { method: 'GET', path: '/logspec' },
  { method: 'PUT', path: '/logspec', body: '{"spec":"orders=debug:info"}', contentType: FORM_TYPE },
  { method: 'GET', path: '/logspec' },
  { method: 'PUT', path: '/logspec', body: '{"Spec":"info"}', contentType: JSON_TYPE },
  { method: 'GET', path: '/logspec' },
  { method: 'PUT', path: '/logspec', body: '{"spec":"orders=debug"}', contentType: 'text/plain' },
  { method: 'PUT', path: '/logspec', body: '{"spec":"orders=warn:info"}', contentType: JSON_TYPE },
  { method: 'GET', path: '/logspec' },
  { method: 'PUT', path: '/logspec', body: '{"spec":"orders=loud"}', contentType: JSON_TYPE },
  { method: 'PUT', path: '/logspec', body: '["orders=debug"]', contentType: JSON_TYPE },
  { method: 'PUT', path: '/logspec', body: '{"spec":"orders=debug', contentType: FORM_TYPE },
  { method: 'PUT', path: '/logspec', body: '{"spec":"orders=debug', contentType: JSON_TYPE, textMayDiffer: true },
  { method: 'POST', path: '/logspec', body: '{"spec":"info"}', contentType: JSON_TYPE },
  { method: 'GET', path: '/logspec' },
  { method: 'GET', path: '/healthz' },
  { method: 'GET', path: '/healthz/orders-db' },
  { method: 'GET', path: '/healthz/nope' },
  { method: 'POST', path: '/healthz' },
  { method: 'GET', path: '/healthz', databaseReachable: false },
  { method: 'GET', path: '/healthz/orders-db', databaseReachable: false },
  { method: 'GET', path: '/healthz/orders-db', databaseReachable: true },
  { method: 'GET', path: '/metrics' },
  { method: 'GET', path: '/version' },
  { method: 'PUT', path: '/version', body: '{"spec":"info"}', contentType: JSON_TYPE },
  { method: 'POST', path: '/version', body: 'x', contentType: FORM_TYPE },
  { method: 'DELETE', path: '/version' },
  { method: 'HEAD', path: '/version' },
];

async function ask(base: string, step: Step): Promise<Answer> {
  const res = await fetch(`${base}${step.path}`, {
    method: step.method,
    ...(step.body === undefined ? {} : { body: step.body }),
    headers: step.contentType === undefined ? {} : { 'Content-Type': step.contentType },
    signal: AbortSignal.timeout(20_000),
  });
  const text = await res.text();
  // /healthz carries the time of the check; /metrics differs in its series (compared below).
  const body = step.path === '/metrics' ? '' : text.replace(/"time":"[^"]*"/g, '"time":"…"');
  return { status: res.status, contentType: res.headers.get('content-type'), body };
}

const quiet = () => new Writable({ write: (_chunk, _encoding, done) => done() });

let reference: OperationsSystem;
let referenceDatabaseReachable = true;
let expected: Answer[] = [];

beforeAll(async () => {
  reference = createOperationsSystem({
    listenAddress: '127.0.0.1:0',
    version: { version: '1.0.0', commitSHA: 'example' },
    logging: createLogging({ spec: 'info', format: 'json', destination: quiet() }),
    metrics: { provider: 'prometheus' },
  });
  reference.registerChecker('orders-db', async () => {
    if (!referenceDatabaseReachable) throw new Error('orders database unreachable');
  });
  await reference.start();
  expected = [];
  for (const step of STEPS) {
    referenceDatabaseReachable = step.databaseReachable ?? referenceDatabaseReachable;
    expected.push(await ask(`http://${reference.address()}`, step));
  }
});

afterAll(async () => {
  await reference?.stop();
});

/** One variant served by frameworks-harness.mjs in its own plain Node process. */
interface Mounted {
  readonly base: string;
  /** Sets the orders-db check's database (when given); resolves with the `orders` logger's level. */
  control(reachable?: boolean): Promise<string>;
  close(): Promise<void>;
}

async function serve(variant: string, packageName = ''): Promise<Mounted> {
  const child = fork(fileURLToPath(new URL('./frameworks-harness.mjs', import.meta.url)), [variant, packageName], {
    execArgv: [],
    env: plainEnv(),
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const pending = new Map<number, (orders: string) => void>();
  let nextId = 0;
  const base = await new Promise<string>((resolve, reject) => {
    child.on('message', (message: { base?: string; id?: number; orders?: string }) => {
      if (message.base !== undefined) resolve(message.base);
      if (message.id !== undefined) pending.get(message.id)?.(message.orders ?? '');
    });
    void exited.then(() => reject(new Error(`frameworks-harness ${variant} ${packageName} exited before listening`)));
  });
  return {
    base,
    control: (reachable) =>
      new Promise((resolve) => {
        const id = nextId++;
        pending.set(id, resolve);
        child.send(reachable === undefined ? { id } : { id, reachable });
      }),
    close: async () => {
      child.disconnect();
      await exited;
    },
  };
}

describe.each([
  ['Express 5, behind express.json()', 'express', 'express'],
  ['Express 4, behind express.json()', 'express', 'express4'],
  ['Fastify 5', 'fastify', 'fastify'],
  ['Fastify 4', 'fastify', 'fastify4'],
  ['node:http', 'node-http', ''],
])('examples/frameworks: the handlers under /ops in %s', (_name, variant, packageName) => {
  it('answer the whole /logspec, /healthz, /healthz/<component>, /metrics, /version conversation as the operations server does', async () => {
    const mounted = await serve(variant, packageName);
    try {
      for (const [i, step] of STEPS.entries()) {
        if (step.databaseReachable !== undefined) await mounted.control(step.databaseReachable);
        const answer = await ask(mounted.base, step);
        const want = expected[i]!;
        const label = `${step.method} ${step.path} ${step.contentType ?? ''} ${step.body ?? ''}`;
        if (step.textMayDiffer === true) expect({ status: answer.status, contentType: answer.contentType }, label).toEqual({ status: want.status, contentType: want.contentType });
        else expect(answer, label).toEqual(want);
      }
      // The accepted PUTs took effect in the service's own logger registry.
      expect(await mounted.control()).toBe('warn');
      expect(await fetch(`${mounted.base}/metrics`).then((r) => r.text())).toMatch(/^process_cpu_seconds_total /m);
    } finally {
      await mounted.close();
    }
  });
});

describe('the answers the variants are compared with', () => {
  it('are the operations server’s own: PUTs accepted whatever the content type, Fabric’s errors, 503 and 404 where due', () => {
    const byStep = (method: string, path: string, extra: Partial<Step> = {}) =>
      expected[STEPS.findIndex((s) => s.method === method && s.path === path && Object.entries(extra).every(([k, v]) => s[k as keyof Step] === v))]!;
    expect(byStep('PUT', '/logspec', { contentType: FORM_TYPE, body: '{"spec":"orders=debug:info"}' }).status).toBe(204);
    expect(expected[2]!.body).toBe('{"spec":"orders=debug:info"}\n');
    expect(byStep('PUT', '/logspec', { body: '{"spec":"orders=loud"}' }).status).toBe(400);
    expect(byStep('GET', '/healthz', { databaseReachable: false }).status).toBe(503);
    expect(byStep('GET', '/healthz/nope').status).toBe(404);
    expect(byStep('GET', '/metrics').contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(byStep('GET', '/version')).toEqual({ status: 200, contentType: JSON_TYPE, body: '{"CommitSHA":"example","Version":"1.0.0"}' });
    expect(byStep('PUT', '/version')).toEqual({ status: 400, contentType: JSON_TYPE, body: '{"Error":"invalid request method: PUT"}' });
    expect(byStep('HEAD', '/version').status).toBe(400);
  });
});

describe.each([
  ['express.mjs', 'express'],
  ['fastify.mjs', 'fastify'],
  ['node-http.mjs', 'node:http'],
])('node examples/frameworks/%s', (file, framework) => {
  it('starts on PORT, serves /orders and /ops/*, and exits 0 on SIGTERM', async () => {
    const running = await runExample(`frameworks/${file}`, /^(\S+): orders service on (http:\/\/127\.0\.0\.1:\d+), operations under (\S+)\n/m, { PORT: '0' });
    let stopped = false;
    try {
      const [, printedName, service, ops] = running.match as unknown as [string, string, string, string];
      expect(printedName).toBe(framework);
      expect(ops).toBe(`${service}/ops`);
      expect(await fetch(`${service}/orders`).then((r) => r.json())).toEqual({ orders: [] });
      const put = await fetch(`${ops}/logspec`, { method: 'PUT', body: '{"spec":"orders=debug:info"}', headers: { 'Content-Type': FORM_TYPE } });
      expect(put.status).toBe(204);
      expect(await fetch(`${ops}/logspec`).then((r) => r.text())).toBe('{"spec":"orders=debug:info"}\n');
      expect((await fetch(`${ops}/healthz/orders-db`)).status).toBe(200);
      expect(await fetch(`${ops}/metrics`).then((r) => r.text())).toMatch(/^orders_requests_served\{outcome="ok"\} 1$/m);
      expect(await fetch(`${ops}/version`).then((r) => r.text())).toBe('{"Version":"1.0.0"}');
      stopped = true;
      expect(await running.stop()).toBe(0);
    } finally {
      if (!stopped) await running.stop();
    }
  });
});
