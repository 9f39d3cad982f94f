import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { createTestPki, type TestPki } from './pki.ts';
import { runAppToExit, spawnApp, type RunningApp } from './spawn-app.ts';

export interface AppHarness {
  /** A fresh directory holding the app's config file with `text`, for FABRIC_CFG_PATH. */
  configDir(text: string): string;
  /** An empty temp directory. */
  emptyDir(): string;
  /** Spawns the bin and waits until it listens; killed after each test. */
  start(env: NodeJS.ProcessEnv, args?: readonly string[]): Promise<RunningApp>;
  /** Runs the bin to completion (start-up failures, --check-config, --print-config). */
  run(env: NodeJS.ProcessEnv, args?: readonly string[]): ReturnType<typeof runAppToExit>;
}

/**
 * Registers the hooks that clean up after a test file driving an app bin: spawned apps are
 * killed after each test, temp directories removed after the file.
 */
export function useAppHarness(bin: string, configFileName: string): AppHarness {
  const made: string[] = [];
  const running: RunningApp[] = [];
  afterEach(() => {
    for (const app of running.splice(0)) app.kill();
  });
  afterAll(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const emptyDir = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'fabric-ops-app-'));
    made.push(dir);
    return dir;
  };
  return {
    configDir(text) {
      const dir = emptyDir();
      writeFileSync(join(dir, configFileName), text);
      return dir;
    },
    emptyDir,
    async start(env, args = []) {
      const app = await spawnApp(bin, { env, args, readyTimeoutMs: 30_000 });
      running.push(app);
      return app;
    },
    run: (env, args = []) => runAppToExit(bin, { env, args, readyTimeoutMs: 30_000 }),
  };
}

/** One per-run PKI for the test file: created before its tests, removed after them. */
export function useTestPki(): () => TestPki {
  let pki: TestPki | undefined;
  beforeAll(async () => {
    pki = await createTestPki();
  });
  afterAll(async () => {
    await pki?.cleanup();
  });
  return () => {
    if (pki === undefined) throw new Error('useTestPki: the PKI exists only inside tests');
    return pki;
  };
}
