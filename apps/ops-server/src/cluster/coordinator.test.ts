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
    if (this.hung) return;
    if (message.op === 'metrics') this.reply({ id: message.id, ok: true, metrics: `# TYPE work_total counter\nwork_total ${this.counted}\n# TYPE up_gauge gauge\nup_gauge 1\n` });
    else if (message.op === 'health') this.reply({ id: message.id, ok: true, health: { healthy: this.failing.length === 0, failed: this.failing } });
    else {
      this.spec = message.spec;
      this.reply({ id: message.id, ok: true, spec: message.spec });
    }
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
});
