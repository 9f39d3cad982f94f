// Reading a file the operator named, for every package that does: a regular file of bounded
// size or a one-line refusal, never a wait on a FIFO or a read of /dev/zero. A separate entry
// so that the index stays what an embedder's handlers call.
export { DEFAULT_MAX_FILE_BYTES, describeFileKind, readRegularFileSync, shownPath } from './internal/regular-file.ts';
export type { ReadRegularFileOptions, RegularFileProblem, RegularFileResult } from './internal/regular-file.ts';
