import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { isLogspecError } from '../errors.ts';
import { createLogging, type LoggingOptions } from './registry.ts';

/** A destination that keeps every line written to it. */
function capture(): { stream: Writable; lines: () => string[] } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString('utf8');
      done();
    },
  });
  return { stream, lines: () => text.split('\n').filter((line) => line !== '') };
}

async function linesOf(options: LoggingOptions, log: (logging: ReturnType<typeof createLogging>) => void): Promise<string[]> {
  const out = capture();
  const logging = createLogging({ ...options, destination: out.stream });
  log(logging);
  await new Promise((resolve) => setImmediate(resolve));
  return out.lines();
}

describe("createLogging's pino options (redact, serializers, base, mixin)", () => {
  it('redacts the paths it is given, in JSON and in text lines', async () => {
    for (const format of ['json', 'text'] as const) {
      const lines = await linesOf({ format, pino: { redact: ['password', 'user.token'] } }, (logging) =>
        logging.getLogger('auth').info({ password: 'hunter2', user: { name: 'ann', token: 's3cret' } }, 'login'),
      );
      expect(lines, format).toHaveLength(1);
      expect(lines[0], format).not.toContain('hunter2');
      expect(lines[0], format).not.toContain('s3cret');
      expect(lines[0], format).toContain('[Redacted]');
      expect(lines[0], format).toContain('ann');
    }
  });

  it('applies serializers, base fields and a mixin to every line', async () => {
    const [line] = await linesOf(
      { format: 'json', pino: { base: { service: 'orders' }, serializers: { card: (card: string) => `****${card.slice(-4)}` }, mixin: () => ({ region: 'eu' }) } },
      (logging) => logging.getLogger('pay').info({ card: '4111111111111111' }, 'paid'),
    );
    const parsed = JSON.parse(line!) as Record<string, unknown>;
    expect(parsed).toMatchObject({ service: 'orders', region: 'eu', card: '****1111', msg: 'paid' });
    expect(parsed['pid']).toBeUndefined();
  });

  it('keeps the spec in charge: a level or a transport is refused with a clear error', () => {
    for (const pino of [{ level: 'debug' }, { transport: { target: 'pino-pretty' } }, { hooks: {} }]) {
      let caught: unknown;
      try {
        createLogging({ pino: pino as NonNullable<LoggingOptions['pino']> });
      } catch (error) {
        caught = error;
      }
      expect(isLogspecError(caught)).toBe(true);
      expect((caught as Error).message).toMatch(/^createLogging: pino option (level|transport|hooks) is not passed through; only redact, serializers, base, mixin, mixinMergeStrategy are/);
    }
  });
});
