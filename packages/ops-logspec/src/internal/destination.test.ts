import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { boundedSink } from './destination.ts';
import { createLogging } from './registry.ts';

/** A stream whose reader has stopped: every write is queued until `release()`. */
function stalledStream() {
  const held: Array<() => void> = [];
  const written: string[] = [];
  const stream = new Writable({
    decodeStrings: false,
    write(chunk: string, _encoding, done) {
      held.push(() => {
        written.push(chunk);
        done();
      });
    },
  });
  return {
    stream,
    written,
    release() {
      // Each completed write lets the stream hand over the next queued one.
      while (held.length > 0) held.shift()!();
    },
  };
}

describe('boundedSink', () => {
  it('never waits: past the bound, lines are dropped and counted, and the rest still arrives', () => {
    const { stream, written, release } = stalledStream();
    const drops: number[] = [];
    const sink = boundedSink(stream, 1_000, () => drops.push(1));
    const line = `${'x'.repeat(99)}\n`;
    for (let i = 0; i < 50; i++) sink.write(line);
    expect(stream.writableLength).toBeLessThanOrEqual(1_000);
    expect(sink.dropped()).toBe(40);
    expect(drops).toHaveLength(40);
    for (let i = 0; i < 20 && stream.writableLength > 0; i++) release();
    expect(written).toHaveLength(10);
    sink.write(line);
    expect(sink.dropped()).toBe(40);
  });

  it('drops everything once the stream has failed (a reader that went away), without throwing', () => {
    const stream = new Writable({ write: (_c, _e, done) => done(new Error('EPIPE')) });
    const sink = boundedSink(stream, 1_000);
    sink.write('a\n');
    return new Promise<void>((resolve) => {
      setImmediate(() => {
        sink.write('b\n');
        expect(sink.dropped()).toBe(1);
        resolve();
      });
    });
  });

  it('flushes what is queued, and gives up after the timeout when the reader never comes back', async () => {
    const first = stalledStream();
    const sink = boundedSink(first.stream, 10_000);
    sink.write('queued\n');
    sink.write('queued\n');
    const flushed = sink.whenFlushed(5_000);
    setTimeout(() => {
      first.release();
      first.release();
    }, 20);
    await flushed;
    expect(first.written).toEqual(['queued\n', 'queued\n']);

    const second = stalledStream();
    const stuck = boundedSink(second.stream, 10_000);
    stuck.write('never read\n');
    const started = Date.now();
    await stuck.whenFlushed(50);
    expect(Date.now() - started).toBeGreaterThanOrEqual(40);
    expect(second.stream.writableLength).toBeGreaterThan(0);
  });
});

describe('createLogging on a stream destination', () => {
  it('counts dropped lines for the observer and in droppedLines(), and flush() waits for the rest', async () => {
    const { stream, written, release } = stalledStream();
    const counts = { checked: 0, written: 0, dropped: 0 };
    const logging = createLogging({
      format: 'json',
      destination: stream,
      maxBufferedBytes: 2_000,
      observer: { checked: () => counts.checked++, written: () => counts.written++, dropped: () => counts.dropped++ },
    });
    const log = logging.getLogger('busy');
    for (let i = 0; i < 100; i++) log.info({ i }, 'a line of about a hundred characters');
    expect(logging.droppedLines()).toBeGreaterThan(50);
    expect(counts.dropped).toBe(logging.droppedLines());
    expect(counts.written).toBe(100);
    const flushed = logging.flush(5_000);
    const timer = setInterval(release, 5);
    await flushed;
    clearInterval(timer);
    expect(written.length + logging.droppedLines()).toBe(100);
    expect(JSON.parse(written[0]!)).toMatchObject({ i: 0 });
  });

  it('calls a destination without writableLength as it is (no bound, nothing dropped)', async () => {
    const lines: string[] = [];
    const logging = createLogging({ destination: { write: (l: string) => void lines.push(l) } });
    for (let i = 0; i < 10; i++) logging.getLogger('a').info('x');
    expect(lines).toHaveLength(10);
    expect(logging.droppedLines()).toBe(0);
    await logging.flush(10);
  });
});

describe('many registries on one stream', () => {
  it('add one error listener to it, not one each', () => {
    const { stream } = stalledStream();
    for (let i = 0; i < 20; i++) createLogging({ destination: stream });
    expect(stream.listenerCount('error')).toBe(1);
  });
});

describe("pino's logger.flush(cb)", () => {
  it('calls back at once on a stream destination, in both formats', async () => {
    for (const format of ['json', 'text'] as const) {
      const { stream } = stalledStream();
      const logging = createLogging({ format, destination: stream });
      const log = logging.getLogger('a');
      log.info('queued');
      await new Promise<void>((resolve) => log.flush(() => resolve()));
    }
  });
});
