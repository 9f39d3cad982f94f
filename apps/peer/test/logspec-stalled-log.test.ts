import { spawn, type ChildProcess } from 'node:child_process';
import { Agent } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { configDir, freeTcpPort, send, spawnApp } from '@fabric-ops/test-kit';

// Logging must never stop the server: with stdout and stderr piped to a
// reader that stops reading, the peer used to freeze (every endpoint, and SIGTERM) once
// about 64 KiB of log lines filled the pipe. Every PUT /logspec writes an audit line, so a
// client can fill it quickly.

const bin = fileURLToPath(new URL('../dist/bin.cjs', import.meta.url));
let child: ChildProcess | undefined;
afterEach(() => {
  child?.kill('SIGKILL');
  child = undefined;
});

/** Starts the peer with both output pipes paused (never read unless the test resumes them). */
async function startWithPausedOutput(): Promise<{ address: string; exited: Promise<number | null>; child: ChildProcess }> {
  const address = `127.0.0.1:${await freeTcpPort()}`;
  const dir = configDir('core.yaml', `vm:\n  endpoint: ""\noperations:\n  listenAddress: "${address}"\n`);
  const started = spawn(process.execPath, [bin], { env: { ...process.env, FABRIC_CFG_PATH: dir, FABRIC_LOGGING_SPEC: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] });
  child = started;
  started.stdout!.pause();
  started.stderr!.pause();
  const exited = new Promise<number | null>((resolve) => started.once('exit', (code) => resolve(code)));
  // The ready line is not read here: wait for the port instead.
  for (let i = 0; ; i++) {
    try {
      if ((await send(address, '/version', { timeoutMs: 1_000 })).status === 200) break;
    } catch (error) {
      if (i > 150) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { address, exited, child: started };
}

// Specs whose audit lines are about 2 KiB each (old and new spec are each cut at 1 KiB).
const longSpec = (tag: string) => `${Array.from({ length: 80 }, (_, i) => `${tag}.logger${i}`).join(',')}=debug:info`;

/** Sends `count` PUTs; adds to `logged.total` the bytes of spec text their audit lines carry (old + new). */
async function putMany(address: string, count: number, logged: { total: number }): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  try {
    for (let i = 0; i < count; i += 4) {
      const replies = await Promise.all(
        [0, 1, 2, 3].map((k) => {
          const spec = longSpec(`p${(i + k) % 2}`);
          logged.total += 2 * Math.min(spec.length, 1024);
          return send(address, '/logspec', { agent, method: 'PUT', body: JSON.stringify({ spec }), timeoutMs: 5_000 });
        }),
      );
      for (const reply of replies) expect(reply.status).toBe(204);
    }
  } finally {
    agent.destroy();
  }
}

describe('a log reader that stops reading', () => {
  it('leaves every endpoint answering and SIGTERM exiting 0 within seconds', async () => {
    const app = await startWithPausedOutput();
    const logged = { total: 0 };
    // ~2 KiB of log per PUT: 1,600 of them are over 3 MiB, far past the pipe, the socket
    // buffers and the 1 MiB the logger may hold back.
    await putMany(app.address, 1_600, logged);
    expect(logged.total).toBeGreaterThan(3_000_000);
    const version = await send(app.address, '/version', { timeoutMs: 5_000 });
    expect(version.status).toBe(200);
    const spec = await send(app.address, '/logspec', { timeoutMs: 5_000 });
    expect(JSON.parse(spec.body).spec).toMatch(/^p[01]\.logger0=debug:/);

    const stoppedAt = Date.now();
    app.child.kill('SIGTERM');
    const code = await Promise.race([app.exited, new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 8_000))]);
    expect(code).toBe(0);
    expect(Date.now() - stoppedAt).toBeLessThan(8_000);
  }, 120_000);

  it('still gets the lines held back while it paused, up to the last one, at a normal exit', async () => {
    const app = await startWithPausedOutput();
    // About 400 KiB: more than the pipe holds, less than the logger's bound, so nothing is dropped.
    await putMany(app.address, 200, { total: 0 });
    const marker = 'last.change=warn:info';
    expect((await send(app.address, '/logspec', { method: 'PUT', body: JSON.stringify({ spec: marker }) })).status).toBe(204);
    app.child.kill('SIGTERM');
    // Resume reading only once the process is already stopping.
    await new Promise((resolve) => setTimeout(resolve, 300));
    let out = '';
    // An explicitly paused stream stays paused when a 'data' listener is added: resume it.
    const closed = new Promise((resolve) => app.child.stdout!.once('close', resolve));
    app.child
      .stdout!.setEncoding('utf8')
      .on('data', (chunk: string) => (out += chunk))
      .resume();
    app.child.stderr!.resume();
    expect(await app.exited).toBe(0);
    await closed;
    const audits = out.split('\n').filter((line) => line.includes('logging spec changed'));
    expect(audits).toHaveLength(201);
    expect(audits.at(-1)).toContain(`newSpec="${marker}"`);
    expect(out).toContain('stopping operations server');
  }, 120_000);
});

describe('a 100,000-logger spec', () => {
  it('is accepted, and its audit line stays bounded while naming both specs', async () => {
    const dir = configDir('core.yaml', 'vm:\n  endpoint: ""\noperations:\n  listenAddress: 127.0.0.1:0\n');
    const app = await spawnApp(bin, { env: { FABRIC_CFG_PATH: dir, FABRIC_LOGGING_SPEC: 'info' } });
    child = app.child;
    const spec = `${Array.from({ length: 100_000 }, (_, i) => `l${i.toString(36)}`).join(',')}=debug:info`;
    const body = JSON.stringify({ spec });
    // Inside the default 1 MiB body limit.
    expect(body.length).toBeLessThan(1024 * 1024);
    expect((await send(app.address, '/logspec', { method: 'PUT', body, timeoutMs: 30_000 })).status).toBe(204);
    const active = JSON.parse((await send(app.address, '/logspec')).body).spec as string;
    expect(active.length).toBeGreaterThan(600_000);
    for (let i = 0; i < 50 && !app.stdout.some((line) => line.includes('logging spec changed')); i++) await new Promise((resolve) => setTimeout(resolve, 100));
    const audit = app.stdout.find((line) => line.includes('logging spec changed'))!;
    expect(audit.length).toBeLessThanOrEqual(3 * 1024);
    expect(audit).toContain('oldSpec=info ');
    expect(audit).toContain(`newSpecLength=${active.length} `);
    expect(audit).toMatch(/newSpecSha256=[0-9a-f]{16}/);
  }, 60_000);
});
