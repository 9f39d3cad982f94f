import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { createTestPki, type TestPki } from './pki.ts';
import { startStatsd, type StatsdDaemon } from './statsd.ts';
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

/** A resource made before the enclosing block's tests and released after them; read inside tests. */
function useForTests<T>(what: string, make: () => Promise<T>, release: (value: T) => Promise<unknown>): () => T {
  let value: T | undefined;
  beforeAll(async () => {
    value = await make();
  });
  afterAll(async () => {
    if (value !== undefined) await release(value);
  });
  return () => {
    if (value === undefined) throw new Error(`${what}: it exists only inside tests`);
    return value;
  };
}

/** A test file's PKI with the certificates the file issued from it once: `pkiOf().issued`. */
export type TestPkiWith<T> = TestPki & { readonly issued: T };

/**
 * One per-run PKI for the test file: created before its tests, removed after them. `issue`, when
 * given, makes the file's own certificates from it in the same hook (under `issued`), so a file
 * declares what it needs once instead of a `let` and a `beforeAll` for each.
 */
export function useTestPki(): () => TestPki;
export function useTestPki<T>(issue: (pki: TestPki) => Promise<T>): () => TestPkiWith<T>;
export function useTestPki<T>(issue?: (pki: TestPki) => Promise<T>): () => TestPki | TestPkiWith<T> {
  return useForTests(
    'useTestPki',
    async () => {
      const pki = await createTestPki();
      if (issue === undefined) return pki;
      try {
        return { ...pki, issued: await issue(pki) };
      } catch (error) {
        await pki.cleanup();
        throw error;
      }
    },
    (pki) => pki.cleanup(),
  );
}

/** One real StatsD daemon for the enclosing describe block (or file): started before its tests, stopped after them. */
export function useStatsd(): () => StatsdDaemon {
  return useForTests(
    'useStatsd',
    () => startStatsd(),
    (daemon) => daemon.cleanup(),
  );
}

/** The peer bin as a whole test file shares it: TLS off, no runtime, started once. */
export interface RunningPeer {
  /** The running bin (inside a test or hook of the file only). */
  readonly app: RunningApp;
  /** The port it listens on. */
  readonly port: number;
}

/**
 * Starts `bin` (a peer bin) once for the test file with a core.yaml that turns TLS and the
 * runtime checker off and listens on a free loopback port; kills it after the file.
 */
export function useRunningPeer(bin: string): RunningPeer {
  let app: RunningApp | undefined;
  let dir: string | undefined;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fabric-ops-peer-'));
    writeFileSync(join(dir, 'core.yaml'), 'vm:\n  endpoint: ""\noperations:\n  listenAddress: 127.0.0.1:0\n');
    app = await spawnApp(bin, { env: { FABRIC_CFG_PATH: dir } });
  });
  afterAll(() => {
    app?.kill();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });
  const running = (): RunningApp => {
    if (app === undefined) throw new Error('useRunningPeer: the peer starts in beforeAll; read it inside a test or a later hook');
    return app;
  };
  return {
    get app() {
      return running();
    },
    get port() {
      const address = running().address;
      return Number(address.slice(address.lastIndexOf(':') + 1));
    },
  };
}
