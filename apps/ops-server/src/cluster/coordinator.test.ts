import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { ClusterCoordinator } from './coordinator.ts';
import { PROTOCOL_TAG, type PrimaryMessage, type WorkerChannel } from './protocol.ts';

/** A worker's channel whose answers the test decides. */
class FakeWorker extends EventEmitter implements WorkerChannel {
  readonly received: PrimaryMessage[] = [];
  counted = 0;
  spec = '';
  hung = false;
  failing: { component: string; reason: string }[] = [];
  /** StatsD counter deltas not yet handed over. */
  statsdPending = 0;
  /** Requests received while hung, answered by wake(). */
  private held: PrimaryMessage[] = [];

  send(message: PrimaryMessage, _callback?: (error: Error | null) => void): void {
    this.received.push(message);
    queueMicrotask(() => this.answer(message));
  }

  private reply(body: object): void {
    this.emit('message', { tag: PROTOCOL_TAG, type: 'reply', ...body });
  }

  private answer(message: PrimaryMessage): void {
    if (message.type === 'init') {
      this.spec = message.spec;
      this.emit('message', { tag: PROTOCOL_TAG, type: 'ready', spec: this.spec });
      return;
    }
    if (this.hung) {
      this.held.push(message);
      return;
    }
    if (message.op === 'statsd') {
      const delta = this.statsdPending;
      this.statsdPending = 0;
      this.reply({ id: message.id, ok: true, statsd: { counters: delta > 0 ? [['work_total', delta]] : [], gauges: [['queue', 5, 'queue']], timings: [['took', [0.1]]] } });
    } else if (message.op === 'metrics') this.reply({ id: message.id, ok: true, metrics: `# TYPE work_total counter\nwork_total ${this.counted}\n# TYPE up_gauge gauge\nup_gauge 1\n` });
    else if (message.op === 'health') this.reply({ id: message.id, ok: true, health: { healthy: this.failing.length === 0, failed: this.failing } });
    else if (message.op === 'logspec') {
      this.spec = message.spec;
      this.reply({ id: message.id, ok: true, spec: message.spec });
    }
  }

  wake(): void {
    this.hung = false;
    for (const message of this.held.splice(0)) this.answer(message);
  }

  die(signal: NodeJS.Signals): void {
    this.emit('exit', null, signal);
  }
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
    const first = await coordinator.collectMetrics('# TYPE work_total counter\nwork_total 1\n');
    expect(first).toContain('work_total 16\n');

    workers[1]!.hung = true;
    workers[0]!.counted = 12;
    const whileHung = await coordinator.collectMetrics('# TYPE work_total counter\nwork_total 1\n');
    expect(whileHung).toContain('work_total 18\n');
    expect(coordinator.timeouts).toBe(1);

    workers[0]!.die('SIGKILL');
    const replacement = new FakeWorker();
    coordinator.attach('3', replacement);
    await tick();
    replacement.counted = 1;
    workers[1]!.hung = false;
    const afterDeath = await coordinator.collectMetrics('# TYPE work_total counter\nwork_total 1\n');
    // 12 kept from the dead worker + 5 + 1 new + 1 primary
    expect(afterDeath).toContain('work_total 19\n');
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
