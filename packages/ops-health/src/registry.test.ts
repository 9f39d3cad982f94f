import { describe, expect, it, vi } from 'vitest';
import { HealthError, isHealthError } from './errors.ts';
import { MAX_REASON_LENGTH } from './internal/reason.ts';
import { createHealthRegistry, reportWithoutWaiting, type Checker } from './registry.ts';

interface Deferred {
  readonly promise: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A checker that waits for the test to decide, counting its calls and keeping its signals. */
function controlled() {
  const calls: { signal: AbortSignal; gate: Deferred }[] = [];
  const checker: Checker = (signal) => {
    const gate = deferred();
    calls.push({ signal, gate });
    return gate.promise;
  };
  return { checker, calls };
}

const tick = () => new Promise((r) => setTimeout(r, 0));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('register / deregister', () => {
  it('refuses a duplicate component with a typed error', () => {
    const registry = createHealthRegistry();
    registry.register('docker', async () => {});
    let caught: unknown;
    try {
      registry.register('docker', async () => {});
    } catch (error) {
      caught = error;
    }
    expect(isHealthError(caught)).toBe(true);
    expect((caught as HealthError).code).toBe('ALREADY_REGISTERED');
    expect((caught as HealthError).message).toBe("'docker' is already registered");
  });

  it('ignores deregistering an unknown component and allows re-registering a removed one', () => {
    const registry = createHealthRegistry();
    expect(() => registry.deregister('nope')).not.toThrow();
    registry.register('a', async () => {});
    registry.deregister('a');
    expect(registry.has('a')).toBe(false);
    registry.register('a', async () => {});
    expect(registry.components()).toEqual(['a']);
  });

  it('rejects empty names, non-functions and bad options, naming them', () => {
    const registry = createHealthRegistry();
    expect(() => registry.register('', async () => {})).toThrow(/non-empty string/);
    expect(() => registry.register('x', 'nope' as unknown as Checker)).toThrow("health checker for 'x' must be a function");
    expect(() => registry.register('x', async () => {}, { timeoutMs: 0 })).toThrow(/timeoutMs/);
    expect(registry.has('x')).toBe(false);
    expect(() => createHealthRegistry({ checkTimeoutMs: -1 })).toThrow('invalid health option checkTimeoutMs: expected milliseconds between 1 and 2147483647, got -1');
    expect(() => createHealthRegistry({ deadlineMs: Number.NaN })).toThrow(/deadlineMs/);
    expect(() => createHealthRegistry({ cacheTtlMs: -5 })).toThrow(/cacheTtlMs/);
  });

  it('fills in defaults', () => {
    expect(createHealthRegistry().settings).toEqual({ checkTimeoutMs: 5_000, deadlineMs: 30_000, cacheTtlMs: 0, backgroundIntervalMs: 0 });
  });

  it.each([
    ['checkTimeoutMs', '5s', 'expected milliseconds between 1 and 2147483647, got "5s"'],
    ['checkTimeoutMs', 0, 'expected milliseconds between 1 and 2147483647, got 0'],
    ['deadlineMs', 3_000_000_000, 'expected milliseconds between 1 and 2147483647, got 3000000000'],
    ['cacheTtlMs', '1000', 'expected 0 (off) or a number of milliseconds up to 2147483647, got "1000"'],
    ['backgroundIntervalMs', -1, 'expected 0 (off) or a number of milliseconds up to 2147483647, got -1'],
    ['backgroundIntervalMs', Number.POSITIVE_INFINITY, 'expected 0 (off) or a number of milliseconds up to 2147483647, got Infinity'],
  ])('refuses %s = %j with one HealthError naming the option and the value', (option, value, text) => {
    let thrown: unknown;
    try {
      createHealthRegistry({ [option]: value } as never);
    } catch (error) {
      thrown = error;
    }
    expect(isHealthError(thrown)).toBe(true);
    expect((thrown as HealthError).code).toBe('INVALID_OPTION');
    expect((thrown as HealthError).message).toBe(`invalid health option ${option}: ${text}`);
  });
});

describe('run', () => {
  it('fails a check whose checker returns or resolves false; true, undefined and other values pass', async () => {
    const registry = createHealthRegistry();
    registry.register('sync-false', () => false);
    registry.register('async-false', async () => false);
    registry.register('true', () => true);
    registry.register('void', () => undefined);
    const report = await registry.run();
    expect(report.failed.map((r) => [r.component, r.reason])).toEqual([
      ['async-false', 'check returned false'],
      ['sync-false', 'check returned false'],
    ]);
    expect(report.results.filter((r) => r.healthy).map((r) => r.component)).toEqual(['true', 'void']);
  });

  it('is healthy with no checkers', async () => {
    const report = await createHealthRegistry().run();
    expect(report).toMatchObject({ healthy: true, results: [], failed: [] });
  });

  it('runs checks in parallel and sorts results by component', async () => {
    const registry = createHealthRegistry();
    const b = controlled();
    const a = controlled();
    registry.register('b', b.checker);
    registry.register('a', a.checker);
    const running = registry.run();
    await tick();
    // Both started before either finished.
    expect(a.calls).toHaveLength(1);
    expect(b.calls).toHaveLength(1);
    b.calls[0]!.gate.reject(new Error('b is down'));
    a.calls[0]!.gate.resolve();
    const report = await running;
    expect(report.healthy).toBe(false);
    expect(report.results.map((r) => [r.component, r.healthy])).toEqual([
      ['a', true],
      ['b', false],
    ]);
    expect(report.failed).toEqual([expect.objectContaining({ component: 'b', reason: 'b is down', cached: false })]);
  });

  it('fails a check past its own timeout with a named reason and aborts its signal', async () => {
    const registry = createHealthRegistry({ checkTimeoutMs: 40 });
    const slow = controlled();
    registry.register('slow', slow.checker);
    registry.register('fast', async () => {});
    const report = await registry.run();
    expect(report.failed).toEqual([expect.objectContaining({ component: 'slow', reason: 'health check timed out after 40ms' })]);
    expect(report.results.find((r) => r.component === 'fast')?.healthy).toBe(true);
    const signal = slow.calls[0]!.signal;
    expect(signal.aborted).toBe(true);
    expect(isHealthError(signal.reason) && signal.reason.code).toBe('CHECK_TIMED_OUT');
  });

  it('uses a per-checker timeout over the registry default', async () => {
    const registry = createHealthRegistry({ checkTimeoutMs: 60_000 });
    registry.register('slow', controlled().checker, { timeoutMs: 1_500 });
    const report = await registry.run();
    expect(report.failed[0]?.reason).toBe('health check timed out after 1.5s');
  });

  it('shares one check among concurrent runs (single-flight)', async () => {
    const registry = createHealthRegistry();
    const c = controlled();
    registry.register('docker', c.checker);
    const runs = Array.from({ length: 100 }, () => registry.run());
    await tick();
    expect(c.calls).toHaveLength(1);
    c.calls[0]!.gate.resolve();
    const reports = await Promise.all(runs);
    expect(reports.every((r) => r.healthy)).toBe(true);
    // The next run after completion checks again: nothing is cached by default.
    const next = registry.run();
    await tick();
    expect(c.calls).toHaveLength(2);
    c.calls[1]!.gate.reject('down');
    expect((await next).failed[0]?.reason).toBe('down');
  });

  it('gives runs asked for while the same checks are in flight one shared report, and none across a registration', async () => {
    const registry = createHealthRegistry();
    const c = controlled();
    registry.register('docker', c.checker);
    const first = registry.run();
    expect(registry.run()).toBe(first);
    registry.register('other', () => {});
    const afterRegister = registry.run();
    expect(afterRegister).not.toBe(first);
    await tick();
    expect(c.calls).toHaveLength(1);
    c.calls[0]!.gate.resolve();
    expect((await first).results.map((r) => r.component)).toEqual(['docker']);
    expect((await afterRegister).results.map((r) => r.component)).toEqual(['docker', 'other']);
    // Finished: the next run is a new one.
    const next = registry.run();
    expect(next).not.toBe(first);
    await tick();
    expect(c.calls).toHaveLength(2);
    c.calls[1]!.gate.resolve();
    await next;
  });

  it('has a report without waiting only when every check is cached or serving out a timeout', async () => {
    const registry = createHealthRegistry({ cacheTtlMs: 60_000 });
    expect(reportWithoutWaiting(registry)?.results).toEqual([]);
    const c = controlled();
    registry.register('docker', c.checker);
    expect(reportWithoutWaiting(registry)).toBeUndefined();
    const running = registry.run();
    await tick();
    expect(reportWithoutWaiting(registry)).toBeUndefined();
    c.calls[0]!.gate.resolve();
    await running;
    const ready = reportWithoutWaiting(registry);
    expect(ready?.healthy).toBe(true);
    expect(ready?.results[0]).toMatchObject({ component: 'docker', healthy: true, cached: true });
    expect(c.calls).toHaveLength(1);
  });

  it('a single-component run joins a full run in flight', async () => {
    const registry = createHealthRegistry();
    const c = controlled();
    registry.register('docker', c.checker);
    const all = registry.run();
    const one = registry.runOne('docker')!;
    await tick();
    expect(c.calls).toHaveLength(1);
    c.calls[0]!.gate.resolve();
    expect((await one).results).toHaveLength(1);
    expect((await all).healthy).toBe(true);
    expect(registry.runOne('missing')).toBeUndefined();
  });

  it('turns throws, non-Error values and huge messages into bounded reasons', async () => {
    const registry = createHealthRegistry();
    registry.register('sync', () => {
      throw new Error('thrown synchronously');
    });
    registry.register('string', () => Promise.reject('plain text'));
    registry.register('object', () => Promise.reject({ message: 'object message' }));
    registry.register('empty', () => Promise.reject(new Error('')));
    registry.register('huge', () => Promise.reject(new Error('x'.repeat(MAX_REASON_LENGTH + 100))));
    const reasons = Object.fromEntries((await registry.run()).failed.map((f) => [f.component, f.reason]));
    expect(reasons['sync']).toBe('thrown synchronously');
    expect(reasons['string']).toBe('plain text');
    expect(reasons['object']).toBe('object message');
    expect(reasons['empty']).toBe('Error');
    expect(reasons['huge']).toHaveLength(MAX_REASON_LENGTH + 1);
  });
});

describe('cache', () => {
  it('is off by default', async () => {
    const registry = createHealthRegistry();
    const checker = vi.fn(async () => {});
    registry.register('a', checker);
    await registry.run();
    await registry.run();
    expect(checker).toHaveBeenCalledTimes(2);
  });

  it('serves a result within its TTL, marked cached, and checks again after it', async () => {
    const registry = createHealthRegistry({ cacheTtlMs: 60_000 });
    const checker = vi.fn(async () => {});
    registry.register('a', checker);
    registry.register('short', checker, { cacheTtlMs: 1 });
    const first = await registry.run();
    expect(first.results.every((r) => !r.cached)).toBe(true);
    await sleep(20);
    const second = await registry.run();
    expect(second.results.find((r) => r.component === 'a')?.cached).toBe(true);
    expect(second.results.find((r) => r.component === 'short')?.cached).toBe(false);
    expect(checker).toHaveBeenCalledTimes(3);
  });

  it('forgets a deregistered component', async () => {
    const registry = createHealthRegistry({ cacheTtlMs: 60_000 });
    const checker = vi.fn(async () => {});
    registry.register('a', checker);
    await registry.run();
    registry.deregister('a');
    registry.register('a', checker);
    await registry.run();
    expect(checker).toHaveBeenCalledTimes(2);
  });
});

describe('deregistration during a run', () => {
  it('aborts the running check and leaves the component out of the report', async () => {
    const registry = createHealthRegistry();
    const removed = controlled();
    const kept = controlled();
    const onResult = vi.fn();
    registry.setObserver({ onResult });
    registry.register('removed', removed.checker);
    registry.register('kept', kept.checker);
    const running = registry.run();
    await tick();
    registry.deregister('removed');
    const signal = removed.calls[0]!.signal;
    expect(signal.aborted).toBe(true);
    expect(isHealthError(signal.reason) && signal.reason.code).toBe('CHECK_DEREGISTERED');
    // The checker reacts to its abort by rejecting; that must not surface anywhere.
    removed.calls[0]!.gate.reject(signal.reason);
    kept.calls[0]!.gate.resolve();
    const report = await running;
    expect(report.results.map((r) => r.component)).toEqual(['kept']);
    expect(report.healthy).toBe(true);
    expect(onResult.mock.calls.map((c) => c[0])).toEqual(['kept']);
  });

  it('does not mix a re-registered checker with the old one still running', async () => {
    const registry = createHealthRegistry();
    const old = controlled();
    registry.register('a', old.checker);
    const first = registry.run();
    await tick();
    registry.deregister('a');
    registry.register('a', () => Promise.reject(new Error('new checker says no')));
    const second = await registry.run();
    expect(second.failed[0]?.reason).toBe('new checker says no');
    old.calls[0]!.gate.resolve();
    expect((await first).results).toEqual([]);
  });
});

describe('observer', () => {
  it('hears every check that ran with seconds, and cannot break a run', async () => {
    const registry = createHealthRegistry({ cacheTtlMs: 60_000 });
    const seen: [string, boolean, number][] = [];
    registry.setObserver({
      onResult(component, healthy, seconds) {
        seen.push([component, healthy, seconds]);
        throw new Error('observer bug');
      },
    });
    registry.register('good', async () => {});
    registry.register('bad', async () => {
      throw new Error('nope');
    });
    expect((await registry.run()).failed).toHaveLength(1);
    await registry.run(); // cache hits are not reported again
    expect(seen.map(([c, h]) => [c, h]).sort()).toEqual([
      ['bad', false],
      ['good', true],
    ]);
    expect(seen.every(([, , s]) => s >= 0 && s < 5)).toBe(true);
    registry.setObserver(undefined);
  });
});

describe('observer: removed components', () => {
  it('hears onRemoved once per deregistered component, after its last result, and never for an unknown name', async () => {
    const registry = createHealthRegistry();
    const events: string[] = [];
    registry.setObserver({
      onResult: (component, healthy) => events.push(`result ${component} ${healthy}`),
      onRemoved: (component) => events.push(`removed ${component}`),
    });
    registry.register('worker-1', () => Promise.reject(new Error('gone')));
    registry.register('worker-2', async () => {});
    await registry.run();
    registry.deregister('worker-1');
    registry.deregister('worker-1');
    registry.deregister('never-registered');
    await registry.run();
    expect(events.sort()).toEqual(['removed worker-1', 'result worker-1 false', 'result worker-2 true', 'result worker-2 true']);
    expect(events.filter((e) => e.startsWith('removed'))).toEqual(['removed worker-1']);
  });

  it('gives no result after onRemoved for a check that was running when its component was deregistered', async () => {
    const registry = createHealthRegistry();
    const events: string[] = [];
    registry.setObserver({
      onResult: (component) => events.push(`result ${component}`),
      onRemoved: (component) => events.push(`removed ${component}`),
    });
    const slow = controlled();
    registry.register('slow', slow.checker);
    const running = registry.run();
    await tick();
    registry.deregister('slow');
    slow.calls[0]!.gate.resolve();
    await running;
    expect(events).toEqual(['removed slow']);
  });

  it('deregisters even when the observer throws, and an observer without onRemoved still works', async () => {
    const registry = createHealthRegistry();
    registry.setObserver({
      onResult() {},
      onRemoved() {
        throw new Error('observer bug');
      },
    });
    registry.register('a', async () => {});
    registry.deregister('a');
    expect(registry.has('a')).toBe(false);
    const results: string[] = [];
    registry.setObserver({ onResult: (component) => results.push(component) });
    registry.register('b', async () => {});
    registry.deregister('b');
    registry.register('c', async () => {});
    await registry.run();
    expect(results).toEqual(['c']);
  });
});

describe('a checker that ignores its abort', () => {
  it('is not started again until its last attempt settles', async () => {
    const registry = createHealthRegistry({ checkTimeoutMs: 20 });
    const stuck = controlled();
    registry.register('stuck', stuck.checker);
    expect((await registry.run()).failed[0]?.reason).toBe('health check timed out after 20ms');
    const again = await registry.run();
    expect(again.failed[0]?.reason).toBe('health check timed out after 20ms (the previous check has not finished yet)');
    expect(stuck.calls).toHaveLength(1);
    stuck.calls[0]!.gate.resolve();
    await tick();
    const third = registry.run();
    await tick();
    expect(stuck.calls).toHaveLength(2);
    stuck.calls[1]!.gate.resolve();
    expect((await third).healthy).toBe(true);
  });
});

describe('HealthError', () => {
  it('is recognised by name across copies', () => {
    const foreign = Object.assign(new Error('x'), { name: 'HealthError', code: 'INVALID_OPTION' });
    expect(isHealthError(foreign)).toBe(true);
    expect(isHealthError(new Error('x'))).toBe(false);
    expect(new HealthError('INVALID_OPTION', 'm').code).toBe('INVALID_OPTION');
  });
});

describe('background checks', () => {
  it('run every check at once and again each interval after a run ends, feeding the observer, until stopped', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const registry = createHealthRegistry({ backgroundIntervalMs: 1_000 });
      const seen: string[] = [];
      registry.setObserver({ onResult: (component, healthy) => seen.push(`${component}:${healthy}`) });
      let healthy = true;
      registry.register('db', async () => {
        if (!healthy) throw new Error('down');
      });
      registry.startBackgroundChecks();
      registry.startBackgroundChecks(); // a second start must not start a second loop
      await vi.advanceTimersByTimeAsync(0);
      expect(seen).toEqual(['db:true']);
      healthy = false;
      await vi.advanceTimersByTimeAsync(1_000);
      expect(seen).toEqual(['db:true', 'db:false']);
      await vi.advanceTimersByTimeAsync(2_000);
      expect(seen).toHaveLength(4);
      registry.stopBackgroundChecks();
      await vi.advanceTimersByTimeAsync(5_000);
      expect(seen).toHaveLength(4);
    } finally {
      vi.useRealTimers();
    }
  });

  it('never overlap: a slow run delays the next one instead of piling up', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const registry = createHealthRegistry({ backgroundIntervalMs: 100, checkTimeoutMs: 10_000 });
      let started = 0;
      let release: (() => void) | undefined;
      registry.register('slow', () => {
        started++;
        return new Promise<void>((r) => (release = r));
      });
      registry.startBackgroundChecks();
      await vi.advanceTimersByTimeAsync(1_000);
      expect(started).toBe(1);
      release?.();
      await vi.advanceTimersByTimeAsync(100);
      expect(started).toBe(2);
      registry.stopBackgroundChecks();
      release?.();
    } finally {
      vi.useRealTimers();
    }
  });

  it('are off by default: startBackgroundChecks() runs nothing', async () => {
    const registry = createHealthRegistry();
    let ran = false;
    registry.register('db', async () => {
      ran = true;
    });
    registry.startBackgroundChecks();
    await new Promise((r) => setImmediate(r));
    expect(ran).toBe(false);
  });
});
