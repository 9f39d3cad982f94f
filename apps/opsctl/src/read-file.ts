import { constants } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { OpsctlError } from './errors.ts';

/** A CA bundle, a certificate chain or a key: far larger than any real one. */
export const MAX_PEM_FILE_BYTES: number = 1024 * 1024;
/** A file_sd file for tens of thousands of targets with their labels. */
export const MAX_TARGETS_FILE_BYTES: number = 16 * 1024 * 1024;

function kindOf(stats: { isDirectory(): boolean; isFIFO(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean; isSocket(): boolean }): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
}

function why(error: unknown): string {
  switch ((error as NodeJS.ErrnoException).code) {
    case 'ENOENT':
      return 'no such file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'is a directory';
    case 'ELOOP':
      return 'too many levels of symbolic links';
    case 'ENOTDIR':
      return 'a part of the path is not a directory';
    case 'ENAMETOOLONG':
      return 'the path is too long';
    default:
      return (error as Error).message;
  }
}

/**
 * Reads a file opsctl was pointed at, refusing anything but a regular file of at most
 * `maxBytes`. The type is checked before opening (opening a FIFO for reading waits for a writer),
 * the open does not block (in case the path was swapped since), the descriptor is checked again,
 * and no more than `maxBytes + 1` bytes are read (a /proc file or a growing file reports a size
 * that is not the truth). Throws a USAGE OpsctlError: `cannot read <what> file <file>: <why>`.
 */
export async function readBoundedFile(what: string, file: string, maxBytes: number): Promise<Buffer> {
  const fail = (reason: string, cause?: unknown): OpsctlError =>
    new OpsctlError('USAGE', `cannot read ${what} file ${file}: ${reason}`, cause !== undefined ? { cause } : undefined);
  const check = (stats: Awaited<ReturnType<typeof stat>>): void => {
    if (!stats.isFile()) throw fail(`${kindOf(stats)}, expected a regular file`);
    if (stats.size > maxBytes) throw fail(`larger than ${maxBytes} bytes`);
  };
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    check(await stat(file));
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (error) {
    throw error instanceof OpsctlError ? error : fail(why(error), error);
  }
  try {
    check(await handle.stat());
    const chunks: Buffer[] = [];
    let length = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(64 * 1024, maxBytes + 1 - length));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      length += bytesRead;
      if (length > maxBytes) throw fail(`larger than ${maxBytes} bytes`);
    }
    return Buffer.concat(chunks, length);
  } catch (error) {
    throw error instanceof OpsctlError ? error : fail(why(error), error);
  } finally {
    await handle.close().catch(() => undefined);
  }
}
