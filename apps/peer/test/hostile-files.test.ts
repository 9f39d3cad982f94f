import { execFileSync } from 'node:child_process';
import { copyFileSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { send, useAppHarness, useTestPki } from '@fabric-ops/test-kit';
import { describe, expect, it } from 'vitest';

// Against the real peer bin: files that are not what they should be
// (a FIFO, /dev/zero, a symlink loop, a /proc file, a huge config), and the same verdict from
// --check-config as from a start.

const BIN = fileURLToPath(new URL('../dist/bin.cjs', import.meta.url));
const { configDir, emptyDir, start, run } = useAppHarness(BIN, 'core.yaml');
const testPki = useTestPki();

const PLAIN = 'vm:\n  endpoint: ""\noperations:\n  listenAddress: 127.0.0.1:0\n';

function tlsConfig(certFile: string, keyFile: string): string {
  return `vm:\n  endpoint: ""\noperations:\n  listenAddress: 127.0.0.1:0\n  tls:\n    enabled: true\n    cert:\n      file: ${certFile}\n    key:\n      file: ${keyFile}\n`;
}

function mkfifo(path: string): string {
  execFileSync('mkfifo', [path]);
  return path;
}

/** --check-config and a start: the same lines on stderr, exit 1, nothing on stdout. */
async function sameVerdict(env: NodeJS.ProcessEnv, args: readonly string[] = []): Promise<string> {
  const checked = await run(env, [...args, '--check-config']);
  const started = await run(env, args);
  expect(checked.code).toBe(1);
  expect(started.code).toBe(1);
  expect(checked.stdout).toBe('');
  expect(started.stdout).toBe('');
  expect(checked.stderr).toBe(started.stderr);
  return checked.stderr;
}

function rssBytes(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match![1]) * 1024;
}

describe('peer: TLS files replaced at run time', () => {
  it('a certificate replaced by a FIFO, then by a symlink to /dev/zero: one line each, old credentials kept, still serving, SIGTERM exits 0', async () => {
    const dir = emptyDir();
    const certFile = join(dir, 'server.crt');
    const keyFile = join(dir, 'server.key');
    copyFileSync(testPki().server.certFile, certFile);
    copyFileSync(testPki().server.keyFile, keyFile);
    const app = await start({ FABRIC_CFG_PATH: configDir(tlsConfig(certFile, keyFile)) });
    const tls = { tls: { ca: testPki().ca.cert } };
    expect((await send(app.address, '/healthz', tls)).status).toBe(200);
    const refusals = () => app.stdout.filter((line) => line.includes('operations TLS credentials not reloaded'));

    renameSync(mkfifo(join(dir, 'swap.fifo')), certFile);
    await expect.poll(refusals, { timeout: 20_000 }).toHaveLength(1);
    expect(refusals()[0]).toContain(`operations.tls.cert.file: open ${certFile}: not a regular file (a named pipe (FIFO))`);
    expect((await send(app.address, '/healthz', { ...tls, timeoutMs: 5_000 })).status).toBe(200);

    const zero = join(dir, 'swap.zero');
    symlinkSync('/dev/zero', zero);
    renameSync(zero, certFile);
    await expect.poll(refusals, { timeout: 20_000 }).toHaveLength(2);
    expect(refusals()[1]).toContain(`operations.tls.cert.file: open ${certFile}: not a regular file (a character device)`);
    expect((await send(app.address, '/healthz', { ...tls, timeoutMs: 5_000 })).status).toBe(200);
    // reading /dev/zero took RSS to 6.5 GB in 10 s; a peer serving stays far below this
    expect(rssBytes(app.child.pid!)).toBeLessThan(400 * 1024 * 1024);

    app.child.kill('SIGTERM');
    const deadline = setTimeout(() => app.kill(), 15_000);
    const exit = await app.exited;
    clearTimeout(deadline);
    expect(exit).toEqual({ code: 0, signal: null });
  }, 90_000);
});

