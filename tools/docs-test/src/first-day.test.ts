// What the README's quick start promises a newcomer, run as they would run it: the scripts
// through pnpm, the bins through `pnpm exec`, and a second build that has nothing to do.
import { spawn, execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freeTcpPort } from '@fabric-ops/test-kit';

const repoRoot = resolve(import.meta.dirname, '../../..');
const scratch = mkdtempSync(join(tmpdir(), 'first-day-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function run(command: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(command, args, { cwd: repoRoot, timeout: 60_000 }, (error, stdout, stderr) => {
      done({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
    });
  });
}

async function portIsFree(port: number): Promise<boolean> {
  const probe = createServer();
  try {
    probe.listen(port, '127.0.0.1');
    await once(probe, 'listening');
    return true;
  } catch {
    return false;
  } finally {
    probe.close();
  }
}

async function startPeerThroughPnpm(): Promise<{ pnpm: ReturnType<typeof spawn>; port: number; output: () => string }> {
  const port = await freeTcpPort();
  const configDir = mkdtempSync(join(scratch, 'cfg-'));
  writeFileSync(join(configDir, 'core.yaml'), `operations:\n  listenAddress: 127.0.0.1:${port}\nmetrics:\n  provider: disabled\nvm:\n  endpoint: ""\n`);
  const pnpm = spawn('pnpm', ['peer'], { cwd: repoRoot, env: { ...process.env, FABRIC_CFG_PATH: configDir }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  pnpm.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  pnpm.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 30_000;
  while (!/listening on/i.test(output)) {
    if (Date.now() > deadline || pnpm.exitCode !== null) throw new Error(`pnpm peer did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { pnpm, port, output: () => output };
}

describe('the quick start, as a newcomer runs it', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    'pnpm peer stops cleanly when pnpm gets %s: exit 0, no ELIFECYCLE, port released',
    async (signal) => {
      const { pnpm, port, output } = await startPeerThroughPnpm();
      expect(await portIsFree(port)).toBe(false);
      pnpm.kill(signal);
      const [code] = (await once(pnpm, 'exit')) as [number | null];
      expect(code).toBe(0);
      expect(output()).not.toContain('ELIFECYCLE');
      // The server itself must be gone too, not orphaned and still holding the port.
      const deadline = Date.now() + 5_000;
      while (!(await portIsFree(port)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(await portIsFree(port)).toBe(true);
    },
    60_000,
  );

  it('runs the bins with pnpm exec after one install', async () => {
    const peer = await run('pnpm', ['exec', 'fabric-ops-peer', '--help']);
    expect(peer.code).toBe(0);
    expect(peer.stdout).toContain('usage: fabric-ops-peer');
    const orderer = await run('pnpm', ['exec', 'fabric-ops-orderer', '--help']);
    expect(orderer.stdout).toContain('usage: fabric-ops-orderer');
    const opsctl = await run('pnpm', ['exec', 'opsctl', '--help']);
    expect(opsctl.code).toBe(0);
    expect(opsctl.stdout).toContain('usage: opsctl');
  }, 60_000);

  it('builds nothing when dist/ is current (pnpm test right after pnpm install)', async () => {
    const first = await run('node', ['scripts/build.mjs', '--if-stale']);
    expect(first.code).toBe(0);
    const second = await run('node', ['scripts/build.mjs', '--if-stale']);
    expect(second.code).toBe(0);
    expect(second.stdout.trim()).toMatch(/^build: all \d+ packages up to date$/);
  }, 120_000);
});
