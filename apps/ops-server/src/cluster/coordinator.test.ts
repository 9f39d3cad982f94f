import { EventEmitter } from 'node:events';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ClusterCoordinator, DEPARTED_LIMIT, GREETINGS_PER_WORKER, type CoordinatorEvent } from './coordinator.ts';
import type { KeyedFamily, SeriesFamily, SeriesSnapshot } from '@fabric-ops/ops-metrics/cluster';
import { PROTOCOL_TAG, type PrimaryMessage, type WorkerChannel } from './protocol.ts';
import { encodeValues, ValuesSender } from './worker-series.ts';

/** A worker's series: one counter and one gauge. */
const WORKER_LAYOUT: SeriesFamily[] = [
  { name: 'work_total', help: '', type: 'counter', samples: [['', []]] },
  { name: 'up_gauge', help: '', type: 'gauge', samples: [['', []]] },
];

/** The primary's own series: `work_total` at `value`. */
const ownWork = (value: number): SeriesSnapshot => ({ families: [WORKER_LAYOUT[0]!], values: [value] });
const NOTHING: SeriesSnapshot = { families: [], values: [] };

/** A worker's channel whose answers the test decides. */
class FakeWorker extends EventEmitter implements WorkerChannel {
  readonly received: PrimaryMessage[] = [];
  counted = 0;
  spec = '';
  hung = false;
  failing: { component: string; reason: string }[] = [];
  /** StatsD counter deltas not yet handed over. */
  statsdPending = 0;
  /** What its `ready` says it runs, given the spec it was greeted with (another spelling, or a refusal). */
  readySpec = (spec: string): string => spec;
  /** Answers to init only when true (a worker that dies before joining never answers). */
  greets = true;
  /** When set, every StatsD answer carries this instead of an interval. */
  statsdShape: unknown = undefined;
  /** How its answers are scheduled: a macrotask keeps a message loop from freezing the test. */
  defer: (answer: () => void) => void = queueMicrotask;
  /** Requests received while hung, answered by wake() or answerHeld(). */
  readonly held: PrimaryMessage[] = [];

  /** Reads nothing: what is sent to it stays queued (its write never completes). */
  stalled = false;
  /** How its values travel: floats in base64 (as workers send them), JSON numbers (as earlier workers did), or a torn float. */
  wire: 'floats' | 'json' | 'torn' | 'sender' = 'floats';
  /** With `sender`: numbered replies, only changed values once the primary holds the last ones (ValuesSender, as workers send them). */
  private readonly sender = new ValuesSender();
  /** Replaces the base a delta names (a worker that lies about what the primary holds). */
  forgedBase: number | undefined;
  readonly metricsSent: string[] = [];

  send(message: PrimaryMessage, callback?: (error: Error | null) => void): void {
    this.received.push(message);
    if (this.stalled) return;
    this.defer(() => {
      callback?.(null);
      this.answer(message);
    });
  }

  /** Answers the held request at `index` (out of order when not 0). */
  answerHeld(index: number): void {
    const [message] = this.held.splice(index, 1);
    if (message !== undefined) this.respond(message);
  }

  private reply(body: object): void {
    this.emit('message', { tag: PROTOCOL_TAG, type: 'reply', ...body });
  }

  private answer(message: PrimaryMessage): void {
    if (message.type === 'init') {
      if (!this.greets) return;
      this.spec = message.spec;
      this.emit('message', { tag: PROTOCOL_TAG, type: 'ready', spec: this.readySpec(this.spec) });
      return;
    }
    if (this.hung) {
      this.held.push(message);
      return;
    }
    this.respond(message);
  }

