import { ACTIVATE_CASES, ERROR_CASES, ERROR_START_NORMALISED, ERROR_START_SPEC, INVALID_LEVEL_NAMES, LOWEST_LEVEL_CASES, SPEC_CASES, VALID_LEVEL_NAMES } from '@fabric-ops/test-kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isLogspecError, LogspecError } from '../errors.ts';
import { isValidLevelName, levelFromName } from './levels.ts';
import { formatSpec, isValidLoggerName, lowestLevel, normaliseSpec, parseSpec, parseSpecInSlices, resolveLevel, trustedSpec } from './spec.ts';

/** The active-spec behaviour the registry builds on: parse atomically, print, look up. */
function active(spec = '') {
  let parsed = parseSpec(spec);
  return {
    activateSpec(next: string) {
      parsed = parseSpec(next);
    },
    spec: () => formatSpec(parsed),
    defaultLevel: () => parsed.defaultLevel,
    levelOf: (name: string) => resolveLevel(parsed, name),
    lowestLevel: () => lowestLevel(parsed),
  };
}

describe('level names (TestNameToLevel / TestIsValidLevel)', () => {
  it.each(VALID_LEVEL_NAMES)('%s is valid and means %s', (name, level) => {
    expect(isValidLevelName(name)).toBe(true);
    expect(levelFromName(name)).toBe(level);
  });
  it.each(INVALID_LEVEL_NAMES)('%j is not a level', (name) => {
    expect(isValidLevelName(name)).toBe(false);
    expect(levelFromName(name)).toBeUndefined();
  });
});

describe('ActivateSpec gold cases (TestLoggerLevelsActivateSpec)', () => {
  it.each(ACTIVATE_CASES)('$spec', ({ spec, defaultLevel, levels }) => {
    const ll = active();
    ll.activateSpec(spec);
    expect(ll.defaultLevel()).toBe(defaultLevel);
    for (const [name, level] of Object.entries(levels)) expect([name, ll.levelOf(name)]).toEqual([name, level]);
  });
});

describe('ActivateSpec errors (TestLoggerLevelsActivateSpecErrors)', () => {
  it.each(ERROR_CASES)('%j', (spec, message) => {
    const ll = active(ERROR_START_SPEC);
    expect(ll.levelOf('a')).toBe('warn');
    let caught: unknown;
    try {
      ll.activateSpec(spec);
    } catch (error) {
      caught = error;
    }
    expect(isLogspecError(caught)).toBe(true);
    expect((caught as LogspecError).message).toBe(message);
    expect(['BAD_SEGMENT', 'NO_LOGGER', 'BAD_LOGGER_NAME']).toContain((caught as LogspecError).code);
    expect(ll.spec()).toBe(ERROR_START_NORMALISED);
    expect(ll.defaultLevel()).toBe('fatal');
    expect(ll.levelOf('a')).toBe('warn');
    expect(ll.levelOf('b')).toBe('fatal');
  });

  it('names the failing rule in the code', () => {
    const codeOf = (spec: string) => {
      try {
        parseSpec(spec);
        return 'none';
      } catch (error) {
        return (error as LogspecError).code;
      }
    };
    expect(codeOf('bogus')).toBe('BAD_SEGMENT');
    expect(codeOf('=x')).toBe('NO_LOGGER');
    expect(codeOf('a*=info')).toBe('BAD_LOGGER_NAME');
  });
});

describe('Spec() normalisation (TestSpec and extra cases)', () => {
  it.each(SPEC_CASES)('%j → %j', (input, normalised) => {
    const ll = active();
    ll.activateSpec(input);
    expect(ll.spec()).toBe(normalised);
    expect(normaliseSpec(input)).toBe(normalised);
  });
  it('starts at info (DefaultLevel / LoggerLevel of an unknown logger)', () => {
    const ll = active();
    expect(ll.spec()).toBe('info');
    expect(ll.levelOf('some.logger')).toBe('info');
  });
});

describe('lowest level (TestEnabled)', () => {
  it.each(LOWEST_LEVEL_CASES)('%s → %s', (spec, lowest) => {
    const ll = active(spec);
    expect(ll.lowestLevel()).toBe(lowest);
  });
});

