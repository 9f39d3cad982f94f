// The real opsctl bin against nodes that may be the compromised ones:
// one huge value must not widen every row, a row keeps a bounded part of any answer, and what a
// server sends is shown, never obeyed by the terminal. Discovery and time: hostile-time.test.ts.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeAll, OPSCTL, runOpsctlBin, startAnswering } from './hostile-kit.ts';

const scratch = mkdtempSync(join(tmpdir(), 'fabric-ops-opsctl-hostile-node-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** C0 (but newline), DEL and C1: none of these may reach the terminal from a server. */
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;
const ESCAPES = '1\u001b[2J\u001b]0;pwned\u0007\u001b]52;c;cHduZWQ=\u0007\u009b1A\u007f';

let fileCount = 0;
function targetsFile(groups: readonly { targets: readonly string[]; labels?: Record<string, string> }[]): string {
  const file = join(scratch, `targets-${fileCount++}.json`);
  writeFileSync(file, JSON.stringify(groups));
  return file;
}

describe('one node cannot widen every row', () => {
  it('cuts a 1 MiB Version to one short cell; the other rows stay narrow', async () => {
    const huge = await startAnswering(() => ({ status: 200, body: JSON.stringify({ Version: `2.5.0-${'x'.repeat(1024 * 1024 - 100)}`, CommitSHA: 'abc1234' }) }));
    const normal = await Promise.all(Array.from({ length: 19 }, () => startAnswering(() => ({ status: 200, body: '{"Version":"2.5.0","CommitSHA":"abc1234"}' }))));
    try {
      const file = targetsFile([{ targets: [huge, ...normal].map((s) => s.address), labels: { role: 'peer' } }]);
      const run = await runOpsctlBin(['--targets', file, 'version'], { killAfterMs: 40_000 });
      expect(run.code).toBe(0);
      const lines = run.stdout.split('\n');
      // 20 rows of a few dozen characters each, plus the drift summary: never 20 MiB.
      expect(run.stdout.length).toBeLessThan(8 * 1024);
      for (const line of lines) expect(line.length).toBeLessThan(300);
      const hugeLine = lines.find((line) => line.startsWith(huge.address))!;
      expect(hugeLine).toContain('2.5.0-xxx');
      expect(hugeLine).toContain('…');
      const normalLine = lines.find((line) => line.startsWith(normal[0]!.address))!;
      expect(normalLine.length).toBeLessThan(160);
    } finally {
      await closeAll([huge, ...normal]);
    }
  });
});

describe('a row keeps a bounded part of any answer, and --json rows stream', () => {
  it('keeps 16 failed checks of at most 512 characters each, and says how many more there were', async () => {
    const checks = Array.from({ length: 40 }, (_, i) => ({ component: `check${i}`, reason: `r${i}:${'y'.repeat(20_000)}` }));
    const sick = await startAnswering(() => ({ status: 503, body: JSON.stringify({ status: 'Service Unavailable', time: 'now', failed_checks: checks }) }));
    const well = await startAnswering(() => ({ status: 200, body: '{"status":"OK","time":"now"}' }));
    try {
      const run = await runOpsctlBin(['--address', sick.address, '--address', well.address, 'health', '--json'], { killAfterMs: 40_000 });
      expect(run.code).toBe(1);
      const rows = JSON.parse(run.stdout) as { target: string; ok: boolean; error: string; failed_checks: { component: string; reason: string }[]; more_failed_checks: number }[];
      const row = rows.find((r) => r.target === sick.address)!;
      expect(row.failed_checks).toHaveLength(16);
      expect(row.more_failed_checks).toBe(24);
      for (const check of row.failed_checks) {
        expect(check.reason.length).toBeLessThanOrEqual(512);
        expect(check.reason.endsWith('…')).toBe(true);
      }
      expect(row.error.length).toBeLessThanOrEqual(512);
      expect(rows.find((r) => r.target === well.address)).toMatchObject({ ok: true });
    } finally {
      await closeAll([sick, well]);
    }
  });

  it('prints a --json row as soon as it and the rows before it are final', async () => {
    // The second node holds its answer until the first row is on opsctl's stdout (or 15 s pass:
    // a run that prints nothing before the end shows up as the late release).
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    let releasedByTimer = false;
    const timer = setTimeout(() => {
      releasedByTimer = true;
      release();
    }, 15_000);
    const fast = createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"Version":"2.5.0","CommitSHA":"a"}'));
    const slow = createServer((_req, res) => void released.then(() => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"Version":"2.5.0","CommitSHA":"b"}')));
    // Ordered by host: the fast node's row comes first.
    await new Promise<void>((resolve) => fast.listen(0, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.2', resolve));
    const address = (server: Server, host: string) => `${host}:${(server.address() as { port: number }).port}`;
    try {
      const child = spawn(process.execPath, [OPSCTL, '--address', address(fast, '127.0.0.1'), '--address', address(slow, '127.0.0.2'), 'version', '--json'], {
        env: { ...process.env, OPSCTL_ADDRESS: '', OPSCTL_CERT: '', OPSCTL_KEY: '', OPSCTL_CACERT: '' },
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      let stdout = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
        if (stdout.includes('"CommitSHA":"a"')) release();
      });
      const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
      expect(code).toBe(0);
      expect(releasedByTimer).toBe(false);
      expect((JSON.parse(stdout) as { CommitSHA: string }[]).map((row) => row.CommitSHA)).toEqual(['a', 'b']);
    } finally {
      clearTimeout(timer);
      release();
      fast.closeAllConnections();
      slow.closeAllConnections();
      await Promise.all([new Promise((resolve) => fast.close(resolve)), new Promise((resolve) => slow.close(resolve))]);
    }
  });
});

describe('what a server sends is shown, never obeyed by the terminal', () => {
  const versionBody = JSON.stringify({ Version: ESCAPES, CommitSHA: `abc${ESCAPES}` });
  const healthBody = JSON.stringify({ status: `Service Unavailable${ESCAPES}`, time: 'now', failed_checks: [{ component: `docker${ESCAPES}`, reason: `down${ESCAPES}` }] });

  it.each([
    ['version', 200, versionBody, ['version']],
    ['health', 503, healthBody, ['health']],
    ['logspec get', 200, JSON.stringify({ spec: `info${ESCAPES}` }), ['logspec', 'get']],
    ['an unexpected status', 500, `oops${ESCAPES}`, ['version']],
    ['a rejected spec', 400, JSON.stringify({ error: `bad${ESCAPES}` }), ['logspec', 'set', 'info']],
  ])('one target, %s: stdout and stderr carry the escapes as text', async (_name, status, body, args) => {
    const server = await startAnswering(() => ({ status, body }));
    try {
      const run = await runOpsctlBin(['--address', server.address, ...args], { killAfterMs: 40_000 });
      expect(run.stdout + run.stderr).toContain('\\x1b[2J\\x1b]0;pwned\\x07');
      expect(run.stdout + run.stderr).toContain('\\u009b1A\\x7f');
      expect(run.stdout).not.toMatch(RAW_CONTROL);
      expect(run.stderr).not.toMatch(RAW_CONTROL);
    } finally {
      await server.close();
    }
  });

  it('the metrics page and the verbose health text keep their lines, not their escapes', async () => {
    const page = `# HELP a A gauge.\n# TYPE a gauge\na{v="${ESCAPES}"} 1\nb 2\n`;
    const server = await startAnswering((path) =>
      path === '/metrics' ? { status: 200, body: page, type: 'text/plain; version=0.0.4' } : { status: 200, body: `[+]ping ok${ESCAPES}\nhealthz check passed\n`, type: 'text/plain' },
    );
    try {
      const metrics = await runOpsctlBin(['--address', server.address, 'metrics'], { killAfterMs: 40_000 });
      expect(metrics.stdout).not.toMatch(RAW_CONTROL);
      expect(metrics.stdout.split('\n')).toHaveLength(5);
      const verbose = await runOpsctlBin(['--address', server.address, 'health', '--verbose'], { killAfterMs: 40_000 });
      expect(verbose.stdout).not.toMatch(RAW_CONTROL);
      expect(verbose.stdout).toContain('\\x1b]52;c;cHduZWQ=\\x07');
      expect(verbose.stdout.split('\n')).toHaveLength(3);
    } finally {
      await server.close();
    }
  });

  it('the fleet table and --json rows: escapes and C1 controls as text, JSON values unchanged', async () => {
    const version = await startAnswering(() => ({ status: 200, body: versionBody }));
    const health = await startAnswering(() => ({ status: 503, body: healthBody }));
    try {
      const file = targetsFile([{ targets: [version.address, health.address], labels: { site: `lab${ESCAPES}` } }]);
      for (const command of ['version', 'health']) {
        const table = await runOpsctlBin(['--targets', file, command], { killAfterMs: 40_000 });
        expect(table.stdout).not.toMatch(RAW_CONTROL);
        expect(table.stdout).toContain('\\x1b[2J');
        const json = await runOpsctlBin(['--targets', file, command, '--json'], { killAfterMs: 40_000 });
        expect(json.stdout).not.toMatch(RAW_CONTROL);
        const rows = JSON.parse(json.stdout) as { labels: { site: string }; Version?: string }[];
        expect(rows[0]!.labels.site).toBe(`lab${ESCAPES}`);
        if (command === 'version') expect(rows.find((row) => row.Version !== undefined)!.Version).toBe(ESCAPES);
      }
    } finally {
      await closeAll([version, health]);
    }
  });
});
