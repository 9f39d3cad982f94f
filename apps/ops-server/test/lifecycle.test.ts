import { describe, expect, it } from 'vitest';
import { createOperationsSystem, isOpsServerError, type OperationsSystem, type OperationsSystemOptions } from '../src/index.ts';
import { send } from '@fabric-ops/test-kit';
import { capturingLogger, useSystems, type LoggedLine } from './systems.ts';

const systems = useSystems();
const started = (options: Partial<OperationsSystemOptions> = {}): Promise<OperationsSystem> => systems.start({ logger: capturingLogger([]), ...options });

describe('stop() for embedders: the not-ready delay and shutdown hooks', () => {
  it('answers /readyz 503 (not a refused connection) during the delay, then runs the hooks in order before stop() resolves', async () => {
    const s = await started({ shutdownDelayMs: 1_500 });
    s.registerChecker('fine', async () => {});
    expect((await send(s.address(), '/readyz')).status).toBe(200);
    const address = s.address();
    const events: string[] = [];
    s.addShutdownHook('app-server', async () => {
      // The operations listener is still open while the hooks run.
      events.push(`app-server (livez ${(await send(address, '/livez')).status})`);
    });
    s.addShutdownHook('queue', () => {
      events.push('queue');
    });

    let resolved = false;
    const stopping = s.stop().then(() => {
      resolved = true;
    });
    const draining = await send(address, '/readyz');
    expect(draining.status).toBe(503);
    expect(JSON.parse(draining.body).failed_checks).toEqual([{ component: 'shutdown', reason: 'the process is shutting down' }]);
    expect((await send(address, '/livez')).status).toBe(200);
    expect((await send(address, '/healthz')).status).toBe(200);
    expect(events).toEqual([]);
    expect(resolved).toBe(false);

    await stopping;
    expect(events).toEqual(['app-server (livez 200)', 'queue']);
    await expect(send(address, '/livez')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('logs a failing hook and runs the next; aborts an overdue hook with a TimeoutError and closes anyway', async () => {
    const lines: LoggedLine[] = [];
    const s = await started({ shutdownHookTimeoutMs: 100, logger: capturingLogger(lines) });
    const events: string[] = [];
    s.addShutdownHook('broken', () => {
      throw new Error('flush failed');
    });
    s.addShutdownHook('stuck', (signal) => {
      signal.addEventListener('abort', () => events.push(`stuck aborted: ${(signal.reason as Error).name}`));
      return new Promise<void>(() => {});
    });
    s.addShutdownHook('last', () => {
      events.push('last');
    });
    await s.stop();
    expect(events).toEqual(['stuck aborted: TimeoutError', 'last']);
    expect(lines.filter((l) => l.level !== 'info').map((l) => [l.level, l.fields['hook'], l.msg])).toEqual([
      ['error', 'broken', 'shutdown hook failed'],
      ['warn', 'stuck', 'shutdown hook did not finish in time; stopping without waiting for it'],
    ]);
  });

  it('gives a second stop() the same promise, so both wait for the hooks', async () => {
    const s = await started();
    let release!: () => void;
    s.addShutdownHook('slow', () => new Promise<void>((r) => (release = r)));
    const first = s.stop();
    const second = s.stop();
    expect(second).toBe(first);
    await new Promise((r) => setImmediate(r));
    release();
    await first;
    expect(s.isShuttingDown()).toBe(true);
  });

  it('refuses bad lifecycle options and hooks with one OpsServerError', () => {
    const base: OperationsSystemOptions = { listenAddress: '127.0.0.1:0', version: { version: '1', commitSHA: '' } };
    const bads: Partial<OperationsSystemOptions>[] = [{ shutdownDelayMs: -1 }, { shutdownDelayMs: Number.NaN }, { shutdownHookTimeoutMs: '5s' as unknown as number }];
    for (const bad of bads) {
      let thrown: unknown;
      try {
        createOperationsSystem({ ...base, ...bad });
      } catch (error) {
        thrown = error;
      }
      expect(isOpsServerError(thrown) && thrown.code).toBe('INVALID_OPTIONS');
      expect((thrown as Error).message).toMatch(/^invalid operations option shutdown(Delay|HookTimeout)Ms: expected milliseconds from 0 to 2147483647, got /);
    }
    const s = createOperationsSystem(base);
    expect(() => s.addShutdownHook('', () => {})).toThrow('shutdown hook name must be a non-empty string');
    expect(() => s.addShutdownHook('x', 'nope' as never)).toThrow("shutdown hook 'x' must be a function");
  });
});

describe('readiness and background checks for embedders', () => {
  it("with requireReadySignal, /readyz waits for readiness.signalReady() and a blocking task; /healthz keeps Fabric's answer", async () => {
    const s = await started({ requireReadySignal: true });
    const warmup = s.readiness.createBlockingTask('cache-warmup');
    const waiting = await send(s.address(), '/readyz');
    expect(waiting.status).toBe(503);
    expect(JSON.parse(waiting.body).failed_checks).toEqual([
      { component: 'ready-signal', reason: 'the application has not signalled ready yet' },
      { component: 'startup', reason: "waiting for start-up task 'cache-warmup'" },
    ]);
    expect((await send(s.address(), '/healthz')).body).toMatch(/^\{"status":"OK","time":"[^"]+"\}$/);
    s.readiness.signalReady();
    warmup.resolve();
    expect((await send(s.address(), '/readyz')).status).toBe(200);
  });

  it('without requireReadySignal (the bins), /readyz is ready as soon as the checks pass', async () => {
    const s = await started();
    expect(s.readiness.isReady()).toBe(true);
    expect((await send(s.address(), '/readyz')).status).toBe(200);
  });

  it('runs the checks in the background so health_check_status is fresh with no probe, and stops with the system', async () => {
    const s = await started({
      health: { backgroundIntervalMs: 20 },
      metrics: { provider: 'prometheus' },
    });
    let runs = 0;
    let healthy = true;
    s.registerChecker('db', async () => {
      runs++;
      if (!healthy) throw new Error('down');
    });
    while (runs < 2) await new Promise((r) => setTimeout(r, 10));
    expect((await send(s.address(), '/metrics')).body).toMatch(/^health_check_status\{component="db"\} 1$/m);
    healthy = false;
    const seen = runs;
    while (runs < seen + 2) await new Promise((r) => setTimeout(r, 10));
    expect((await send(s.address(), '/metrics')).body).toMatch(/^health_check_status\{component="db"\} 0$/m);
    await s.stop();
    const after = runs;
    await new Promise((r) => setTimeout(r, 100));
    expect(runs).toBe(after);
  });
});
