import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLeanLogging, type LeanLogging } from './lean.ts';
import type { LogFormat, LoggingRegistry, LogspecLogger } from './logger-types.ts';
import { createLogging } from './registry.ts';

function memory(): { write(line: string): void; lines: string[] } {
  const lines: string[] = [];
  return { write: (line: string) => void lines.push(line), lines };
}

class CodedError extends Error {
  code = 'E_CODED';
}

function circular(): Record<string, unknown> {
  const value: Record<string, unknown> = { b: 2, a: 1 };
  value['self'] = value;
  return value;
}

function deep(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: true };
  for (let i = 0; i < levels; i++) value = { [`d${i}`]: value, n: BigInt(i) };
  return value;
}

/** The same stack wherever the error is made, so that the two engines' lines can be compared. */
function fixed<E extends Error>(error: E): E {
  error.stack = `${error.name}: ${error.message}\n    at fixed (file.js:1:1)`;
  return error;
}

type Call = (logger: LogspecLogger) => void;

/** One entry each: what the bins log, and what the lines must survive. */
const ENTRIES: ReadonlyArray<readonly [string, Call]> = [
  ['a message', (l) => l.info('operations server ready')],
  ['fields and a message', (l) => l.info({ address: '127.0.0.1:9443', tls: true, checks: ['docker'] }, 'started')],
  ['fields only', (l) => l.warn({ count: 3 })],
  ['no arguments', (l) => l.info(undefined as unknown as string)],
  ['null alone', (l) => l.info(null as unknown as string)],
  ['nested objects', (l) => l.info({ outer: { inner: { list: [1, 'two', { three: null }] } }, n: 1.5 }, 'nested')],
  ['an error as the fields', (l) => l.error(fixed(new TypeError('bad input')))],
  ['an error with a message', (l) => l.error(fixed(new TypeError('bad input')), 'handler failed')],
  ['err field', (l) => l.error({ err: fixed(new CodedError('broken pipe')), url: '/x' }, 'operations handler failed')],
  ['err field, no message', (l) => l.error({ err: fixed(new Error('taken as the message')) })],
  ['err with a cause', (l) => l.error({ err: fixed(new Error('outer', { cause: fixed(new Error('inner')) })) }, 'caused')],
  ['aggregate error', (l) => l.error({ err: fixed(new AggregateError([fixed(new Error('one')), fixed(new RangeError('two'))], 'many')) })],
  ['err that is not an error', (l) => l.error({ err: 'just text' }, 'odd')],
  ['an error under another key', (l) => l.warn({ error: fixed(new Error('hidden')) }, 'other key')],
  ['special characters', (l) => l.info({ quote: 'a "b" \\c', ctl: 'line\nbreak\ttab\u0001', unicode: 'é ✓ 😀', eq: 'a=b c' }, 'say "hi"\nthere')],
  ['a long string', (l) => l.info({ long: 'x"'.repeat(80) }, 'y'.repeat(150))],
  ['a lone surrogate', (l) => l.info({ lone: 'a\ud800b' }, 'half \udc00')],
  ['numbers', (l) => l.info({ inf: Infinity, nan: NaN, neg: -0, big: 1e21, small: 5e-7 }, 'numbers')],
  ['skipped values', (l) => l.info({ gone: undefined, fn: () => 1, sym: Symbol('s'), kept: 0 }, 'skipped')],
  ['a cycle', (l) => l.info({ loop: circular() }, 'cycle')],
  ['a BigInt, deep', (l) => l.info({ deep: deep(7) }, 'deep')],
  ['printf directives', (l) => l.info('%s is %d years, %i rounded, %j json, %o obj, %O Obj, 100%% done %s', 'Ann', 41.9, 41.9, { a: 1 }, 'str', [1])],
  ['printf with fields', (l) => l.info({ k: 1 }, 'value %s and %d', 'v')],
  ['extra format arguments', (l) => l.info('no directives', 'extra', 2)],
  ['duplicate and reserved keys', (l) => l.info({ msg: 'inner', level: 99, time: 1, name: 'other' }, 'outer')],
  ['a number message', (l) => l.info(42 as unknown as string)],
  ['toJSON', (l) => l.info({ when: new Date(0), buf: Buffer.from('ab') }, 'json')],
  ['a child with bindings', (l) => l.child({ channel: 'mychannel', n: 1, level: 'ignored' }).info({ tx: 'abc' }, 'child')],
  [
    'a grandchild',
    (l) =>
      l
        .child({ a: 'x y' })
        .child({ b: { nested: true }, err: fixed(new Error('bound')) })
        .warn('grandchild'),
  ],
  ['levels', (l) => (l.trace('t'), l.debug('d'), l.info('i'), l.warn('w'), l.error('e'), l.fatal('f'))],
];

function linesOf(engine: 'pino' | 'lean', format: LogFormat, call: Call): string[] {
  const out = memory();
  const logging: LoggingRegistry = engine === 'pino' ? createLogging({ format, destination: out, spec: 'payload' }) : createLeanLogging({ format, destination: out, spec: 'payload' });
  call(logging.getLogger('peer.operations'));
  return out.lines;
}

