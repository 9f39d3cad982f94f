import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { send } from './http-client.ts';
import { runAppToExit, spawnApp, type RunningApp } from './spawn-app.ts';

export interface AppContract {
  /** Absolute path of the built bin (`dist/bin.cjs` for the peer and orderer). */
  readonly bin: string;
  /** `core.yaml` or `orderer.yaml`. */
  readonly configFileName: string;
  /** A config file whose operations server listens on `address`. */
  readonly configWithListenAddress: (address: string) => string;
  /** The app's package.json, for the version /version must report. */
  readonly packageJsonPath: string;
  /** The first words of the start-up failure line (Fabric's wording differs per app). */
  readonly startFailurePrefix: string;
}

/** Writes a config directory for FABRIC_CFG_PATH. */
export function configDir(fileName: string, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'fabric-ops-cfg-'));
  writeFileSync(join(dir, fileName), text);
  return dir;
}

/**
 * The behaviour the peer and the orderer bins share: run under plain node, serve the
 * Fabric endpoints, stop on SIGTERM with exit 0, fail start-up with one line.
 */
export function describeAppContract(name: string, contract: AppContract): void {
  const version = (JSON.parse(readFileSync(contract.packageJsonPath, 'utf8')) as { version: string }).version;
  const running: RunningApp[] = [];
  afterEach(() => {
    for (const app of running.splice(0)) app.kill();
  });

  const start = async (extraEnv: NodeJS.ProcessEnv = {}) => {
    const dir = configDir(contract.configFileName, contract.configWithListenAddress('127.0.0.1:0'));
    const app = await spawnApp(contract.bin, { env: { FABRIC_CFG_PATH: dir, ...extraEnv } });
    running.push(app);
    return app;
  };

  describe(`${name} bin under plain node`, () => {
    it('serves Fabric-shaped /version, 404 and 400 answers', async () => {
      const app = await start({ FABRIC_OPS_COMMIT_SHA: 'c0ffee1' });
      const ok = await send(app.address, '/version');
      expect(ok.status).toBe(200);
      expect(ok.headers['content-type']).toBe('application/json');
      expect(ok.body).toBe(`{"CommitSHA":"c0ffee1","Version":"${version}"}`);
      const missing = await send(app.address, '/nope');
      expect(missing.status).toBe(404);
      expect(missing.body).toBe('404 page not found\n');
      const put = await send(app.address, '/version', { method: 'PUT' });
      expect(put.status).toBe(400);
      expect(put.body).toBe('{"Error":"invalid request method: PUT"}');
    });

    it('reports a commit SHA baked in at build time when no override is set', async () => {
      const app = await start({ FABRIC_OPS_COMMIT_SHA: '' });
      const body = JSON.parse((await send(app.address, '/version')).body) as { CommitSHA?: string };
      expect(body.CommitSHA).toBeTruthy();
    });

    it('exits 0 within 5 s on SIGTERM while a keep-alive client is connected', async () => {
      const app = await start();
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const reply = await send(app.address, '/version', { agent });
      expect(reply.headers.connection).toBe('keep-alive');
      const began = Date.now();
      app.child.kill('SIGTERM');
      const { code } = await app.exited;
      expect(code).toBe(0);
      expect(Date.now() - began).toBeLessThan(5_000);
      agent.destroy();
    });

    it('exits 0 on SIGINT', async () => {
      const app = await start();
      app.child.kill('SIGINT');
      expect((await app.exited).code).toBe(0);
    });

    it('fails start-up with one line when the address is malformed, as --check-config does', async () => {
      const dir = configDir(contract.configFileName, contract.configWithListenAddress('127.0.0.1'));
      const result = await runAppToExit(contract.bin, { env: { FABRIC_CFG_PATH: dir } });
      expect(result.code).toBe(1);
      // ops-config finds it, so --check-config gives the same line
      expect(result.stderr).toMatch(/^[^\n]*listenAddress: expected host:port, got "127\.0\.0\.1" \(missing port in address\)\n$/i);
      expect(await runAppToExit(contract.bin, { env: { FABRIC_CFG_PATH: dir }, args: ['--check-config'] })).toEqual({ code: 1, stdout: '', stderr: result.stderr });
    });

    it('fails start-up with Go wording when the port is in use', async () => {
      const blocker = createServer().listen(0, '127.0.0.1');
      await new Promise((r) => blocker.once('listening', r));
      const port = (blocker.address() as { port: number }).port;
      try {
        const dir = configDir(contract.configFileName, contract.configWithListenAddress(`127.0.0.1:${port}`));
        const result = await runAppToExit(contract.bin, { env: { FABRIC_CFG_PATH: dir } });
        expect(result.code).toBe(1);
        expect(result.stderr).toBe(`${contract.startFailurePrefix}: listen tcp 127.0.0.1:${port}: bind: address already in use\n`);
      } finally {
        blocker.close();
      }
    });

    it('answers --help even when FABRIC_LOGGING_SPEC is invalid', async () => {
      const result = await runAppToExit(contract.bin, { args: ['--help'], env: { FABRIC_LOGGING_SPEC: 'bogus' } });
      expect(result.code).toBe(0);
      expect(result.stdout + result.stderr).toContain('--config');
    });

    it('stops start-up with one line when FABRIC_LOGGING_SPEC is invalid', async () => {
      const dir = configDir(contract.configFileName, contract.configWithListenAddress('127.0.0.1:0'));
      const result = await runAppToExit(contract.bin, { env: { FABRIC_CFG_PATH: dir, FABRIC_LOGGING_SPEC: 'bogus' } });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain("invalid logging specification 'bogus': bad segment 'bogus'");
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    });

    it('names FABRIC_CFG_PATH when it does not exist, without a stack trace', async () => {
      const result = await runAppToExit(contract.bin, { env: { FABRIC_CFG_PATH: '/nonexistent/fabric-cfg' } });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('FABRIC_CFG_PATH /nonexistent/fabric-cfg does not exist');
      expect(result.stderr).not.toMatch(/\n\s+at /);
    });
  });
}
