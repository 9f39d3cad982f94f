import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoadedConfig } from '@fabric-ops/ops-config';
import { createTestPki, type TestPki } from '@fabric-ops/test-kit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runBin, runOperationsApp, type AppConfig, type AppSystem } from './app.ts';

// Every open of a file at start-up, by path: the start reads each TLS file once.
const opened = vi.hoisted(() => new Map<string, number>());
vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  const openSync = ((path: fs.PathLike, ...rest: unknown[]) => {
    opened.set(String(path), (opened.get(String(path)) ?? 0) + 1);
    return (actual.openSync as (...args: unknown[]) => number)(path, ...rest);
  }) as typeof actual.openSync;
  return { ...actual, openSync, default: { ...actual, openSync } };
});

// What each start handed ops-tls-auth's createTlsServer (the real one still serves).
const tlsServerOptions = vi.hoisted(() => [] as { clientCaStandIns?: boolean | undefined }[]);
vi.mock('@fabric-ops/ops-tls-auth', async (importOriginal) => {
  const actual = await importOriginal<typeof import('@fabric-ops/ops-tls-auth')>();
  const createTlsServer: typeof actual.createTlsServer = (options, onRequest) => {
    tlsServerOptions.push(options);
    return actual.createTlsServer(options, onRequest);
  };
  return { ...actual, createTlsServer };
});

const dir = mkdtempSync(join(tmpdir(), 'ops-server-app-'));
let pki: TestPki;
beforeAll(async () => {
  pki = await createTestPki();
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await pki?.cleanup();
});

function loadedWith(tls: Partial<AppConfig['operations']['tls']> = {}, warnings: readonly string[] = []): LoadedConfig<AppConfig> {
  return {
    file: join(dir, 'core.yaml'),
    app: 'peer',
    sources: {},
    warnings,
    tlsLabels: { certFile: 'operations.tls.cert.file', keyFile: 'operations.tls.key.file', clientRootCAs: 'operations.tls.clientRootCAs.files' },
    config: {
      operations: {
        listenAddress: { host: '127.0.0.1', port: 0 },
        tls: { enabled: false, certFile: '', keyFile: '', clientAuthRequired: false, clientRootCAs: [], ...tls },
        health: { checkTimeoutMs: 5_000, cacheTtlMs: 0, backgroundIntervalMs: 0 },
      },
      metrics: { provider: 'disabled' },
    },
  };
}

