import { ACTIVATE_CASES, ERROR_CASES } from '@fabric-ops/test-kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createLoggingFromEnv, loggingSettingsFromEnv } from './env.ts';
import { isLogspecError, type LogspecError } from '../errors.ts';
import type { Level } from './levels.ts';
import { createLeanLogging } from './lean.ts';
import type { LoggingRegistry, LogspecLogger } from './logger-types.ts';
import { createLogging, type LoggingObserver, type LoggingOptions } from './registry.ts';
import { formatSpec, parseSpec } from './spec.ts';

function memory() {
  const lines: string[] = [];
  return {
    lines,
    write(chunk: string) {
      lines.push(chunk);
    },
    records(): Record<string, unknown>[] {
      return lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    },
  };
}

const PINO_OF: Record<Level, string> = {
  payload: 'trace',
  debug: 'debug',
  info: 'info',
  warn: 'warn',
  error: 'error',
  dpanic: 'fatal',
  panic: 'fatal',
  fatal: 'fatal',
};

type EngineOptions = Pick<LoggingOptions, 'spec' | 'format' | 'observer'> & { readonly destination?: { write(chunk: string): void } };
interface EngineLogger extends Omit<LogspecLogger, 'child'> {
  readonly level: string;
  child(bindings: Record<string, unknown>): EngineLogger;
}

// Every test below that is not about pino's own options runs against both engines: the lean
// engine must behave as the pino one does.
const ENGINES: ReadonlyArray<readonly [string, (options: EngineOptions) => LoggingRegistry<EngineLogger>]> = [
  ['pino', (options) => createLogging(options)],
  ['lean', (options) => createLeanLogging(options)],
];

describe('createLogging: pino options', () => {
  it('leaves a child that asked for its own level at that level', () => {
    const logging = createLogging({ destination: memory() });
    const pinned = logging.getLogger('a').child({}, { level: 'error' });
    logging.activateSpec('debug');
    expect(pinned.level).toBe('error');
    expect(logging.getLogger('a').level).toBe('debug');
  });

  it('returns a logger whose level was set by hand to the spec at the next activation', () => {
    const logging = createLogging({ destination: memory() });
    const logger = logging.getLogger('a');
    const child = logger.child({ k: 1 });
    logger.level = 'debug';
    const later = logger.child({ k: 2 });
    expect([logger.level, child.level, later.level]).toEqual(['debug', 'debug', 'debug']);
    const other = logging.getLogger('c');
    other.level = 'error';
    const first = other.child({ k: 3 });
    expect([other.level, first.level]).toEqual(['error', 'error']);
    logging.activateSpec('b=debug:info');
    expect([logger.level, child.level, later.level, other.level, first.level]).toEqual(['info', 'info', 'info', 'info', 'info']);
  });
});

