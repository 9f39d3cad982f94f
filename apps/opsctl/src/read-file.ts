import { readRegularFileSync, shownPath } from '@fabric-ops/ops-http/fs';
import { OpsctlError } from './errors.ts';

/** A CA bundle, a certificate chain or a key: far larger than any real one. */
export const MAX_PEM_FILE_BYTES: number = 1024 * 1024;
/** A file_sd file for tens of thousands of targets with their labels. */
export const MAX_TARGETS_FILE_BYTES: number = 16 * 1024 * 1024;

/**
 * Reads a file opsctl was pointed at through ops-http's `readRegularFileSync` (the one owner of
 * the rules: a regular file of at most `maxBytes`, a FIFO never opened for reading, no more than
 * `maxBytes + 1` bytes read). Its Go-shaped refusal (`open /x: not a regular file (a FIFO)`)
 * is said opsctl's way, naming how the file was given: `cannot read <what> file <file>: <why>`,
 * a USAGE OpsctlError.
 */
export async function readBoundedFile(what: string, file: string, maxBytes: number): Promise<Buffer> {
  const result = readRegularFileSync(file, { maxBytes });
  if (result.ok) return result.bytes;
  const shown = shownPath(file);
  // `open <path>: why` or `read <path>: why`: the path is said once, in opsctl's words.
  const prefix = [`open ${shown}: `, `read ${shown}: `].find((start) => result.message.startsWith(start));
  const why = prefix !== undefined ? result.message.slice(prefix.length) : result.message;
  throw new OpsctlError('USAGE', `cannot read ${what} file ${shown}: ${why}`);
}
