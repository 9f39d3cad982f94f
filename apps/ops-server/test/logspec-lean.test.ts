import { createLeanLogging, createLogging, type LoggingRegistry } from '@fabric-ops/ops-logspec';
import { send } from '@fabric-ops/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { createOperationsSystem, type OperationsSystem } from '../src/index.ts';
import { TEST_SYSTEM_DEFAULTS } from './systems.ts';

const running: OperationsSystem<LoggingRegistry>[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((system) => system.stop()));
});

/** The lines a system writes through `engine` for one spec change and one failing handler, time left out. */
async function linesThrough(engine: 'pino' | 'lean'): Promise<string[]> {
  const lines: string[] = [];
  const destination = { write: (line: string) => void lines.push(line) };
  const logging = engine === 'pino' ? createLogging({ format: 'json', destination }) : createLeanLogging({ format: 'json', destination });
  const system = createOperationsSystem({ ...TEST_SYSTEM_DEFAULTS, logging, loggerName: 'test.operations' });
  running.push(system);
  expect(system.logging).toBe(logging);
  system.addRoute({
    path: '/broken',
    secure: false,
    handler: () => {
      const error = new Error('boom');
      error.stack = 'Error: boom\n    at handler (fixed)';
      throw error;
    },
  });
  await system.start();
  expect((await send(system.address(), '/logspec', { method: 'PUT', body: '{"spec":"gossip=debug:warn"}' })).status).toBe(204);
  expect(logging.getLogger('gossip').isLevelEnabled('debug')).toBe(true);
  expect((await send(system.address(), '/broken')).status).toBe(500);
  return lines.map((line) => line.replace(/"time":\d+/, '"time":0').replace(/"remoteAddress":"[^"]*"/, '"remoteAddress":"-"'));
}

describe('/logspec and the system lines with the lean engine', () => {
  it('serves a lean registry handed in by an embedder and writes the lines the pino engine writes', async () => {
    const lean = await linesThrough('lean');
    const pino = await linesThrough('pino');
    expect(lean.map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual(['logging spec changed', 'operations handler failed']);
    expect(lean).toEqual(pino);
  });

  it('feeds Fabric’s logging_entries_* counters from a lean registry', async () => {
    const logging = createLeanLogging({ destination: { write: () => undefined } });
    const system = createOperationsSystem({ ...TEST_SYSTEM_DEFAULTS, logging, metrics: { provider: 'prometheus' } });
    running.push(system);
    await system.start();
    logging.getLogger('app').warn('counted');
    const scrape = await send(system.address(), '/metrics');
    expect(scrape.body).toMatch(/^logging_entries_written\{level="warn"\} [1-9]/m);
    expect(scrape.body).toMatch(/^logging_entries_checked\{level="warn"\} [1-9]/m);
  });
});
