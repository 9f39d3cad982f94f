import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createLeanLogging } from './lean.ts';
import type { LoggingRegistry } from './logger-types.ts';
import { createLogging } from './registry.ts';

function collector(): { stream: Writable; lines: () => string[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return {
    stream,
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter((line) => line !== ''),
  };
}

// Real pino.multistream: it routes each line by the level pino hands it beside the line.
describe('a pino.multistream destination', () => {
  for (const engine of ['createLogging', 'createLeanLogging'] as const) {
    for (const format of ['text', 'json'] as const) {
      it(`gets every line, routed by level (${engine}, ${format})`, () => {
        const all = collector();
        const errors = collector();
        const destination = pino.multistream([
          { level: 'debug', stream: all.stream },
          { level: 'error', stream: errors.stream },
        ]);
        const options = { spec: 'debug', format, destination } as const;
        const logging: LoggingRegistry = engine === 'createLogging' ? createLogging(options) : createLeanLogging(options);
        const logger = logging.getLogger('orders');
        logger.debug('looking');
        logger.info('placed');
        logger.error('refused');
        expect(all.lines()).toHaveLength(3);
        expect(errors.lines()).toHaveLength(1);
        if (format === 'text') {
          expect(all.lines()[1]).toMatch(/ \[orders\] INFO placed$/);
          expect(errors.lines()[0]).toMatch(/ \[orders\] ERROR refused$/);
        } else {
          expect(JSON.parse(errors.lines()[0]!)).toMatchObject({ level: 50, name: 'orders', msg: 'refused' });
        }
      });
    }
  }
});
