import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoadedConfig } from '@fabric-ops/ops-config';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AppConfig } from './app.ts';

// OpenTelemetry's packages as ops-metrics resolves them (optional peers, loaded at start): made
// missing here, as in an install without them.
const fromMetrics = createRequire(createRequire(import.meta.url).resolve('@fabric-ops/ops-metrics/package.json'));
const OTEL_PACKAGES = ['@opentelemetry/exporter-metrics-otlp-proto', '@opentelemetry/sdk-metrics', '@opentelemetry/resources'];

afterEach(() => {
  for (const name of OTEL_PACKAGES) vi.doUnmock(fromMetrics.resolve(name));
  vi.resetModules();
});

function loadedWithOtlp(): LoadedConfig<AppConfig> {
  return {
    file: join(tmpdir(), 'core.yaml'),
    app: 'peer',
    sources: {},
    warnings: [],
    tlsLabels: { certFile: 'operations.tls.cert.file', keyFile: 'operations.tls.key.file', clientRootCAs: 'operations.tls.clientRootCAs.files' },
    config: {
      operations: {
        listenAddress: { host: '127.0.0.1', port: 0 },
        tls: { enabled: false, certFile: '', keyFile: '', clientAuthRequired: false, clientRootCAs: [] },
        health: { checkTimeoutMs: 5_000, cacheTtlMs: 0, backgroundIntervalMs: 0 },
      },
      // An address nothing listens on: the check must not push.
      metrics: { provider: 'prometheus', otlp: { endpoint: 'http://127.0.0.1:9/v1/metrics', headers: {}, timeoutMs: 1_000, intervalMs: 60_000 } },
    },
  };
}

async function run(action: 'run' | 'check-config'): Promise<{ code: number; out: string; err: string }> {
  const { runOperationsApp } = await import('./app.ts');
  let out = '';
  let err = '';
  const code = await runOperationsApp<AppConfig>({
    version: '0.0.0',
    loggerName: 'test',
    startFailurePrefix: 'failed to initialize operations subsystem',
    configure: () => ({ action, loaded: loadedWithOtlp(), strict: false }),
    env: { FABRIC_LOGGING_SPEC: 'error' },
    stdout: (text) => (out += text),
    stderr: (text) => (err += text),
    onReady: (system) => void system.stop(),
  });
  return { code, out, err };
}

describe('--check-config with OTLP push', () => {
  it('refuses, as the start does, when OpenTelemetry is not installed', async () => {
    for (const name of OTEL_PACKAGES) {
      vi.doMock(fromMetrics.resolve(name), () => {
        throw new Error(`Cannot find package '${name}'`);
      });
    }
    const check = await run('check-config');
    expect(check.code).toBe(1);
    expect(check.out).toBe('');
    expect(check.err).toMatch(/^otlp: pushing over OTLP needs the packages @opentelemetry\/exporter-metrics-otlp-proto, .* installed beside @fabric-ops\/ops-metrics/);
    const start = await run('run');
    expect(start.code).toBe(1);
    // The same line: both stop at the same check.
    expect(start.err).toBe(check.err);
  });
});
