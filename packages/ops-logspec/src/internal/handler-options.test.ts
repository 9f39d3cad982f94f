import { describe, expect, it } from 'vitest';
import { logspecHandler } from './handler.ts';
import { createLogLevels } from './levels-registry.ts';

function refusal(logging: unknown, options?: unknown): unknown {
  try {
    logspecHandler(logging as never, options as never);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('logspecHandler arguments from JavaScript callers', () => {
  it('refuses a missing or unusable logging with a typed error, not a TypeError', () => {
    for (const logging of [undefined, null, {}, 'info']) {
      expect(refusal(logging)).toEqual(
        expect.objectContaining({ name: 'LogspecError', code: 'INVALID_OPTIONS', message: expect.stringMatching(/^logspecHandler: expected the logging to control .* got /) as unknown }),
      );
    }
    expect((refusal(undefined) as Error).message.endsWith('got undefined')).toBe(true);
  });

  it('refuses unknown options and options of the wrong kind, named', () => {
    const levels = createLogLevels();
    expect(refusal(levels, { bodyLimitBytes: 10 })).toEqual(
      expect.objectContaining({ message: 'logspecHandler: unknown option bodyLimitBytes (known: identify, bodyLimit, auditLoggerName, audit, beforeActivate)' }),
    );
    expect(refusal(levels, { bodyLimit: '1mb' })).toEqual(expect.objectContaining({ message: 'logspecHandler: bodyLimit must be a whole number of bytes, got string 1mb' }));
    expect(refusal(levels, { identify: 'subject' })).toEqual(expect.objectContaining({ message: 'logspecHandler: identify must be a function, got string' }));
    expect(refusal(levels, null)).toEqual(expect.objectContaining({ message: 'logspecHandler: expected options as an object, got null' }));
    expect(refusal(levels, { bodyLimit: 10, auditLoggerName: 'ops' })).toBeUndefined();
  });
});

describe('createLogging and createLeanLogging options from JavaScript callers', () => {
  it('refuse an unknown key, naming it and the known ones', async () => {
    const { createLogging } = await import('./registry.ts');
    const { createLeanLogging } = await import('./lean.ts');
    expect(() => createLogging({ level: 'debug' } as never)).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTIONS', message: 'createLogging: unknown option level (known: spec, format, destination, maxBufferedBytes, observer, levels, pino)' }),
    );
    expect(() => createLeanLogging({ destiantion: process.stdout } as never)).toThrow(
      'createLeanLogging: unknown option destiantion (known: spec, format, destination, maxBufferedBytes, observer, levels)',
    );
    expect(() => createLeanLogging(null as never)).toThrow('createLeanLogging: expected options as an object, got null');
  });
});
