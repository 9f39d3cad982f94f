import { closeSync, constants, fstatSync, openSync, readSync, statSync, type Stats } from 'node:fs';
import { goErrnoText } from './go-text.ts';

/** Larger than any configuration or PEM file by orders of magnitude; small enough to hold in memory. */
export const DEFAULT_MAX_FILE_BYTES: number = 4 * 1024 * 1024;

/** Longest path a message repeats in full; paths longer than this are cut (Linux allows 4096 bytes). */
const MAX_SHOWN_PATH = 256;

/** What went wrong, for callers that choose their own words; `message` is the line to print. */
export type RegularFileProblem = 'missing' | 'not-regular' | 'too-large' | 'unreadable';

export type RegularFileResult =
  | { readonly ok: true; readonly bytes: Buffer }
  | {
      readonly ok: false;
      readonly problem: RegularFileProblem;
      /**
       * In Go's shape, `<op> <path>: <why>`: `open /x: no such file or directory`,
       * `read /x: is a directory`, `open /x: not a regular file (a named pipe)`,
       * `read /x: larger than 4194304 bytes`. A long or unprintable path is shown cut and quoted.
       */
      readonly message: string;
    };

export interface ReadRegularFileOptions {
  /** Refuse a file holding more than this many bytes. Default 4 MiB. */
  readonly maxBytes?: number;
}

/** What a file that is not a regular one is, in words an operator recognises. */
export function describeFileKind(stats: Stats): string {
  if (stats.isFile()) return 'a regular file';
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a named pipe (FIFO)';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** A path as a message shows it: as is when short and printable, else quoted and cut. */
export function shownPath(path: string): string {
  if (path.length <= MAX_SHOWN_PATH && !/[\x00-\x1f\x7f]/.test(path)) return path;
  const cut = path.length > MAX_SHOWN_PATH ? `${path.slice(0, MAX_SHOWN_PATH)}…` : path;
  return JSON.stringify(cut);
}

const CHUNK_BYTES = 64 * 1024;

/**
 * Reads a whole file that must be a regular file of at most `maxBytes`, without ever blocking
 * on what is not one: the path is stat'ed first (a FIFO, a device, a socket or a directory is
 * refused unopened), then opened with O_NONBLOCK (a FIFO swapped in after the stat does not
 * wait for a writer), and the opened descriptor is checked again. At most `maxBytes + 1` bytes
 * are read, whatever the size says: a /proc file (size 0) is read whole, and a file that grows
 * past the bound is refused rather than followed.
 */
export function readRegularFileSync(path: string, options: ReadRegularFileOptions = {}): RegularFileResult {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_FILE_BYTES;
  const shown = shownPath(path);
  const refuse = (problem: RegularFileProblem, message: string): RegularFileResult => ({ ok: false, problem, message });
  const refuseKind = (stats: Stats): RegularFileResult =>
    stats.isDirectory() ? refuse('not-regular', `read ${shown}: is a directory`) : refuse('not-regular', `open ${shown}: not a regular file (${describeFileKind(stats)})`);
  const tooLarge = (): RegularFileResult => refuse('too-large', `read ${shown}: larger than ${maxBytes} bytes`);
  const failed = (op: string, error: unknown): RegularFileResult => {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    return refuse(code === 'ENOENT' || code === 'ENOTDIR' ? 'missing' : 'unreadable', `${op} ${shown}: ${goErrnoText(error)}`);
  };

  let stats: Stats;
  try {
    stats = statSync(path);
  } catch (error) {
    return failed('open', error);
  }
  if (!stats.isFile()) return refuseKind(stats);
  if (stats.size > maxBytes) return tooLarge();

  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    return failed('open', error);
  }
  try {
    const opened = fstatSync(fd);
    if (!opened.isFile()) return refuseKind(opened);
    if (opened.size > maxBytes) return tooLarge();
    const chunks: Buffer[] = [];
    let total = 0;
    // one byte past the bound tells a file that is too large from one that is exactly full
    while (total <= maxBytes) {
      const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, maxBytes + 1 - total));
      let read: number;
      try {
        read = readSync(fd, chunk, 0, chunk.length, null);
      } catch (error) {
        return failed('read', error);
      }
      if (read === 0) break;
      chunks.push(read === chunk.length ? chunk : chunk.subarray(0, read));
      total += read;
    }
    if (total > maxBytes) return tooLarge();
    return { ok: true, bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total) };
  } finally {
    closeSync(fd);
  }
}
