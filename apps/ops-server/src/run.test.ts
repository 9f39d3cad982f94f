import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { runUntilSignalled, type SignalSource } from './run.ts';
import type { OperationsSystem } from './system.ts';
import { createLogging } from '@fabric-ops/ops-logspec';
import { createMetricsProvider } from '@fabric-ops/ops-metrics';

function fakeSystem(stop: () => Promise<void>): OperationsSystem {
  return {
    start: async () => {},
    stop,
    address: () => '',
    addRoute: () => {},
    isShuttingDown: () => false,
    reloadCredentials: () => {},
    registerChecker: () => {},
    deregisterChecker: () => {},
    readiness: { signalReady() {}, signalNotReady() {}, createBlockingTask: () => ({ resolve() {}, reject() {} }), isReady: () => true },
    addShutdownHook: () => {},
    logging: createLogging({ destination: { write() {} } }),
    metrics: createMetricsProvider(),
  };
}

describe('runUntilSignalled', () => {
  it('stops on SIGTERM and resolves 0', async () => {
    const source = new EventEmitter();
    let stopped = 0;
    const done = runUntilSignalled(
      fakeSystem(async () => {
        stopped++;
      }),
      { source: source as unknown as SignalSource },
    );
    source.emit('SIGTERM', 'SIGTERM');
    await expect(done).resolves.toBe(0);
    expect(stopped).toBe(1);
    expect(source.listenerCount('SIGTERM') + source.listenerCount('SIGINT')).toBe(0);
  });

  it('resolves 1 at once on a second signal while stopping', async () => {
    const source = new EventEmitter();
    const done = runUntilSignalled(
      fakeSystem(() => new Promise(() => {})),
      { source: source as unknown as SignalSource },
    );
    source.emit('SIGINT', 'SIGINT');
    source.emit('SIGINT', 'SIGINT');
    await expect(done).resolves.toBe(1);
  });

  it('resolves 1 once forceExitAfterMs passes with the stop still hanging, and logs why', async () => {
    const source = new EventEmitter();
    const lines: string[] = [];
    const logger = { info() {}, warn() {}, error: (_fields: object | string, message?: string) => void lines.push(message ?? '') };
    const done = runUntilSignalled(
      fakeSystem(() => new Promise(() => {})),
      { source: source as unknown as SignalSource, forceExitAfterMs: 20, logger },
    );
    source.emit('SIGTERM', 'SIGTERM');
    await expect(done).resolves.toBe(1);
    expect(lines).toEqual(['operations server did not stop in time: exiting without waiting']);
    expect(source.listenerCount('SIGTERM') + source.listenerCount('SIGINT')).toBe(0);
  });

  it('clears the backstop when the stop finishes in time', async () => {
    const source = new EventEmitter();
    const lines: string[] = [];
    const logger = { info() {}, warn() {}, error: (_fields: object | string, message?: string) => void lines.push(message ?? '') };
    const done = runUntilSignalled(
      fakeSystem(() => new Promise((resolve) => setTimeout(resolve, 5))),
      { source: source as unknown as SignalSource, forceExitAfterMs: 30, logger },
    );
    source.emit('SIGTERM', 'SIGTERM');
    await expect(done).resolves.toBe(0);
    // Past the backstop's time: a timer left armed would have logged by now.
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(lines).toEqual([]);
  });

  it('refuses a backstop that is not a duration', () => {
    expect(() =>
      runUntilSignalled(
        fakeSystem(async () => {}),
        { forceExitAfterMs: -1 },
      ),
    ).toThrow('invalid operations option forceExitAfterMs');
  });
});