describe.each(ENGINES)('createLogging (%s engine)', (_engine, create) => {
  it('writes pino JSON lines named after the logger, at info by default', () => {
    const out = memory();
    const logging = create({ format: 'json', destination: out });
    const log = logging.getLogger('gossip.privdata');
    log.debug('hidden');
    log.info({ block: 7 }, 'committed');
    const [record, ...rest] = out.records();
    expect(rest).toEqual([]);
    expect(record).toMatchObject({ level: 30, name: 'gossip.privdata', block: 7, msg: 'committed' });
    expect(record).toHaveProperty('pid');
    expect(logging.spec()).toBe('info');
    expect(logging.format).toBe('json');
  });

  it('gives the same logger for the same name and refuses names Fabric cannot address', () => {
    const logging = create({ destination: memory() });
    expect(logging.getLogger('a.b')).toBe(logging.getLogger('a.b'));
    for (const bad of ['', 'a.', '.a', 'a..b', 'a b', 'é']) {
      expect(() => logging.getLogger(bad)).toThrowError(`bad logger name '${bad}'`);
    }
  });

  it('moves loggers created before an activation, their children and grandchildren, at once', () => {
    const out = memory();
    const logging = create({ format: 'json', destination: out });
    const parent = logging.getLogger('gossip');
    const child = parent.child({ channel: 'mychannel' });
    const grandchild = child.child({ peer: 'p0' });
    const other = logging.getLogger('ledger');
    child.debug('before');
    expect(out.lines).toEqual([]);

    logging.activateSpec('gossip=debug');
    grandchild.debug('after');
    other.debug('other stays at info');
    expect(out.records()).toEqual([expect.objectContaining({ level: 20, name: 'gossip', channel: 'mychannel', peer: 'p0', msg: 'after' })]);
    expect([parent.level, child.level, grandchild.level, other.level]).toEqual(['debug', 'debug', 'debug', 'info']);

    logging.activateSpec('warn');
    expect([parent.level, child.level, grandchild.level, other.level]).toEqual(['warn', 'warn', 'warn', 'warn']);
    expect(child.isLevelEnabled('info')).toBe(false);
    expect(child.isLevelEnabled('warn')).toBe(true);
  });

  it('follows every gold ActivateSpec case through pino levels', () => {
    for (const { spec, levels } of ACTIVATE_CASES) {
      const logging = create({ destination: memory() });
      const loggers = Object.keys(levels).map((name) => [name, logging.getLogger(name), logging.getLogger(name).child({ x: 1 })] as const);
      logging.activateSpec(spec);
      for (const [name, logger, child] of loggers) {
        expect([spec, name, logger.level, child.level]).toEqual([spec, name, PINO_OF[levels[name]!], PINO_OF[levels[name]!]]);
        expect(logging.levelOf(name)).toBe(levels[name]);
      }
    }
  });

  it('maps payload to trace and dpanic/panic to pino’s fatal threshold', () => {
    const out = memory();
    const logging = create({ format: 'json', destination: out, spec: 'a=payload:b=dpanic:c=panic' });
    const a = logging.getLogger('a');
    a.trace('payload line');
    expect(out.records()[0]).toMatchObject({ level: 10, msg: 'payload line' });
    for (const name of ['b', 'c']) {
      const logger = logging.getLogger(name);
      expect(logger.isLevelEnabled('error')).toBe(false);
      expect(logger.isLevelEnabled('fatal')).toBe(true);
    }
    expect(logging.spec()).toBe('a=payload:b=dpanic:c=panic:info');
  });

  it('keeps the old spec and levels when a spec is rejected', () => {
    const logging = create({ destination: memory(), spec: 'fatal:a=warn' });
    const a = logging.getLogger('a.x');
    for (const [spec, message] of ERROR_CASES) {
      let caught: unknown;
      try {
        logging.activateSpec(spec);
      } catch (error) {
        caught = error;
      }
      expect(isLogspecError(caught) && (caught as LogspecError).message).toBe(message);
      expect(logging.spec()).toBe('a=warn:fatal');
      expect(a.level).toBe('warn');
    }
  });

  it('refuses an invalid initial spec or format with a typed error', () => {
    expect(() => create({ spec: 'bogus' })).toThrowError("invalid logging specification 'bogus': bad segment 'bogus'");
    expect(() => create({ format: 'yaml' as 'json' })).toThrowError(/unknown log format 'yaml'/);
  });
});

describe.each(ENGINES)('text format (%s engine)', (_engine, create) => {
  it('writes time, logger, level, message, then fields on one line', () => {
    const out = memory();
    const logging = create({ destination: out, spec: 'debug' });
    const log = logging.getLogger('peer.operations');
    log.info({ config: '/etc/core.yaml', n: 3 }, 'Operations server listening on 127.0.0.1:9443');
    log.debug({ note: 'two words', nested: { a: 1 } }, 'multi\nline');
    log.error({ err: new TypeError('boom') }, 'failed');
    expect(out.lines[0]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} UTC \[peer\.operations\] INFO Operations server listening on 127\.0\.0\.1:9443 config=\/etc\/core\.yaml n=3\n$/);
    expect(out.lines[1]).toMatch(/ \[peer\.operations\] DEBUG multi\\nline note="two words" nested=\{"a":1\}\n$/);
    expect(out.lines[2]).toMatch(/ \[peer\.operations\] ERROR failed err="TypeError: boom"\n$/);
    expect(out.lines.join('')).not.toMatch(/"pid"|hostname/);
  });
});

describe.each(ENGINES)('observer (%s engine)', (_engine, create) => {
  function counting() {
    const counts = { checked: {} as Record<string, number>, written: {} as Record<string, number> };
    const observer: LoggingObserver = {
      checked: (level) => void (counts.checked[level] = (counts.checked[level] ?? 0) + 1),
      written: (level) => void (counts.written[level] = (counts.written[level] ?? 0) + 1),
    };
    return { counts, observer };
  }

  it('counts checks at or above the lowest active level and every write', () => {
    const { counts, observer } = counting();
    const logging = create({ destination: memory(), spec: 'a=debug:warn', observer });
    const b = logging.getLogger('b').child({ k: 1 });
    b.trace('below the lowest level: not even checked');
    b.debug('checked, not written');
    b.info('checked, not written');
    b.warn('written');
    logging.getLogger('a').debug('written');
    expect(counts).toEqual({ checked: { debug: 2, info: 1, warn: 1 }, written: { warn: 1, debug: 1 } });
  });

  it('can be set after loggers exist, follows activations, and can be removed', () => {
    const { counts, observer } = counting();
    const logging = create({ destination: memory() });
    const a = logging.getLogger('a');
    a.info('before the observer');
    logging.setObserver(observer);
    a.info('counted');
    a.debug('below the lowest level');
    logging.activateSpec('x=debug');
    a.debug('now checked');
    logging.setObserver(undefined);
    a.info('not counted');
    a.debug('not counted');
    expect(counts).toEqual({ checked: { info: 1, debug: 1 }, written: { info: 1 } });
  });
});