describe('logger-name rule', () => {
  it.each(['a', 'a.b', 'A-b_c#d:e', '1', 'x.y.z.0'])('accepts %j', (name) => expect(isValidLoggerName(name)).toBe(true));
  it.each(['', '.', 'a.', '.a', 'a..b', 'a b', 'a/b', 'é', 'a*', 'a=b', 'ab\n'])('rejects %j', (name) => expect(isValidLoggerName(name)).toBe(false));
  it('agrees with Fabric’s regular expression on random names', () => {
    // The reference is a fixed pattern from Fabric's source, never built from input.
    const fabric = /^[A-Za-z0-9_#:-]+(\.[A-Za-z0-9_#:-]+)*$/;
    fc.assert(
      fc.property(fc.stringMatching(/^[a-c.#:_ \-é*]{0,12}$/), (name) => {
        expect(isValidLoggerName(name)).toBe(fabric.test(name));
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('parsed specs', () => {
  it('prints each parsed spec once and takes back only what parseSpec made', () => {
    const parsed = parseSpec('b=warn:a=error');
    expect(formatSpec(parsed)).toBe('a=error:b=warn:info');
    expect(formatSpec(parsed)).toBe(formatSpec(parsed));
    expect(trustedSpec(parsed)).toBe(parsed);
    // A hand-made spec is checked by the grammar like text.
    const forged = { defaultLevel: 'info' as const, loggers: new Map([['a*', 'debug' as const]]) };
    expect(() => trustedSpec(forged)).toThrowError("bad logger name 'a*'");
    expect(trustedSpec({ defaultLevel: 'warn', loggers: new Map([['a', 'debug']]) }).loggers.get('a')).toBe('debug');
  });
});

describe('linear parsing', () => {
  it('parses a spec of a million characters without backtracking', () => {
    const name = 'a'.repeat(200_000);
    const spec = `${name}.${name}=debug:${'b,'.repeat(100_000)}c=info:warn`;
    expect(parseSpec(spec).loggers.size).toBe(3);
    expect(() => parseSpec(`${'a'.repeat(500_000)}!=info`)).toThrowError(/bad logger name/);
  });
});

// Generators for specs that are mostly valid, so that both outcomes are exercised.
const levelName = fc.constantFrom(...VALID_LEVEL_NAMES.map(([n]) => n), 'Debug', 'bogus', '');
const segment = fc.stringMatching(/^[a-c0-9_#-]{1,3}$/);
const loggerName = fc.tuple(fc.array(segment, { minLength: 1, maxLength: 3 }), fc.boolean()).map(([parts, exact]) => parts.join('.') + (exact ? '.' : ''));
const field = fc.oneof(
  levelName,
  fc.tuple(fc.array(loggerName, { minLength: 1, maxLength: 3 }), levelName).map(([names, level]) => `${names.join(',')}=${level}`),
);
const spec = fc.array(field, { maxLength: 6 }).map((fields) => fields.join(':'));
const anyString = fc.oneof(spec, fc.string(), fc.stringMatching(/^[a-z.=:,*]{0,20}$/));

describe('properties', () => {
  it('normalising is idempotent and what it prints parses back to the same levels', () => {
    const probes = ['a', 'a.b', 'a.b.c', 'b', 'c.0', '1', '_', 'a-b', 'x'];
    fc.assert(
      fc.property(spec, (text) => {
        let normalised: string;
        try {
          normalised = normaliseSpec(text);
        } catch (error) {
          expect(isLogspecError(error)).toBe(true);
          return;
        }
        expect(normaliseSpec(normalised)).toBe(normalised);
        const original = parseSpec(text);
        const reparsed = parseSpec(normalised);
        expect(reparsed.defaultLevel).toBe(original.defaultLevel);
        expect(new Map(reparsed.loggers)).toEqual(new Map(original.loggers));
        for (const name of probes) expect(resolveLevel(reparsed, name)).toBe(resolveLevel(original, name));
      }),
      { numRuns: 3_000 },
    );
  });

  it('any string either activates or throws a LogspecError with a grammar code', () => {
    fc.assert(
      fc.property(anyString, (text) => {
        const ll = active('a=warn:error');
        try {
          ll.activateSpec(text);
        } catch (error) {
          expect(error).toBeInstanceOf(LogspecError);
          expect(['BAD_SEGMENT', 'NO_LOGGER', 'BAD_LOGGER_NAME']).toContain((error as LogspecError).code);
          expect((error as LogspecError).message.startsWith(`invalid logging specification '${text}': `)).toBe(true);
          expect(ll.spec()).toBe('a=warn:error');
          return;
        }
        expect(ll.spec()).toBe(normaliseSpec(text));
      }),
      { numRuns: 5_000 },
    );
  });
});

describe('parseSpecInSlices', () => {
  it.each([1, 3, 7, 64])("gives parseSpec's answers with slices of %i characters", async (slice) => {
    for (const [input, normalised] of SPEC_CASES) expect(formatSpec(await parseSpecInSlices(input, slice))).toBe(normalised);
    for (const [spec, message] of ERROR_CASES) await expect(parseSpecInSlices(spec, slice)).rejects.toThrow(message);
  });

  it('yields to the event loop between slices of a large spec', async () => {
    const spec = Array.from({ length: 20_000 }, (_, i) => `logger${i}=debug`).join(':');
    let turns = 0;
    const tick = setInterval(() => turns++, 0);
    const parsed = await parseSpecInSlices(spec, 4_096);
    clearInterval(tick);
    expect(parsed.loggers.size).toBe(20_000);
    expect(turns).toBeGreaterThan(0);
  });
});