interface Outcome {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/**
 * Runs the start-up with `loaded` as the configuration step's answer. A start that gets as far
 * as listening is stopped at once, through the signal handler it armed (so its exit code is the
 * graceful 0); what it printed before is the verdict.
 */
async function startUp(action: 'run' | 'check-config', env: NodeJS.ProcessEnv, loaded = loadedWith(), strict = false): Promise<Outcome & { readonly started: boolean }> {
  let out = '';
  let err = '';
  let started = false;
  const armedBefore = process.listeners('SIGTERM');
  const code = await runOperationsApp<AppConfig>({
    version: '0.0.0',
    loggerName: 'test',
    startFailurePrefix: 'failed',
    env: { FABRIC_LOGGING_SPEC: 'error', ...env },
    configure: () => ({ action, loaded, strict }),
    stdout: (text) => void (out += text),
    stderr: (text) => void (err += text),
    onReady: (_system: AppSystem) => {
      started = true;
      const armed = process.listeners('SIGTERM').filter((listener) => !armedBefore.includes(listener));
      expect(armed).toHaveLength(1);
      setImmediate(() => (armed[0] as (signal: NodeJS.Signals) => void)('SIGTERM'));
    },
  });
  return { code, out, err, started };
}

/** The same configuration through --check-config and a start: the same lines, the same refusal. */
async function bothWays(env: NodeJS.ProcessEnv, loaded = loadedWith(), strict = false): Promise<string> {
  const check = await startUp('check-config', env, loaded, strict);
  const run = await startUp('run', env, loaded, strict);
  expect(check.code).toBe(1);
  expect(run).toEqual({ code: 1, out: '', err: check.err, started: false });
  return check.err;
}

describe('the start-up checks --check-config shares with a start', () => {
  it('FABRIC_LOGGING_SPEC and FABRIC_LOGGING_FORMAT are checked with the configuration', async () => {
    expect(await startUp('check-config', { FABRIC_LOGGING_SPEC: 'peer=debug:warn', FABRIC_LOGGING_FORMAT: 'json' })).toMatchObject({ code: 0, err: '' });
    expect(await bothWays({ FABRIC_LOGGING_SPEC: 'bogus' })).toBe("FABRIC_LOGGING_SPEC: invalid logging specification 'bogus': bad segment 'bogus'\n");
    expect(await bothWays({ FABRIC_LOGGING_FORMAT: 'bogus' })).toBe("FABRIC_LOGGING_FORMAT: unknown log format 'bogus': expected 'json', 'text' or a Fabric format template\n");
  });

  it('FABRIC_OPS_TLS_CA_STAND_INS is "on" or "off", checked with the configuration, and reaches the TLS server', async () => {
    expect(await bothWays({ FABRIC_OPS_TLS_CA_STAND_INS: 'no' })).toBe('FABRIC_OPS_TLS_CA_STAND_INS: expected "on" or "off", got "no"\n');
    const loaded = loadedWith({ enabled: true, certFile: pki.server.certFile, keyFile: pki.server.keyFile, clientRootCAs: [pki.ca.certFile] });
    for (const [value, standIns] of [
      [undefined, true],
      ['', true],
      ['on', true],
      ['off', false],
    ] as const) {
      tlsServerOptions.length = 0;
      expect(await startUp('run', value === undefined ? {} : { FABRIC_OPS_TLS_CA_STAND_INS: value }, loaded)).toMatchObject({ code: 0, err: '', started: true });
      expect(tlsServerOptions.map((options) => options.clientCaStandIns)).toEqual([standIns]);
    }
  });

  it('a 100 KB logging value gives a short line', async () => {
    expect(await bothWays({ FABRIC_LOGGING_SPEC: 'x'.repeat(100_000) })).toBe(`FABRIC_LOGGING_SPEC: invalid logging specification '${'x'.repeat(80)}…': bad segment '${'x'.repeat(80)}…'\n`);
    expect((await bothWays({ FABRIC_LOGGING_FORMAT: 'y'.repeat(100_000) })).length).toBeLessThan(200);
  });

  it('--check-config says OK with the warnings; a start goes on and listens', async () => {
    const loaded = loadedWith({}, ['core.yaml: operation: unknown section, ignored; did you mean operations?']);
    expect(await startUp('check-config', {}, loaded)).toEqual({
      code: 0,
      out: `configuration OK: ${join(dir, 'core.yaml')}\n`,
      err: 'warning: core.yaml: operation: unknown section, ignored; did you mean operations?\n',
      started: false,
    });
    expect(await startUp('run', {}, loaded)).toEqual({ code: 0, out: '', err: '', started: true });
  });

  it('--strict turns warnings into a refusal, for --check-config and a start alike', async () => {
    const loaded = loadedWith({}, ['core.yaml: operation: unknown section, ignored; did you mean operations?', 'core.yaml: metric: unknown section, ignored; did you mean metrics?']);
    expect(await bothWays({}, loaded, true)).toBe(
      [
        'warning: core.yaml: operation: unknown section, ignored; did you mean operations?',
        'warning: core.yaml: metric: unknown section, ignored; did you mean metrics?',
        '--strict: 2 warnings, treated as problems',
        '',
      ].join('\n'),
    );
  });

  it('with TLS on, every unreadable certificate, key and CA file is named, for --check-config and a start alike', async () => {
    writeFileSync(join(dir, 'cert.pem'), 'x');
    const loaded = loadedWith({ enabled: true, certFile: join(dir, 'cert.pem'), keyFile: dir, clientRootCAs: [join(dir, 'ca.pem'), '/nonexistent/ca2.pem'] });
    expect(await bothWays({}, loaded)).toBe(
      [
        `operations.tls.key.file: read ${dir}: is a directory`,
        `operations.tls.clientRootCAs.files[0]: open ${join(dir, 'ca.pem')}: no such file or directory`,
        'operations.tls.clientRootCAs.files[1]: open /nonexistent/ca2.pem: no such file or directory',
        '',
      ].join('\n'),
    );
  });

  it('a FIFO as a TLS file is refused at once by the TLS check', async () => {
    const fifo = join(dir, 'fifo.pem');
    execFileSync('mkfifo', [fifo]);
    expect(await bothWays({}, loadedWith({ enabled: true, certFile: fifo, keyFile: pki.server.keyFile }))).toBe(`operations.tls.cert.file: open ${fifo}: not a regular file (a named pipe (FIFO))\n`);
  });

  it('readable files that do not hold what TLS needs: ops-tls-auth names the file', async () => {
    writeFileSync(join(dir, 'not-pem.pem'), 'not a certificate');
    expect(await bothWays({}, loadedWith({ enabled: true, certFile: join(dir, 'not-pem.pem'), keyFile: pki.server.keyFile }))).toBe(
      `operations.tls.cert.file: ${join(dir, 'not-pem.pem')}: no PEM certificate found\n`,
    );
  });
});

describe('the start-up reads each TLS file once', () => {
  it('--check-config and a start open the certificate, the key and each CA file exactly once', async () => {
    const files = [pki.server.certFile, pki.server.keyFile, pki.ca.certFile, pki.intermediateCa.certFile];
    // the CA file named twice is still read once
    const loaded = loadedWith({ enabled: true, certFile: pki.server.certFile, keyFile: pki.server.keyFile, clientRootCAs: [pki.ca.certFile, pki.intermediateCa.certFile, pki.ca.certFile] });
    for (const action of ['check-config', 'run'] as const) {
      opened.clear();
      const outcome = await startUp(action, {}, loaded);
      expect(outcome).toMatchObject({ code: 0, err: '', started: action === 'run' });
      expect(files.map((file) => opened.get(file) ?? 0)).toEqual([1, 1, 1, 1]);
    }
  });
});

describe('runBin: the exit after a stop', () => {
  function fakeProcess() {
    const listeners = new Map<string, () => void>();
    const exits: number[] = [];
    const proc = {
      exitCode: undefined as number | string | null | undefined,
      exit: (code: number) => void exits.push(code),
      once: (signal: NodeJS.Signals, listener: () => void) => listeners.set(signal, listener),
      stderr: { write: (_text: string): boolean => true },
    };
    return { proc, exits, signal: (name: string) => listeners.get(name)?.() };
  }

  it('a stop signal while the last handles close exits at once with the stop’s code', async () => {
    for (const [signal, code] of [
      ['SIGINT', 0],
      ['SIGTERM', 1],
    ] as const) {
      const fake = fakeProcess();
      runBin(() => Promise.resolve(code), fake.proc);
      await new Promise((resolve) => setImmediate(resolve));
      expect(fake.proc.exitCode).toBe(code);
      expect(fake.exits).toEqual([]);
      fake.signal(signal);
      expect(fake.exits).toEqual([code]);
    }
  });

  it('a run that fails before reporting prints one line and exits 1', async () => {
    const fake = fakeProcess();
    const lines: string[] = [];
    fake.proc.stderr.write = (text: string) => lines.push(text) > 0;
    runBin(() => Promise.reject(new Error('no config')), fake.proc);
    await new Promise((resolve) => setImmediate(resolve));
    expect({ lines, exits: fake.exits }).toEqual({ lines: ['no config\n'], exits: [1] });
  });
});