describe('settings from the environment', () => {
  it('defaults to info and text', () => {
    const settings = loggingSettingsFromEnv({});
    expect(settings.format).toBe('text');
    expect(formatSpec(settings.spec)).toBe('info');
    expect(createLoggingFromEnv({}, { destination: memory() }).spec()).toBe('info');
  });
  it('reads FABRIC_LOGGING_SPEC and FABRIC_LOGGING_FORMAT', () => {
    const logging = createLoggingFromEnv({ FABRIC_LOGGING_SPEC: 'b=warn:a=error', FABRIC_LOGGING_FORMAT: 'json' }, { destination: memory() });
    expect(logging.spec()).toBe('a=error:b=warn:info');
    expect(logging.format).toBe('json');
    expect(loggingSettingsFromEnv({ FABRIC_LOGGING_FORMAT: '%{color}%{time} %{message}' }).format).toBe('text');
  });
  it('refuses an invalid spec or format with one line naming the variable', () => {
    expect(() => loggingSettingsFromEnv({ FABRIC_LOGGING_SPEC: 'bogus' })).toThrowError("FABRIC_LOGGING_SPEC: invalid logging specification 'bogus': bad segment 'bogus'");
    let caught: unknown;
    try {
      loggingSettingsFromEnv({ FABRIC_LOGGING_FORMAT: 'xml' });
    } catch (error) {
      caught = error;
    }
    expect(isLogspecError(caught) && (caught as LogspecError).code).toBe('INVALID_FORMAT');
    expect((caught as Error).message).toMatch(/^FABRIC_LOGGING_FORMAT: unknown log format 'xml'/);
    expect((caught as Error).message).not.toContain('\n');
  });
});

// An independent, deliberately naive statement of Fabric's lookup, to check the registry against.
function expectedLevel(spec: string, name: string): Level {
  const parsed = parseSpec(spec);
  const exact = parsed.loggers.get(`${name}.`);
  if (exact !== undefined) return exact;
  const parts = name.split('.');
  for (let n = parts.length; n > 0; n--) {
    const level = parsed.loggers.get(parts.slice(0, n).join('.'));
    if (level !== undefined) return level;
  }
  return parsed.defaultLevel;
}

describe.each(ENGINES)('registry consistency (%s engine)', (_engine, create) => {
  it('keeps every logger and child at the level of the active spec over 10,000 random specs', () => {
    const names = ['a', 'a.b', 'a.b.c', 'ab', 'b', 'b.a', 'c', 'c.c.c', 'peer.operations', 'operations'];
    const logging = create({ destination: memory() });
    const loggers: [string, EngineLogger][] = [];
    for (const name of names) {
      const logger = logging.getLogger(name);
      loggers.push([name, logger], [name, logger.child({ c: 1 })], [name, logger.child({ c: 1 }).child({ g: 2 })]);
    }
    const level = fc.constantFrom('payload', 'debug', 'INFO', 'warning', 'error', 'dpanic', 'panic', 'fatal', 'notice', 'bogus', '');
    const name = fc.constantFrom('a', 'a.', 'a.b', 'a.b.', 'ab', 'b', 'b.a', 'c.c', 'c..', 'peer', 'operations', '*');
    const field = fc.oneof(
      level,
      fc.tuple(fc.array(name, { minLength: 1, maxLength: 3 }), level).map(([n, l]) => `${n.join(',')}=${l}`),
    );
    const specs = fc.sample(
      fc.array(field, { maxLength: 5 }).map((fields) => fields.join(':')),
      { numRuns: 10_000, seed: 20261121 },
    );
    let active = '';
    let accepted = 0;
    for (const spec of specs) {
      try {
        logging.activateSpec(spec);
        active = spec;
        accepted++;
      } catch (error) {
        expect(isLogspecError(error)).toBe(true);
      }
      for (const [loggerName, logger] of loggers) {
        const expected = PINO_OF[expectedLevel(active, loggerName)];
        if (logger.level !== expected) expect([spec, loggerName, logger.level]).toEqual([spec, loggerName, expected]);
      }
    }
    expect(accepted).toBeGreaterThan(1_000);
    expect(accepted).toBeLessThan(10_000);
  });
});
