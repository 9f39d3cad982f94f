import { EventEmitter } from 'node:events';
import { createLeanLogging, type LeanLogging, type Logging } from '@fabric-ops/ops-logspec';
import { describe, expect, it } from 'vitest';
import { joinOperationsCluster, startOperationsWorker } from '../src/cluster.ts';
import { PROTOCOL_TAG } from '../src/cluster/protocol.ts';

/** The worker's side of an IPC channel: what it sends is kept, what the primary says is emitted. */
function fakeChannel(): { channel: NodeJS.Process; sent: unknown[]; fromPrimary(message: unknown): void } {
  const emitter = new EventEmitter();
  const sent: unknown[] = [];
  const channel = Object.assign(emitter, {
    connected: true,
    send: (message: unknown, _handle: unknown, _options: unknown, done?: () => void) => {
      sent.push(message);
      done?.();
      return true;
    },
  }) as unknown as NodeJS.Process;
  return { channel, sent, fromPrimary: (message) => emitter.emit('message', message) };
}

const TAG = PROTOCOL_TAG;

describe('a cluster worker logging through the lean engine', () => {
  it('takes the primary’s spec at join and on every change, and its loggers follow', async () => {
    const { channel, sent, fromPrimary } = fakeChannel();
    const lines: string[] = [];
    const logging = createLeanLogging({ spec: 'info', destination: { write: (line: string) => void lines.push(line) } });
    const logger = logging.getLogger('gossip.privdata');
    const joining = joinOperationsCluster({ logging, channel, initTimeoutMs: 2_000 });
    fromPrimary({ tag: TAG, type: 'init', spec: 'gossip=debug:warn' });
    const worker = await joining;
    expect(logging.spec()).toBe('gossip=debug:warn');
    expect(logger.isLevelEnabled('debug')).toBe(true);
    expect(sent).toContainEqual({ tag: TAG, type: 'ready', spec: 'gossip=debug:warn' });

    fromPrimary({ tag: TAG, type: 'request', id: 7, op: 'logspec', spec: 'error' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent).toContainEqual({ tag: TAG, type: 'reply', id: 7, ok: true, spec: 'error' });
    logger.warn('not written at error');
    logger.error('written');
    expect(lines).toHaveLength(1);
    await worker.close();
  });

  it('types the worker by the registry it is given: pino’s Logging by default (checked by tsc)', () => {
    // Never called: the assignments are the test, made when the test files are type-checked.
    const typesOnly = async (): Promise<readonly unknown[]> => {
      const byDefault: Logging = (await startOperationsWorker()).logging;
      const lean: LeanLogging = (await startOperationsWorker({ logging: createLeanLogging() })).logging;
      // @ts-expect-error a lean registry is not pino's
      const notPino: Logging = lean;
      return [byDefault, notPino];
    };
    expect(typesOnly).toBeTypeOf('function');
  });
});