describe('lean engine: the bytes of the pino engine', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.UTC(2026, 10, 27, 8, 30, 1, 234));
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  for (const format of ['json', 'text'] as const) {
    it.each(ENTRIES)(`${format}: %s`, (_name, call) => {
      const pinoLines = linesOf('pino', format, call);
      expect(pinoLines.length).toBeGreaterThan(0);
      expect(linesOf('lean', format, call)).toEqual(pinoLines);
    });
  }

  it('writes pid and hostname in JSON and neither in text', () => {
    const [json] = linesOf('lean', 'json', (l) => l.info('x'));
    expect(JSON.parse(json!)).toMatchObject({ level: 30, pid: process.pid, name: 'peer.operations', msg: 'x' });
    const [text] = linesOf('lean', 'text', (l) => l.info({ k: 'v' }, 'x'));
    expect(text).toBe('2026-11-27 08:30:01.234 UTC [peer.operations] INFO x k=v\n');
  });
});

describe('lean engine: levels, children, counts, destination', () => {
  it('follows /logspec changes, and children follow their parent', () => {
    const out = memory();
    const logging = createLeanLogging({ destination: out, format: 'json', spec: 'warn' });
    const logger = logging.getLogger('gossip.privdata');
    const child = logger.child({ channel: 'c1' });
    child.info('hidden');
    expect(out.lines).toHaveLength(0);
    expect(logger.isLevelEnabled('info')).toBe(false);
    logging.activateSpec('gossip=debug:warn');
    child.debug('shown');
    expect(logger.isLevelEnabled('debug')).toBe(true);
    expect(child.level).toBe('debug');
    expect(out.lines.map((line) => JSON.parse(line) as Record<string, unknown>)).toEqual([expect.objectContaining({ level: 20, name: 'gossip.privdata', channel: 'c1', msg: 'shown' })]);
    logging.activateSpec('error');
    child.warn('hidden again');
    expect(out.lines).toHaveLength(1);
    expect(logging.spec()).toBe('error');
    expect(logging.levelOf('gossip.privdata')).toBe('error');
  });

  it('gives the same logger for the same name and refuses a bad name', () => {
    const logging = createLeanLogging({ destination: memory() });
    expect(logging.getLogger('a.b')).toBe(logging.getLogger('a.b'));
    expect(() => logging.getLogger('a..b')).toThrowError(/bad logger name 'a..b'/);
  });

  it('counts entries as Fabric does: written at or above the threshold, checked from the lowest active level', () => {
    const counts: string[] = [];
    const logging = createLeanLogging({ destination: memory(), spec: 'other=debug:info' });
    logging.setObserver({ checked: (level) => counts.push(`checked:${level}`), written: (level) => counts.push(`written:${level}`) });
    const logger = logging.getLogger('peer');
    logger.trace('below the lowest active level: not counted');
    logger.debug('checked only');
    logger.warn('written');
    expect(counts).toEqual(['checked:debug', 'checked:warn', 'written:warn']);
    logging.setObserver(undefined);
    logger.debug('no observer');
    expect(counts).toHaveLength(3);
  });

  it('counts the same as the pino engine for every level and spec', () => {
    const record = (logging: LoggingRegistry): string[] => {
      const counts: string[] = [];
      logging.setObserver({ checked: (level) => counts.push(`c:${level}`), written: (level) => counts.push(`w:${level}`) });
      for (const spec of ['info', 'a=payload:warn', 'fatal', 'a=dpanic:b=debug:error']) {
        logging.activateSpec(spec);
        for (const name of ['a', 'b', 'c']) {
          const logger = logging.getLogger(name).child({ k: 1 });
          logger.trace('t');
          logger.debug('d');
          logger.info('i');
          logger.warn('w');
          logger.error('e');
          logger.fatal('f');
        }
      }
      return counts;
    };
    expect(record(createLeanLogging({ destination: memory() }))).toEqual(record(createLogging({ destination: memory() })));
  });

  it('never waits for a stalled reader: drops beyond the bound, counts them, and tells the observer', () => {
    // A stream nobody reads: after its high-water mark everything queues in user space.
    const stalled = new PassThrough({ highWaterMark: 16 });
    const dropped: number[] = [];
    const logging: LeanLogging = createLeanLogging({ destination: stalled, format: 'json', maxBufferedBytes: 1_000 });
    logging.setObserver({ checked: () => undefined, written: () => undefined, dropped: () => dropped.push(1) });
    const logger = logging.getLogger('peer');
    for (let i = 0; i < 50; i++) logger.info({ i }, 'a line of some length to fill the bound');
    expect(stalled.writableLength).toBeLessThanOrEqual(1_000);
    expect(logging.droppedLines()).toBeGreaterThan(0);
    expect(dropped).toHaveLength(logging.droppedLines());
  });

  it('refuses pino options and a mix of levels with spec', () => {
    expect(() => createLeanLogging({ pino: { redact: ['a'] } } as never)).toThrowError(/pino options need the pino engine; use createLogging/);
    expect(() => createLeanLogging({ levels: createLeanLogging().levels, spec: 'info' })).toThrowError(/either levels or spec\/observer/);
    expect(() => createLeanLogging({ format: 'yaml' as LogFormat })).toThrowError(/unknown log format 'yaml'/);
  });

  it('shares levels with the pino engine: one activation reaches both', () => {
    const leanOut = memory();
    const pinoOut = memory();
    const lean = createLeanLogging({ destination: leanOut, spec: 'warn' });
    const pino = createLogging({ destination: pinoOut, levels: lean.levels });
    lean.activateSpec('debug');
    lean.getLogger('x').debug('lean');
    pino.getLogger('x').debug('pino');
    expect(leanOut.lines).toHaveLength(1);
    expect(pinoOut.lines).toHaveLength(1);
  });
});
