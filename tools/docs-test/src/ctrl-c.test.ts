// The README's "Stop it with Ctrl-C": a real Ctrl-C in a terminal (util-linux `script` gives the
// command a pseudo-terminal; the ^C written to it becomes SIGINT for the whole foreground
// process group, as a keyboard's does). The peer stops cleanly either way; the bin run without
// pnpm exits 0 itself. What pnpm prints about its own interrupt is pnpm's, and not asserted.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const repoRoot = resolve(import.meta.dirname, '../../..');
const scratch = mkdtempSync(join(tmpdir(), 'ctrl-c-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const hasScript = spawnSync('script', ['--version']).status === 0;

/** Whether something still accepts connections on the loopback port. */
function accepts(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
  });
}

/** Runs `command` on a pseudo-terminal, types Ctrl-C once it listens; its exit code and everything it printed. */
async function ctrlC(command: string): Promise<{ code: number | null; output: string }> {
  const config = mkdtempSync(join(scratch, 'cfg-'));
  writeFileSync(join(config, 'core.yaml'), 'operations:\n  listenAddress: 127.0.0.1:0\nmetrics:\n  provider: disabled\nvm:\n  endpoint: ""\n');
  const child = spawn('script', ['-qfec', command, '/dev/null'], { cwd: repoRoot, env: { ...process.env, FABRIC_CFG_PATH: config }, stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const deadline = Date.now() + 30_000;
  while (!/listening on/.test(output) && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 50));
  expect(output).toMatch(/listening on/);
  child.stdin.write('\x03');
  const code = await exited;
  return { code, output };
}

describe.runIf(hasScript)('Ctrl-C in a terminal', () => {
  it('node apps/peer/dist/bin.cjs: the peer stops on SIGINT and exits 0', async () => {
    // `exec`: the code `script` reports is then the peer's own. Without it, a non-interactive dash
    // (what `script` runs when SHELL is unset, as on a fresh CI machine) takes the same SIGINT
    // and dies of it while waiting, and `script` reports the shell's 130 whatever the peer did.
    const { code, output } = await ctrlC('exec node apps/peer/dist/bin.cjs');
    expect(output).toContain('stopping operations server signal=SIGINT');
    expect(code, output).toBe(0);
  }, 60_000);

  it('pnpm peer: the peer stops on SIGINT as well (pnpm reports its own interrupt)', async () => {
    const { output } = await ctrlC('pnpm peer');
    // pnpm exits at once on its own SIGINT and `script` closes the terminal with it, so the peer's
    // own stopping line may never reach the output: that the peer is gone is what shows it stopped.
    const port = Number(/listening on 127\.0\.0\.1:(\d+)/.exec(output)?.[1]);
    expect(port).toBeGreaterThan(0);
    const stoppedBy = Date.now() + 15_000;
    while (Date.now() < stoppedBy && (await accepts(port))) await new Promise((r) => setTimeout(r, 100));
    expect(await accepts(port)).toBe(false);
  }, 60_000);
});
