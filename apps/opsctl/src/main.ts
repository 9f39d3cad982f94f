import { parseArgs, USAGE } from './args.ts';
import { createOpsClient } from './client.ts';
import { runCommand } from './commands.ts';
import { runFleetCommand } from './fleet.ts';
import { fleetJson, fleetText } from './fleet-output.ts';
import { EXIT_CODES, exitCodeFor, isOpsctlError } from './errors.ts';

export interface OpsctlIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/**
 * Runs opsctl with `argv` (without node and the script); resolves the exit code.
 * Failures print one line on stderr (`opsctl: …`), or `{"error":…}` on stdout with --json.
 * Against a set of targets, every target gets a row and the code is 0 only when all succeeded.
 */
export async function runOpsctl(argv: readonly string[], io: OpsctlIo): Promise<number> {
  const json = argv.includes('--json');
  try {
    const invocation = parseArgs(argv, io.env ?? {});
    if (invocation.command.kind === 'help') {
      io.stdout(USAGE);
      return EXIT_CODES.OK;
    }
    if (invocation.fleet !== undefined) {
      const result = await runFleetCommand(invocation.command, invocation.connection, invocation.fleet);
      io.stdout(invocation.json ? fleetJson(result.rows) : fleetText(invocation.command, result.rows));
      return result.exitCode;
    }
    // Timers of AbortSignal.timeout do not keep the process alive once the command is done.
    const signal = invocation.deadlineMs !== undefined ? AbortSignal.timeout(invocation.deadlineMs) : undefined;
    const client = await createOpsClient(invocation.connection, signal !== undefined ? { signal } : {});
    const result = await runCommand(client, invocation.command, invocation.json);
    if (typeof result.stdout === 'string') io.stdout(result.stdout);
    else for (const piece of result.stdout) io.stdout(piece);
    return result.exitCode;
  } catch (error) {
    if (!isOpsctlError(error)) throw error;
    if (json) io.stdout(`${JSON.stringify({ error: error.message, code: error.code })}\n`);
    io.stderr(`opsctl: ${error.message}\n`);
    return exitCodeFor(error.code);
  }
}
