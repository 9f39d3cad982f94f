// Healthy targets sorted after many black holes (listening sockets that accept and never
// answer) finish within --deadline: a black hole holds a --concurrency slot only PARK_AFTER_MS
// before it waits on its own.
import { createServer as createHttpServer } from 'node:http';
import { createServer as createNetServer, type Server, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import type { FleetOptions } from './args.ts';
import { runFleetCommand } from './fleet.ts';

const servers: Server[] = [];
const sockets: Socket[] = [];
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

async function listen(server: Server, host: string): Promise<string> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return `${host}:${(server.address() as { port: number }).port}`;
}

/** Accepts, reads, never answers. */
const blackHole = (): Promise<string> =>
  listen(
    createNetServer((socket) => sockets.push(socket.on('error', () => undefined))),
    '127.0.0.1',
  );

let busy = 0;
let mostBusy = 0;
/** Answers /healthz as a healthy node does, after a few milliseconds; counts the requests in progress. */
const healthy = (): Promise<string> =>
  listen(
    createHttpServer((_req, res) => {
      busy++;
      mostBusy = Math.max(mostBusy, busy);
      setTimeout(() => {
        busy--;
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"status":"OK","time":"t"}');
      }, 5);
    }),
    '127.0.0.2',
  );

describe('a fleet with black holes sorted first', () => {
  it('brings every healthy row back ok within --deadline', async () => {
    // 127.0.0.1 sorts before 127.0.0.2: every black hole comes first.
    const holes = await Promise.all(Array.from({ length: 300 }, blackHole));
    const good = await Promise.all(Array.from({ length: 60 }, healthy));
    const fleet: FleetOptions = { targetFiles: [], addresses: [...holes, ...good], concurrency: 16, deadlineMs: 5_000, dryRun: false, rollback: false };
    const started = performance.now();
    const result = await runFleetCommand({ kind: 'health', endpoint: 'healthz', verbose: false }, { address: '127.0.0.1:9443', tls: false, timeoutMs: 3_000 }, fleet);
    const seconds = (performance.now() - started) / 1000;
    const rows = new Map(result.rows.map((row) => [row.target, row]));
    expect(good.filter((address) => rows.get(address)?.ok !== true)).toEqual([]);
    // The black holes waited their full --timeout, or to the deadline for those parked last.
    for (const address of holes) expect(['timeout', 'deadline']).toContain(rows.get(address)?.reason);
    expect(result.rows).toHaveLength(holes.length + good.length);
    // Only the black holes' first requests waited without a slot: the healthy nodes were asked a few at a time.
    expect(mostBusy).toBeLessThan(good.length);
    expect(seconds).toBeLessThan(5.5);
    expect(result.exitCode).toBe(1);
  }, 20_000);

  it('changes at most --concurrency nodes at once, although slow first answers gave their slots up', async () => {
    let putting = 0;
    let mostPutting = 0;
    const slowReadNode = () =>
      listen(
        createHttpServer((req, res) => {
          if (req.method === 'PUT') {
            putting++;
            mostPutting = Math.max(mostPutting, putting);
            req.resume();
            setTimeout(() => {
              putting--;
              res.writeHead(204).end();
            }, 40);
          } else setTimeout(() => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"spec":"info"}'), 250);
        }),
        '127.0.0.3',
      );
    const nodes = await Promise.all(Array.from({ length: 24 }, slowReadNode));
    const fleet: FleetOptions = { targetFiles: [], addresses: nodes, concurrency: 3, deadlineMs: 15_000, dryRun: false, rollback: false };
    const result = await runFleetCommand({ kind: 'logspec-set', spec: 'debug' }, { address: '127.0.0.1:9443', tls: false, timeoutMs: 5_000 }, fleet);
    expect(result.rows.filter((row) => !row.ok)).toEqual([]);
    expect(mostPutting).toBeGreaterThan(0);
    expect(mostPutting).toBeLessThanOrEqual(3);
  }, 20_000);
});