  private respond(message: PrimaryMessage): void {
    if (message.type === 'init') return;
    if (message.op === 'statsd' && this.statsdShape !== undefined) this.reply({ id: message.id, ok: true, statsd: this.statsdShape });
    else if (message.op === 'statsd') {
      const delta = this.statsdPending;
      this.statsdPending = 0;
      this.reply({ id: message.id, ok: true, statsd: { counters: delta > 0 ? [['work_total', delta]] : [], gauges: [['queue', 5, 'queue']], timings: [['took', [0.1]]] } });
    } else if (message.op === 'metrics' && this.wire === 'sender') {
      let fields = this.sender.fields([this.counted, 1], message.layout === 1 ? message.values : undefined);
      if (this.forgedBase !== undefined) fields = fields.replace(/"base":\d+/, `"base":${this.forgedBase}`);
      const metrics = `{"layoutId":1,${message.layout === 1 ? '' : `"layout":${JSON.stringify(WORKER_LAYOUT)},`}${fields}}`;
      this.metricsSent.push(metrics);
      this.reply({ id: message.id, ok: true, metrics });
    } else if (message.op === 'metrics') {
      const values = this.wire === 'json' ? [this.counted, 1] : this.wire === 'floats' ? encodeValues([this.counted, 1]) : Buffer.alloc(12).toString('base64');
      this.reply({ id: message.id, ok: true, metrics: JSON.stringify({ layoutId: 1, ...(message.layout === 1 ? {} : { layout: WORKER_LAYOUT }), values }) });
    } else if (message.op === 'health') this.reply({ id: message.id, ok: true, health: { healthy: this.failing.length === 0, failed: this.failing } });
    else if (message.op === 'logspec') {
      this.spec = message.spec;
      this.reply({ id: message.id, ok: true, spec: message.spec });
    }
  }

  wake(): void {
    this.hung = false;
    for (const message of this.held.splice(0)) this.respond(message);
  }

  die(signal: NodeJS.Signals): void {
    this.emit('exit', null, signal);
  }
}

