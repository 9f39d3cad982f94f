import { createSocket } from 'node:dgram';
import { createLogging } from '@fabric-ops/ops-logspec';
import { isMetricsError, type MetricsOptions, type StatsdTarget } from '@fabric-ops/ops-metrics';
import { afterEach, describe, expect, it } from 'vitest';
import { createOperationsSystem, type OperationsSystem } from '../src/index.ts';
import { send } from '@fabric-ops/test-kit';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const STATSD_DEFAULTS: StatsdTarget = { network: 'udp', host: '127.0.0.1', port: 8125, writeIntervalMs: 10_000, prefix: '' };

function system(metrics: MetricsOptions | undefined, version = '2.5.0'): { system: OperationsSystem; lines: string[] } {
  const lines: string[] = [];
  const logging = createLogging({ destination: { write: (line: string) => void lines.push(line) } });
  const created = createOperationsSystem({
    listenAddress: '127.0.0.1:0',
    version: { version, commitSHA: 'abc1234' },
    logging,
    ...(metrics === undefined ? {} : { metrics }),
  });
  cleanups.push(() => created.stop());
  return { system: created, lines };
}

describe('metrics in the operations system', () => {
  it('exposes the provider, sets fabric_version at start, and feeds the logging and health families', async () => {
    const { system: ops } = system({ provider: 'prometheus' });
    expect(ops.metrics.kind).toBe('prometheus');
    ops.registerChecker('flaky', async () => {
      throw new Error('not today');
    });
    ops.metrics.newCounter({ namespace: 'app', name: 'things_total', help: 'Things the embedding program did.' }).add(2);
    await ops.start();
    ops.logging.getLogger('app.worker').warn('something to count');
    ops.logging.getLogger('app.worker').debug('below the level: checked at most, not written');
    expect((await send(ops.address(), '/healthz')).status).toBe(503);
    const { status, body } = await send(ops.address(), '/metrics');
    expect(status).toBe(200);
    expect(body).toContain('fabric_version{version="2.5.0"} 1\n');
    expect(body).toContain('app_things_total 2\n');
    expect(body).toMatch(/logging_entries_written\{level="warn"\} [1-9]/);
    expect(body).toMatch(/logging_entries_checked\{level="warn"\} [1-9]/);
    expect(body).not.toMatch(/logging_entries_written\{level="debug"\}/);
    expect(body).toContain('health_check_status{component="flaky"} 0\n');
    expect(body).toMatch(/health_check_duration_seconds_count\{component="flaky"\} [1-9]\d*\n/);
  });

  it("removes a deregistered checker's health series, keeps the others, and starts afresh when it comes back", async () => {
    const { system: ops } = system({ provider: 'prometheus', runtimeMetrics: false });
    ops.registerChecker('worker-1', async () => {
      throw new Error('killed by SIGKILL');
    });
    ops.registerChecker('db', async () => {});
    await ops.start();
    await send(ops.address(), '/healthz');
    let body = (await send(ops.address(), '/metrics')).body;
    expect(body).toContain('health_check_status{component="worker-1"} 0\n');
    expect(body).toContain('health_check_duration_seconds_count{component="worker-1"} 1\n');
    ops.deregisterChecker('worker-1');
    body = (await send(ops.address(), '/metrics')).body;
    expect(body).not.toContain('worker-1');
    expect(body).toContain('health_check_status{component="db"} 1\n');
    expect(body).toContain('health_check_duration_seconds_count{component="db"} 1\n');
    ops.registerChecker('worker-1', async () => {});
    await send(ops.address(), '/healthz');
    body = (await send(ops.address(), '/metrics')).body;
    expect(body).toContain('health_check_status{component="worker-1"} 1\n');
    expect(body).toContain('health_check_duration_seconds_count{component="worker-1"} 1\n');
  });

  it("keeps no series for checkers that came and went, however many (StatsD: a departed checker's values are not pushed)", async () => {
    const socket = createSocket('udp4');
    const lines: string[] = [];
    socket.on('message', (msg) => lines.push(...msg.toString().split('\n').filter(Boolean)));
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => socket.close(() => resolve())));
    const { system: ops } = system({ provider: 'statsd', statsd: { ...STATSD_DEFAULTS, port: socket.address().port, writeIntervalMs: 3_600_000 }, runtimeMetrics: false });
    await ops.start();
    ops.registerChecker('kept', async () => {});
    for (let i = 0; i < 50; i++) {
      ops.registerChecker(`worker-${i}`, async () => {
        throw new Error('gone');
      });
      await send(ops.address(), '/healthz');
      ops.deregisterChecker(`worker-${i}`);
    }
    // stop() pushes what the interval gathered.
    await ops.stop();
    const deadline = Date.now() + 15_000;
    while (!lines.some((line) => line.startsWith('health.check_status.kept:'))) {
      if (Date.now() > deadline) throw new Error(`no push seen; got ${JSON.stringify(lines)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(lines.filter((line) => line.includes('worker-'))).toEqual([]);
  });

  it('has no /metrics and no warning when metrics are off', async () => {
    const { system: ops, lines } = system(undefined);
    expect(ops.metrics.kind).toBe('disabled');
    await ops.start();
    expect((await send(ops.address(), '/metrics')).status).toBe(404);
    expect(lines.join('')).not.toContain('Unknown provider type');
  });

  it.each([
    [{ port: 0 }, 'statsd.port must be an integer from 1 to 65535, got 0'],
    [{ network: 'http' as 'udp' }, 'statsd.network must be "udp" or "tcp", got "http"'],
  ])('turns bad statsd values %o into one MetricsError', (override, message) => {
    let caught: unknown;
    try {
      system({ provider: 'statsd', statsd: { ...STATSD_DEFAULTS, ...override } });
    } catch (error) {
      caught = error;
    }
    expect(isMetricsError(caught) && caught.code).toBe('INVALID_SETTINGS');
    expect((caught as Error).message).toBe(message);
  });

  it('refuses unusable StatsD settings when the system is created', () => {
    let caught: unknown;
    try {
      system({ provider: 'statsd', statsd: { ...STATSD_DEFAULTS, writeIntervalMs: 0 } });
    } catch (error) {
      caught = error;
    }
    expect(isMetricsError(caught) && caught.code).toBe('INVALID_SETTINGS');
  });

  it('pushes fabric_version with the version sanitised, once, over StatsD', async () => {
    const socket = createSocket('udp4');
    const received: string[] = [];
    socket.on('message', (msg) => received.push(...msg.toString().split('\n')));
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    cleanups.unshift(() => new Promise<void>((resolve) => socket.close(() => resolve())));
    const { system: ops } = system({ provider: 'statsd', statsd: { network: 'udp', host: '127.0.0.1', port: socket.address().port, writeIntervalMs: 100, prefix: 'org1' } }, 'v3.1.0-rc 1');
    await ops.start();
    const deadline = Date.now() + 15_000;
    while (!received.some((l) => l.startsWith('org1.fabric_version.')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 400));
    expect(received.filter((l) => l.startsWith('org1.fabric_version.'))).toEqual(['org1.fabric_version.v3_1_0-rc_1:1.000000|g']);
  });
});
