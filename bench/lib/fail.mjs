// Every bench script imports this first: an error that escapes a script (a refused connection, a
// server that exited, a missing tool) ends the run with one clear line naming the script and the
// cause, and exit code 1, instead of Node's unhandled-exception dump.
import { basename } from 'node:path';

const script = basename(process.argv[1] ?? 'bench');

/** A message with the causes an Error carries (a connection error's code, a wrapped cause). */
export function describeError(error) {
  if (!(error instanceof Error)) return String(error);
  const code = typeof error.code === 'string' ? ` [${error.code}]` : '';
  const cause = error.cause === undefined ? '' : `\n  caused by: ${describeError(error.cause)}`;
  return `${error.message}${code}${cause}`;
}

process.on('uncaughtException', (error) => {
  process.stderr.write(`\n${script} failed: ${describeError(error)}\n`);
  if (process.env.BENCH_STACK === '1' && error instanceof Error) process.stderr.write(`${error.stack}\n`);
  process.exit(1);
});
