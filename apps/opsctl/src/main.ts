import { readFileSync } from 'node:fs';
import { parseArgs, USAGE } from './args.ts';
import { createOpsClient } from './client.ts';
import { runCommand } from './commands.ts';
import { runFleetCommand, type FleetRow } from './fleet.ts';
import { fleetJsonRow, fleetText } from './fleet-output.ts';
import { EXIT_CODES, exitCodeFor, isOpsctlError } from './errors.ts';
import { jsonText, visibleText } from './internal/terminal-text.ts';

export interface OpsctlIo {
  /** Writes to stdout; `false` (as from a stream's write) says to wait for `drained` before more. */
  readonly stdout: (text: string) => boolean | void;
  /** Resolves once stdout has taken what was written: long output waits here rather than queue in memory. */
  readonly drained?: () => Promise<void>;
  readonly stderr: (text: string) => void;
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** `opsctl <version>`, from the package.json beside src/ and dist/ alike. */
function opsctlVersion(): string {
  try {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: unknown };
    return typeof manifest.version === 'string' ? manifest.version : 'unknown';
  } catch {
    return 'unknown';
  }
}

/**
 * Runs opsctl with `argv` (without node and the script); resolves the exit code.
 * Failures print one line on stderr (`opsctl: …`), or `{"error":…}` on stdout with --json.
 * Against a set of targets, every target gets a row and the code is 0 only when all succeeded.
 */
export async function runOpsctl(argv: readonly string[], io: OpsctlIo): Promise<number> {
  // --deadline counts from here: reading files and asking Prometheus spend it too.
  const startedAt = performance.now();
  const json = argv.includes('--json');
  try {
    const invocation = parseArgs(argv, io.env ?? {});
    if (invocation.command.kind === 'help') {
      io.stdout(USAGE);
      return EXIT_CODES.OK;
    }
    if (invocation.command.kind === 'version-of-opsctl') {
      const version = opsctlVersion();
      io.stdout(invocation.json ? `${jsonText({ opsctl: version })}\n` : `opsctl ${version}\n`);
      return EXIT_CODES.OK;
    }
    if (invocation.fleet !== undefined) {
      // --json rows go out as each is final (in target order), not as one document at the end.
      let written = 0;
      const onRow = (row: FleetRow): void => {
        io.stdout(`${written === 0 ? '[\n' : ',\n'}${fleetJsonRow(row)}`);
        written++;
      };
      const result = await runFleetCommand(invocation.command, invocation.connection, invocation.fleet, { startedAt, ...(invocation.json ? { onRow } : {}) });
      io.stdout(invocation.json ? (written === 0 ? '[]\n' : '\n]\n') : fleetText(invocation.command, result.rows));
      return result.exitCode;
    }
    // Timers of AbortSignal.timeout do not keep the process alive once the command is done.
    const signal = invocation.deadlineMs !== undefined ? AbortSignal.timeout(invocation.deadlineMs) : undefined;
    const client = await createOpsClient(invocation.connection, signal !== undefined ? { signal } : {});
    const result = await runCommand(client, invocation.command, invocation.json);
    if (typeof result.stdout === 'string') io.stdout(result.stdout);
    else {
      for (const piece of result.stdout) if (io.stdout(piece) === false && io.drained !== undefined) await io.drained();
    }
    return result.exitCode;
  } catch (error) {
    if (!isOpsctlError(error)) throw error;
    if (json) io.stdout(`${jsonText({ error: error.message, code: error.code })}\n`);
    // A message may quote what a server sent: shown, never obeyed by the terminal.
    io.stderr(`opsctl: ${visibleText(error.message)}\n`);
    return exitCodeFor(error.code);
  }
}
