import type { DestinationStream } from 'pino';

/** The default bound on what waits for a slow log reader, in UTF-16 code units of queued text. */
export const DEFAULT_MAX_BUFFERED: number = 1024 * 1024;

/** The part of a Node writable stream the bounded sink needs (process.stdout, a socket, a file stream). */
export interface WritableLike {
  write(chunk: string): boolean;
  readonly writableLength: number;
  on?(event: 'error', listener: (error: Error) => void): unknown;
}

/** A pino destination that never waits for its reader. */
export interface BoundedSink extends DestinationStream {
  write(line: string): void;
  /** Lines dropped so far because the reader fell behind (or went away). */
  dropped(): number;
  /**
   * Resolves once everything queued is handed to the OS, or after `timeoutMs`, whichever is
   * first. (Not named `flush`: pino's `logger.flush(cb)` calls a destination's `flush` with a callback.)
   */
  whenFlushed(timeoutMs: number): Promise<void>;
}

const FLUSH_POLL_MS = 10;

// One error listener per stream, however many registries write to it (process.stdout is shared).
const healthByStream = new WeakMap<WritableLike, { broken: boolean }>();

function healthOf(stream: WritableLike): { broken: boolean } {
  let health = healthByStream.get(stream);
  if (health === undefined) {
    const created = { broken: false };
    // A reader that went away (EPIPE) is a sink that drops everything; an unhandled stream
    // error would otherwise end the process.
    stream.on?.('error', () => {
      created.broken = true;
    });
    healthByStream.set(stream, created);
    health = created;
  }
  return health;
}

export function isWritableLike(value: unknown): value is WritableLike {
  return typeof value === 'object' && value !== null && typeof (value as { writableLength?: unknown }).writableLength === 'number';
}

/**
 * Writes lines to a Node stream without ever blocking the process on its reader.
 *
 * pino's default (a synchronous write to fd 1) stops the whole event loop, signals
 * included, once a reader that stopped reading lets the pipe fill (~64 KiB): logging must
 * never be able to stop the server. Node's own stdout on a pipe or socket is asynchronous
 * (it queues in user space), so this writes through it and bounds that queue instead: a
 * line that would take the queue past `maxBuffered` is dropped and counted, never waited
 * for. On a terminal or a file Node writes synchronously and nothing ever queues.
 */
export function boundedSink(stream: WritableLike, maxBuffered: number = DEFAULT_MAX_BUFFERED, onDrop?: () => void): BoundedSink {
  let dropped = 0;
  const health = healthOf(stream);
  const drop = (): void => {
    dropped++;
    onDrop?.();
  };
  return {
    write(line: string): void {
      if (health.broken || stream.writableLength + line.length > maxBuffered) {
        drop();
        return;
      }
      stream.write(line);
    },
    dropped: () => dropped,
    whenFlushed(timeoutMs: number): Promise<void> {
      if (health.broken || stream.writableLength === 0) return Promise.resolve();
      const deadline = Date.now() + timeoutMs;
      return new Promise<void>((resolve) => {
        // 'drain' only follows a write that passed the high-water mark, so look at the queue instead.
        const timer = setInterval(() => {
          if (health.broken || stream.writableLength === 0 || Date.now() >= deadline) {
            clearInterval(timer);
            resolve();
          }
        }, FLUSH_POLL_MS);
      });
    },
  };
}