describe('peer: --check-config and a start with files that are not regular files', () => {
  it('a FIFO as the TLS key: the same line from both, at once', async () => {
    const dir = emptyDir();
    const keyFile = mkfifo(join(dir, 'server.key'));
    const stderr = await sameVerdict({ FABRIC_CFG_PATH: configDir(tlsConfig(testPki().server.certFile, keyFile)) });
    expect(stderr).toBe(`core.yaml: operations.tls.key.file: open ${keyFile}: not a regular file (a named pipe (FIFO))\n`);
  }, 60_000);

  it('--config naming a FIFO, /dev/zero or a symlink loop says what it is', async () => {
    const dir = emptyDir();
    const fifo = mkfifo(join(dir, 'core.yaml'));
    const loop = join(dir, 'loop.yaml');
    symlinkSync(loop, loop);
    expect(await sameVerdict({}, ['--config', fifo])).toBe(`--config ${fifo}: ${fifo} is a named pipe (FIFO), not a regular file\n`);
    expect(await sameVerdict({}, ['--config', '/dev/zero'])).toBe('--config /dev/zero: /dev/zero is a character device, not a regular file\n');
    expect(await sameVerdict({}, ['--config', loop])).toBe(`--config ${loop}: ${loop} cannot be read: too many levels of symbolic links\n`);
  }, 60_000);

  it('a /proc file (size 0) is read whole and judged, not passed as empty', async () => {
    const stderr = await sameVerdict({}, ['--config', '/proc/self/maps']);
    expect(stderr).toMatch(/^maps: expected a mapping, got "[0-9a-f]+-[0-9a-f]+ [^\n]*"\n$/);
  }, 60_000);
});

describe("peer: --check-config reaches a start's verdict, with short lines", () => {
  it('FABRIC_LOGGING_SPEC=bogus and FABRIC_LOGGING_FORMAT=bogus fail both, with the same line', async () => {
    const dir = configDir(PLAIN);
    expect(await sameVerdict({ FABRIC_CFG_PATH: dir, FABRIC_LOGGING_SPEC: 'bogus' })).toBe("FABRIC_LOGGING_SPEC: invalid logging specification 'bogus': bad segment 'bogus'\n");
    expect(await sameVerdict({ FABRIC_CFG_PATH: dir, FABRIC_LOGGING_FORMAT: 'bogus' })).toBe(
      "FABRIC_LOGGING_FORMAT: unknown log format 'bogus': expected 'json', 'text' or a Fabric format template\n",
    );
    const long = await sameVerdict({ FABRIC_CFG_PATH: dir, FABRIC_LOGGING_SPEC: 'x'.repeat(100_000) });
    expect(long.length).toBeLessThan(300);
  }, 60_000);

  it('a 70 KB CORE_METRICS_STATSD_PREFIX is refused; a 100 KB bad CHECKTIMEOUT gives a short line', async () => {
    const dir = configDir(`${PLAIN}metrics:\n  provider: statsd\n  statsd:\n    address: 127.0.0.1:8125\n`);
    const prefix = await sameVerdict({ FABRIC_CFG_PATH: dir, CORE_METRICS_STATSD_PREFIX: 'p'.repeat(70_000) });
    expect(prefix).toBe(`CORE_METRICS_STATSD_PREFIX: expected a prefix of at most 1024 bytes (every StatsD line carries it) when metrics.provider is statsd, got "${'p'.repeat(80)}…" (70000 bytes)\n`);
    const timeout = await sameVerdict({ FABRIC_CFG_PATH: dir, CORE_OPERATIONS_HEALTH_CHECKTIMEOUT: '0s'.repeat(50_000) });
    expect(timeout).toBe(`CORE_OPERATIONS_HEALTH_CHECKTIMEOUT: expected a duration of at least 1ms like 10s, got "${'0s'.repeat(40)}…"\n`);
  }, 60_000);
});

describe('peer: a large core.yaml is checked in time linear in its size', () => {
  it('100,000 keys under one map: configuration OK, and a duplicate among them named, each well within the sanity bound', async () => {
    const keys = Array.from({ length: 100_000 }, (_, index) => `  key${index}: value${index}\n`);
    const text = `${PLAIN}ledger:\n${keys.join('')}`;
    const dir = configDir(text);
    const began = Date.now();
    expect(await run({ FABRIC_CFG_PATH: dir }, ['--check-config'])).toEqual({ code: 0, stdout: `configuration OK: ${join(dir, 'core.yaml')}\n`, stderr: '' });
    writeFileSync(join(dir, 'core.yaml'), `${text}  key7: again\n`);
    const duplicate = await run({ FABRIC_CFG_PATH: dir }, ['--check-config']);
    expect(duplicate).toEqual({ code: 1, stdout: '', stderr: `core.yaml: not valid YAML: Map keys must be unique at line ${text.split('\n').length}, column 3\n` });
    // yaml's own check took ~5 minutes for one of these runs; a generous bound for a loaded machine
    expect(Date.now() - began).toBeLessThan(150_000);
  }, 300_000);
});
