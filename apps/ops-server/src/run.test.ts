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
});