/** Worker 1, attached and saying hello, answering a macrotask later (so a greeting loop cannot freeze the test) that it runs `readySpec(spec)`. */
function saysHello(coordinator: ClusterCoordinator, readySpec: (spec: string) => string): FakeWorker {
  const worker = new FakeWorker();
  worker.defer = (answer) => setImmediate(answer);
  worker.readySpec = readySpec;
  coordinator.attach('1', worker);
  worker.emit('message', { tag: PROTOCOL_TAG, type: 'hello' });
  return worker;
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

function setUp(workerTimeoutMs = 50) {
  const coordinator = new ClusterCoordinator({ workerTimeoutMs, activeSpec: () => 'debug' });
  const workers = [new FakeWorker(), new FakeWorker()];
  workers.forEach((worker, i) => coordinator.attach(String(i + 1), worker));
  return { coordinator, workers };
}

describe('ClusterCoordinator', () => {
  it('greets each worker with the active spec and counts it once it is ready', async () => {
    const { coordinator, workers } = setUp();
    await tick();
    expect(workers.map((worker) => worker.spec)).toEqual(['debug', 'debug']);
    expect(coordinator.liveCount()).toBe(2);
  });

  it('sums the workers counters with the primary own, and never goes down when one dies or hangs', async () => {
    const { coordinator, workers } = setUp();
    await tick();
    workers[0]!.counted = 10;
    workers[1]!.counted = 5;
    const first = await coordinator.collectMetrics(ownWork(1));
    expect(work(first)).toBe(16);

    workers[1]!.hung = true;
    workers[0]!.counted = 12;
    const whileHung = await coordinator.collectMetrics(ownWork(1));
    expect(work(whileHung)).toBe(18);
    expect(coordinator.timeouts).toBe(1);

    workers[0]!.die('SIGKILL');
    const replacement = new FakeWorker();
    coordinator.attach('3', replacement);
    await tick();
    replacement.counted = 1;
    workers[1]!.hung = false;
    const afterDeath = await coordinator.collectMetrics(ownWork(1));
    // 12 kept from the dead worker + 5 + 1 new + 1 primary
    expect(work(afterDeath)).toBe(19);
  });

  it('reads values as floats or as JSON numbers, and drops a reply whose floats are torn, keeping the last counts', async () => {
    const { coordinator, workers } = setUp();
    await tick();
    workers[0]!.counted = 10;
    workers[1]!.counted = 5;
    workers[1]!.wire = 'json';
    expect(work(await coordinator.collectMetrics(ownWork(1)))).toBe(16);
    workers[0]!.wire = 'torn';
    workers[0]!.counted = 20;
    expect(work(await coordinator.collectMetrics(ownWork(1)))).toBe(16);
    expect(coordinator.dropped).toBe(1);
  });

  it('takes only the values that changed from a worker that numbers its replies, and asks for all again after a delta it cannot place', async () => {
    const { coordinator, workers } = setUp();
    await tick();
    const [first, second] = workers as [FakeWorker, FakeWorker];
    first.wire = second.wire = 'sender';
    first.counted = 10;
    second.counted = 5;
    expect(work(await coordinator.collectMetrics(ownWork(1)))).toBe(16);
    first.counted = 12;
    expect(work(await coordinator.collectMetrics(ownWork(1)))).toBe(18);
    const lastRequest = (worker: FakeWorker) => worker.received.filter((message) => message.type === 'request' && message.op === 'metrics').at(-1);
    expect(lastRequest(first)).toMatchObject({ layout: 1, values: 1 });
    expect(JSON.parse(first.metricsSent.at(-1)!)).toMatchObject({ seq: 2, base: 1, changed: Buffer.from(Uint32Array.of(0).buffer).toString('base64') });
    // Nothing changed: an empty delta.
    expect(JSON.parse(second.metricsSent.at(-1)!)).toMatchObject({ seq: 2, base: 1, changed: '', values: '' });
    // A delta against values the primary does not hold: dropped, the last counts kept.
    first.forgedBase = 99;
    first.counted = 30;
    expect(work(await coordinator.collectMetrics(ownWork(1)))).toBe(18);
    expect(coordinator.dropped).toBe(1);
    // The next request names no values, and the whole answer is taken.
    first.forgedBase = undefined;
    expect(work(await coordinator.collectMetrics(ownWork(1)))).toBe(36);
    expect(lastRequest(first)).not.toHaveProperty('values');
    expect(JSON.parse(first.metricsSent.at(-1)!)).not.toHaveProperty('changed');
    expect(work(await coordinator.collectMetrics(ownWork(1)))).toBe(36);
    expect(coordinator.dropped).toBe(1);
  });

  it('answers one hello at a time until the worker is ready, and greets a worker a bounded number of times', async () => {
    const coordinator = new ClusterCoordinator({ workerTimeoutMs: 50, activeSpec: () => 'debug' });
    const worker = new FakeWorker();
    worker.greets = false;
    coordinator.attach('1', worker);
    const inits = () => worker.received.filter((message) => message.type === 'init').length;
    for (let i = 0; i < 100; i++) worker.emit('message', { tag: PROTOCOL_TAG, type: 'hello' });
    // The greeting on attach, and one for the first hello; the other 99 wait for a `ready` that never comes.
    expect(inits()).toBe(2);
    expect(coordinator.dropped).toBe(99);
    for (let i = 0; i < 100; i++) {
      worker.emit('message', { tag: PROTOCOL_TAG, type: 'hello' });
      worker.emit('message', { tag: PROTOCOL_TAG, type: 'ready', spec: 'debug' });
    }
    expect(inits()).toBe(GREETINGS_PER_WORKER);
    expect(coordinator.liveCount()).toBe(1);
  });

  it('refuses sends past a worker’s queue bound, so a worker that stops reading holds a bounded number of bytes', async () => {
    const spec = 'x'.repeat(3_000);
    const coordinator = new ClusterCoordinator({ workerTimeoutMs: 200, activeSpec: () => spec, maxQueuedBytes: 4_096 });
    const worker = new FakeWorker();
    coordinator.attach('1', worker);
    await tick();
    expect(coordinator.liveCount()).toBe(1);
    worker.stalled = true;
    // Queued: 3 KB of spec and its envelope, never written; the next spec (3 KB more) is over the bound.
    const first = coordinator.broadcastSpec(spec);
    const second = await coordinator.broadcastSpec(spec);
    expect(second).toEqual(['1']);
    expect(await first).toEqual(['1']);
    expect(coordinator.sendsRefused).toBeGreaterThanOrEqual(1);
    expect(worker.received.filter((message) => message.type === 'request')).toHaveLength(1);
  });

  it('acknowledges a spec change once every ready worker has applied it, and names the late ones', async () => {
    const { coordinator, workers } = setUp();
    await tick();
    expect(await coordinator.broadcastSpec('warn')).toEqual([]);
    expect(workers.map((worker) => worker.spec)).toEqual(['warn', 'warn']);
    workers[1]!.hung = true;
    expect(await coordinator.broadcastSpec('info')).toEqual(['2']);
  });

  it('names a failing check, a hung worker and a dead one', async () => {
    const { coordinator, workers } = setUp();
    await tick();
    await expect(coordinator.checkWorker('1')).resolves.toBeUndefined();
    workers[0]!.failing = [{ component: 'db', reason: 'unreachable' }];
    await expect(coordinator.checkWorker('1')).rejects.toThrow('worker 1: db: unreachable');
    workers[1]!.hung = true;
    await expect(coordinator.checkWorker('2')).rejects.toThrow('worker 2 did not answer within 50 ms');
    workers[1]!.die('SIGKILL');
    await expect(coordinator.checkWorker('2')).rejects.toThrow('worker 2 killed by SIGKILL');
    expect([...coordinator.departedWorkers().keys()]).toEqual(['2']);
    coordinator.attach('3', new FakeWorker());
    // named until the replacement has joined
    expect([...coordinator.departedWorkers().keys()]).toEqual(['2']);
    await tick();
    expect([...coordinator.departedWorkers().keys()]).toEqual([]);
  });

  it("survives a dead worker's closed channel: the send error is no crash, the exit is what counts", async () => {
    const { coordinator, workers } = setUp();
    await tick();
    expect(() => workers[0]!.emit('error', new Error('channel closed'))).not.toThrow();
    workers[0]!.die('SIGKILL');
    expect(coordinator.liveCount()).toBe(1);
  });

  describe('StatsD: one push for the cluster', () => {
    const counted = (interval: { counters: readonly (readonly [string, number])[] }) => interval.counters.find(([bucket]) => bucket === 'work_total')?.[1] ?? 0;
    const own = { counters: [['work_total', 1]] as [string, number][], gauges: [['queue', 2, 'queue']] as [string, number, string][], timings: [['took', [0.2]]] as [string, number[]][] };

    it('sums every worker counter delta with the primary, once: a second flush carries only new counts', async () => {
      const { coordinator, workers } = setUp();
      await tick();
      workers[0]!.statsdPending = 3;
      workers[1]!.statsdPending = 4;
      const first = await coordinator.collectStatsd(own);
      expect(counted(first)).toBe(8);
      expect(first.gauges).toEqual([['queue', 12, 'queue']]);
      expect(first.timings).toEqual([['took', [0.2, 0.1, 0.1]]]);
      const second = await coordinator.collectStatsd({ counters: [], gauges: [], timings: [] });
      expect(counted(second)).toBe(0);
    });

    it('leaves a hung worker out without waiting past the timeout, does not ask it again, and pushes its late interval next', async () => {
      const { coordinator, workers } = setUp(30);
      await tick();
      workers[0]!.statsdPending = 3;
      workers[1]!.statsdPending = 4;
      workers[1]!.hung = true;
      const started = Date.now();
      expect(counted(await coordinator.collectStatsd({ counters: [], gauges: [], timings: [] }))).toBe(3);
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(coordinator.timeouts).toBe(1);
      // Still owing its first answer: left out again, counted, and not sent a second request.
      const requestsBefore = workers[1]!.received.length;
      expect(counted(await coordinator.collectStatsd({ counters: [], gauges: [], timings: [] }))).toBe(0);
      expect(workers[1]!.received.length).toBe(requestsBefore);
      expect(coordinator.timeouts).toBe(2);
      workers[1]!.wake();
      await tick();
      workers[1]!.statsdPending = 10;
      const after = await coordinator.collectStatsd({ counters: [], gauges: [], timings: [] });
      // The late interval (4) and the fresh one (10): every increment once; the late gauge is not added to the fresh one.
      expect(counted(after)).toBe(14);
      expect(after.gauges).toEqual([['queue', 10, 'queue']]);
    });

    it('does not count a dead worker again, and pushes what a closing worker handed over', async () => {
      const { coordinator, workers } = setUp();
      await tick();
      workers[0]!.statsdPending = 5;
      expect(counted(await coordinator.collectStatsd({ counters: [], gauges: [], timings: [] }))).toBe(5);
      workers[0]!.emit('message', { tag: PROTOCOL_TAG, type: 'statsd-final', statsd: { counters: [['work_total', 2]], gauges: [], timings: [] } });
      workers[0]!.die('SIGTERM');
      expect(counted(await coordinator.collectStatsd({ counters: [], gauges: [], timings: [] }))).toBe(2);
      expect(counted(await coordinator.collectStatsd({ counters: [], gauges: [], timings: [] }))).toBe(0);
    });

    it('tells each worker the primary metrics provider in its greeting', async () => {
      const coordinator = new ClusterCoordinator({ workerTimeoutMs: 50, activeSpec: () => 'info', metricsKind: 'statsd' });
      const worker = new FakeWorker();
      coordinator.attach('1', worker);
      await tick();
      expect(worker.received[0]).toMatchObject({ type: 'init', spec: 'info', metrics: 'statsd' });
    });
  });
});

/** The merged `work_total`. */
const work = (families: readonly KeyedFamily[]): number => {
  const family = families.find((f) => f.name === 'work_total');
  return family === undefined ? Number.NaN : family.values[family.start]!;
};

describe('ClusterCoordinator against hostile workers', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const hostile: unknown[] = [
    { tag: PROTOCOL_TAG, type: 'statsd-final', statsd: null },
    { tag: PROTOCOL_TAG, type: 'statsd-final', statsd: {} },
    { tag: PROTOCOL_TAG, type: 'statsd-final', statsd: { counters: 5 } },
    { tag: PROTOCOL_TAG, type: 'statsd-final', statsd: { counters: [], gauges: [], timings: [['t', 5]] } },
    { tag: PROTOCOL_TAG, type: 'statsd-final', statsd: { counters: [['work_total', -3]], gauges: [], timings: [] } },
    { tag: PROTOCOL_TAG, type: 'reply', id: 1, ok: true, statsd: null },
    { tag: PROTOCOL_TAG, type: 'reply', id: 1, ok: true, health: null },
    { tag: PROTOCOL_TAG, type: 'reply', id: 1, ok: true, metrics: {} },
    { tag: PROTOCOL_TAG, type: 'reply', id: -1, ok: true },
    { tag: PROTOCOL_TAG, type: 'ready', spec: null },
    { tag: PROTOCOL_TAG, type: 'nonsense' },
  ];

  it('drops and counts every message that does not fit the protocol, and keeps serving', async () => {
    const events: CoordinatorEvent[] = [];
    const coordinator = new ClusterCoordinator({ workerTimeoutMs: 50, activeSpec: () => 'debug', onEvent: (event) => events.push(event) });
    const workers = [new FakeWorker(), new FakeWorker()];
    workers.forEach((worker, i) => coordinator.attach(String(i + 1), worker));
    await tick();
    for (const message of hostile) expect(() => workers[0]!.emit('message', message)).not.toThrow();
    expect(coordinator.dropped).toBe(hostile.length);
    expect(events.filter((event) => event.type === 'dropped')).toHaveLength(hostile.length);
    workers[0]!.counted = 2;
    workers[1]!.counted = 3;
    expect(work(await coordinator.collectMetrics(NOTHING))).toBe(5);
    workers[0]!.statsdPending = 4;
    const interval = await coordinator.collectStatsd({ counters: [], gauges: [], timings: [] });
    expect(interval.counters).toEqual([['work_total', 4]]);
    expect(coordinator.liveCount()).toBe(2);
  });

  it('never throws from the listener, whatever a worker sends with the tag (property)', async () => {
    const coordinator = new ClusterCoordinator({ workerTimeoutMs: 50, activeSpec: () => 'debug' });
    const worker = new FakeWorker();
    coordinator.attach('1', worker);
    await tick();
    const type = fc.constantFrom('hello', 'ready', 'reply', 'statsd-final', 'other');
    const payload = fc.record(
      {
        type,
        id: fc.oneof(fc.integer(), fc.anything()),
        ok: fc.oneof(fc.boolean(), fc.anything()),
        spec: fc.anything(),
        metrics: fc.anything(),
        health: fc.anything(),
        statsd: fc.anything(),
        error: fc.anything(),
      },
      { requiredKeys: ['type'] },
    );
    fc.assert(
      fc.property(payload, (body) => {
        expect(() => worker.emit('message', { ...body, tag: PROTOCOL_TAG })).not.toThrow();
      }),
      { numRuns: 500 },
    );
    worker.counted = 7;
    expect(work(await coordinator.collectMetrics(NOTHING))).toBe(7);
    await expect(coordinator.collectStatsd({ counters: [], gauges: [], timings: [] })).resolves.toBeDefined();
  });

  it('costs only the bad worker its interval when its StatsD answer is malformed, and does not wait for it', async () => {
    const { coordinator, workers } = setUp(10_000);
    await tick();
    workers[0]!.statsdShape = { counters: 5 };
    workers[0]!.statsdPending = 100;
    workers[1]!.statsdPending = 4;
    const started = Date.now();
    const interval = await coordinator.collectStatsd({ counters: [['work_total', 1]], gauges: [], timings: [] });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(interval.counters).toEqual([['work_total', 5]]);
    expect(coordinator.dropped).toBe(1);
    expect(coordinator.timeouts).toBe(0);
    // A negative delta is refused the same way.
    workers[0]!.statsdShape = { counters: [['work_total', -10]], gauges: [], timings: [] };
    workers[1]!.statsdPending = 2;
    expect((await coordinator.collectStatsd({ counters: [], gauges: [], timings: [] })).counters).toEqual([['work_total', 2]]);
    expect(coordinator.dropped).toBe(2);
  });

  it('drops a late StatsD answer of a bad shape and pushes on', async () => {
    const { coordinator, workers } = setUp(20);
    await tick();
    workers[0]!.hung = true;
    workers[0]!.statsdShape = { counters: [['work_total', 3]], gauges: null, timings: [] };
    workers[1]!.statsdPending = 1;
    expect((await coordinator.collectStatsd({ counters: [], gauges: [], timings: [] })).counters).toEqual([['work_total', 1]]);
    workers[0]!.wake();
    await tick();
    expect(coordinator.dropped).toBe(1);
    workers[1]!.statsdPending = 2;
    expect((await coordinator.collectStatsd({ counters: [], gauges: [], timings: [] })).counters).toEqual([['work_total', 2]]);
  });

  it('keeps counter sums monotonic over any interleaving of scrapes, answers, deaths, respawns and timeouts (property)', async () => {
    type Step =
      | { readonly kind: 'work'; readonly worker: number; readonly amount: number }
      | { readonly kind: 'scrape' }
      | { readonly kind: 'answer'; readonly worker: number; readonly newest: boolean }
      | { readonly kind: 'kill'; readonly worker: number }
      | { readonly kind: 'respawn' }
      | { readonly kind: 'time' };
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.record({ kind: fc.constant('work' as const), worker: fc.nat(3), amount: fc.integer({ min: 1, max: 50 }) }),
      fc.constant({ kind: 'scrape' as const }),
      fc.record({ kind: fc.constant('answer' as const), worker: fc.nat(3), newest: fc.boolean() }),
      fc.record({ kind: fc.constant('kill' as const), worker: fc.nat(3) }),
      fc.constant({ kind: 'respawn' as const }),
      fc.constant({ kind: 'time' as const }),
    );
    const flush = async () => {
      for (let i = 0; i < 4; i++) await new Promise((resolve) => setImmediate(resolve));
    };
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 40 }), async (steps) => {
        vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
        try {
          const coordinator = new ClusterCoordinator({ workerTimeoutMs: 1_000, activeSpec: () => 'info' });
          let named = 0;
          const live: FakeWorker[] = [];
          const spawn = () => {
            const worker = new FakeWorker();
            worker.hung = true;
            coordinator.attach(String(++named), worker);
            live.push(worker);
          };
          spawn();
          spawn();
          await flush();
          const readings: number[] = [];
          const scrapes: Promise<void>[] = [];
          for (const next of steps) {
            const worker = live.length === 0 ? undefined : live[('worker' in next ? next.worker : 0) % live.length];
            if (next.kind === 'work' && worker !== undefined) worker.counted += next.amount;
            else if (next.kind === 'scrape') scrapes.push(coordinator.collectMetrics(ownWork(1)).then((text) => void readings.push(work(text))));
            else if (next.kind === 'answer' && worker !== undefined) worker.answerHeld(next.newest ? worker.held.length - 1 : 0);
            else if (next.kind === 'kill' && worker !== undefined) {
              live.splice(live.indexOf(worker), 1);
              worker.die('SIGKILL');
            } else if (next.kind === 'respawn') spawn();
            else if (next.kind === 'time') vi.advanceTimersByTime(1_000);
            await flush();
          }
          vi.advanceTimersByTime(1_000);
          await flush();
          await Promise.all(scrapes);
          readings.push(
            work(
              await Promise.all([
                coordinator.collectMetrics(ownWork(1)),
                (async () => {
                  await flush();
                  for (const worker of live) worker.wake();
                })(),
              ]).then(([text]) => text),
            ),
          );
          for (let i = 1; i < readings.length; i++) expect(readings[i]).toBeGreaterThanOrEqual(readings[i - 1]!);
        } finally {
          vi.useRealTimers();
        }
      }),
      { numRuns: 300 },
    );
  });

  it('bounds departed entries (workers dying before they join too) and ends them when a replacement joins or after the bound', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const events: CoordinatorEvent[] = [];
    const coordinator = new ClusterCoordinator({ workerTimeoutMs: 50, activeSpec: () => 'info', departedTtlMs: 30_000, onEvent: (event) => events.push(event) });
    const first = new FakeWorker();
    coordinator.attach('1', first);
    await tick();
    first.die('SIGKILL');
    // A crash loop: 100 workers that die before joining.
    for (let i = 2; i < 102; i++) {
      const doomed = new FakeWorker();
      doomed.greets = false;
      coordinator.attach(String(i), doomed);
      doomed.die('SIGKILL');
    }
    expect(coordinator.departedWorkers().size).toBe(DEPARTED_LIMIT);
    // The replacement joins: the never-joined attempts and the oldest departed entry end.
    coordinator.attach('200', new FakeWorker());
    await tick();
    expect(coordinator.departedWorkers().size).toBe(0);
    // Without a replacement, an entry ends after the bound.
    const lonely = new FakeWorker();
    coordinator.attach('201', lonely);
    await tick();
    lonely.die('SIGKILL');
    expect([...coordinator.departedWorkers().keys()]).toEqual(['201']);
    vi.advanceTimersByTime(29_000);
    expect(coordinator.departedWorkers().size).toBe(1);
    vi.advanceTimersByTime(2_000);
    expect(coordinator.departedWorkers().size).toBe(0);
    expect(events.at(-1)).toEqual({ type: 'expired' });
  });

  it('joins a worker that reports the active spec in another spelling after one greeting', async () => {
    const coordinator = new ClusterCoordinator({ workerTimeoutMs: 50, activeSpec: () => 'a=debug:info' });
    const worker = saysHello(coordinator, () => 'INFO:a=DEBUG');
    for (let i = 0; i < 20; i++) await tick();
    expect(coordinator.liveCount()).toBe(1);
    expect(worker.received.filter((message) => message.type === 'init').length).toBeLessThanOrEqual(2);
  });

  it('fails a worker that refuses the spec once, after a bounded number of messages, and names it', async () => {
    const events: CoordinatorEvent[] = [];
    const coordinator = new ClusterCoordinator({ workerTimeoutMs: 50, activeSpec: () => 'info', onEvent: (event) => events.push(event) });
    const worker = saysHello(coordinator, () => 'warn');
    for (let i = 0; i < 50; i++) await tick();
    expect(worker.received.length).toBeLessThanOrEqual(5);
    expect(coordinator.liveCount()).toBe(0);
    expect(events.filter((event) => event.type === 'failed')).toEqual([{ type: 'failed', worker: '1', reason: expect.stringContaining('refused the logging spec: it runs "warn"') }]);
    await expect(coordinator.checkWorker('1')).rejects.toThrow('worker 1 refused the logging spec');
  });

  it('greets again when the spec changed while its greeting was on its way, and joins it on the new one', async () => {
    let active = 'info';
    const coordinator = new ClusterCoordinator({ workerTimeoutMs: 50, activeSpec: () => active });
    const worker = new FakeWorker();
    worker.defer = (answer) => setImmediate(answer);
    coordinator.attach('1', worker);
    active = 'debug';
    for (let i = 0; i < 20; i++) await tick();
    expect(coordinator.liveCount()).toBe(1);
    expect(worker.spec).toBe('debug');
  });

  it('waits for an unresponsive worker once: later changes skip it until it answers, and then it gets the latest spec', async () => {
    const { coordinator, workers } = setUp(100);
    await tick();
    workers[1]!.hung = true;
    expect(await coordinator.broadcastSpec('warn')).toEqual(['2']);
    const started = Date.now();
    for (const spec of ['debug', 'error', 'a=debug:info']) expect(await coordinator.broadcastSpec(spec)).toEqual(['2']);
    expect(Date.now() - started).toBeLessThan(100);
    // Only the first change was sent to it.
    expect(workers[1]!.held.filter((message) => message.type === 'request' && message.op === 'logspec')).toHaveLength(1);
    workers[1]!.hung = false;
    workers[1]!.answerHeld(0);
    await tick();
    await tick();
    // It answered (late): it is sent the current spec (the coordinator's activeSpec is 'debug' here).
    expect(workers[1]!.spec).toBe('debug');
    expect(await coordinator.broadcastSpec('info')).toEqual([]);
  });
});
