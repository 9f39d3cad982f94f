import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoadedConfig } from '@fabric-ops/ops-config';
import { afterAll, describe, expect, it } from 'vitest';
import { runOperationsApp, type AppConfig } from './app.ts';

const dir = mkdtempSync(join(tmpdir(), 'ops-server-app-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function loadedWith(tls: Partial<AppConfig['operations']['tls']> = {}): LoadedConfig<AppConfig> {
  return {
    file: join(dir, 'core.yaml'),
    app: 'peer',
    sources: {},
    warnings: [],
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

/** The lines the start-up sequence hands ops-config's command line to print (for --check-config and a start alike). */
async function verdict(env: NodeJS.ProcessEnv, loaded = loadedWith()): Promise<readonly string[]> {
  let lines: readonly string[] = [];
  const code = await runOperationsApp<AppConfig>({
    version: '0.0.0',
    loggerName: 'test',
    startFailurePrefix: 'failed',
    env,
    configure: (verify) => {
      lines = verify(loaded);
      return { action: 'exit', exitCode: lines.length > 0 ? 1 : 0 };
    },
  });
  expect(code).toBe(lines.length > 0 ? 1 : 0);
  return lines;
}

describe('the start-up checks --check-config shares with a start (issue 23, finding 10)', () => {
  it('FABRIC_LOGGING_SPEC and FABRIC_LOGGING_FORMAT are checked with the configuration', async () => {
    expect(await verdict({})).toEqual([]);
    expect(await verdict({ FABRIC_LOGGING_SPEC: 'peer=debug:warn', FABRIC_LOGGING_FORMAT: 'json' })).toEqual([]);
    expect(await verdict({ FABRIC_LOGGING_SPEC: 'bogus' })).toEqual(["FABRIC_LOGGING_SPEC: invalid logging specification 'bogus': bad segment 'bogus'"]);
    expect(await verdict({ FABRIC_LOGGING_FORMAT: 'bogus' })).toEqual([
      "FABRIC_LOGGING_FORMAT: unknown log format 'bogus': expected 'json', 'text' or a Fabric format template",
    ]);
  });

  it('a 100 KB logging value gives a short line', async () => {
    const spec = await verdict({ FABRIC_LOGGING_SPEC: 'x'.repeat(100_000) });
    expect(spec).toEqual([`FABRIC_LOGGING_SPEC: invalid logging specification '${'x'.repeat(80)}…': bad segment '${'x'.repeat(80)}…'`]);
    const format = await verdict({ FABRIC_LOGGING_FORMAT: 'y'.repeat(100_000) });
    expect(format).toHaveLength(1);
    expect(format[0]!.length).toBeLessThan(200);
  });

  it('a FIFO as a TLS file is refused at once by the TLS check', async () => {
    const fifo = join(dir, 'cert.pem');
    execFileSync('mkfifo', [fifo]);
    expect(await verdict({}, loadedWith({ enabled: true, certFile: fifo, keyFile: fifo }))).toEqual([
      `operations.tls.cert.file: open ${fifo}: not a regular file (a named pipe (FIFO))`,
    ]);
  });
});
