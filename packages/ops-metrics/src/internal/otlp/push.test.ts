import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';
import { hostname } from 'node:os';
import { DataPointType, type HistogramMetricData, type SumMetricData } from '@opentelemetry/sdk-metrics';
import { listenOnLoopback, useCleanup } from '@fabric-ops/test-kit';
import { describe, expect, it } from 'vitest';
import { declare } from '../declare.ts';
import { createMetricsProvider } from '../provider.ts';
import { PrometheusFamily } from '../prometheus-family.ts';
import { appMetricData, familyData, hrTime } from './convert.ts';
import { startOtlpPush, type OtlpCollection, type OtlpPush } from './push.ts';

const defer = useCleanup();

async function waitFor(check: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

interface Received {
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: Buffer;
}

/** A receiver we control: `answer` decides each response (or never answers). */
async function receiver(answer: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      answer(req, res);
    });
  });
  const port = await listenOnLoopback(defer, server);
  return { url: `http://127.0.0.1:${port}/v1/metrics`, received };
}

const SHAPES = { histogram: DataPointType.HISTOGRAM, gauge: DataPointType.GAUGE, sum: DataPointType.SUM, cumulative: 1 };
const TIMES = { start: hrTime(1_000), end: hrTime(2_500) };

function families(): PrometheusFamily[] {
  const counter = new PrometheusFamily(declare('counter', { namespace: 'ledger', name: 'blocks_total', help: 'Blocks.', labelNames: ['channel'] }), 100, () => {});
  counter.family.root().with('channel', 'mych').add(3);
  const histogram = new PrometheusFamily(declare('histogram', { name: 'commit_seconds', help: 'Commit time.', buckets: [0.1, 1] }), 100, () => {});
  for (const value of [0.05, 0.5, 0.7, 5]) histogram.family.root().observe(value);
  return [counter, histogram];
}

function collection(): () => Promise<OtlpCollection> {
  const own = families();
  return async () => ({ families: own, app: [] });
}

async function started(url: string, lines: string[], overrides: { timeoutMs?: number; intervalMs?: number; headers?: Record<string, string> } = {}): Promise<OtlpPush> {
  const push = await startOtlpPush({
    target: { endpoint: url, headers: overrides.headers ?? {}, timeoutMs: overrides.timeoutMs ?? 2_000, intervalMs: overrides.intervalMs ?? 600_000 },
    collect: collection(),
    logger: { warn: (line) => lines.push(line) },
  });
  defer(() => push.stop());
  return push;
}

describe('OTLP data from ops-metrics storage', () => {
  it('turns a counter into a cumulative monotonic sum with its labels as attributes, under the /metrics name', () => {
    const data = familyData(families()[0]!, SHAPES, TIMES) as SumMetricData;
    expect(data.descriptor.name).toBe('ledger_blocks_total');
    expect(data.dataPointType).toBe(DataPointType.SUM);
    expect(data.isMonotonic).toBe(true);
    expect(data.aggregationTemporality).toBe(1);
    expect(data.dataPoints).toEqual([{ startTime: [1, 0], endTime: [2, 500_000_000], attributes: { channel: 'mych' }, value: 3 }]);
  });

  it('turns a histogram into per-bucket counts with the overflow bucket last, as OTLP counts them', () => {
    const data = familyData(families()[1]!, SHAPES, TIMES) as HistogramMetricData;
    expect(data.dataPointType).toBe(DataPointType.HISTOGRAM);
    expect(data.dataPoints[0]!.value).toEqual({ buckets: { boundaries: [0.1, 1], counts: [1, 2, 1] }, sum: 6.25, count: 4 });
  });

  it('leaves out a family without series, as /metrics does', () => {
    const empty = new PrometheusFamily(declare('gauge', { name: 'idle', help: 'h' }), 100, () => {});
    expect(familyData(empty, SHAPES, TIMES)).toBeUndefined();
  });

  it("pushes an application registry's histogram sample by sample under the names /metrics serves", () => {
    const data = appMetricData(
      {
        name: 'app_seconds',
        help: 'h',
        type: 'histogram',
        values: [
          { value: 1, labels: { le: 0.5 }, metricName: 'app_seconds_bucket' },
          { value: 2, labels: { le: '+Inf' }, metricName: 'app_seconds_bucket' },
          { value: 1.5, labels: {}, metricName: 'app_seconds_sum' },
          { value: 2, labels: {}, metricName: 'app_seconds_count' },
        ],
      },
      SHAPES,
      TIMES,
    );
    expect(data.map((metric) => [metric.descriptor.name, metric.dataPointType, metric.dataPoints.length])).toEqual([
      ['app_seconds_bucket', DataPointType.SUM, 2],
      ['app_seconds_sum', DataPointType.SUM, 1],
      ['app_seconds_count', DataPointType.SUM, 1],
    ]);
    expect(data[0]!.dataPoints.map((point) => point.attributes['le'])).toEqual(['0.5', '+Inf']);
  });
});

describe('OTLP push', () => {
  it('POSTs protobuf with the configured headers to the endpoint as given', async () => {
    const sink = await receiver((_req, res) => res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
    const lines: string[] = [];
    const push = await started(sink.url, lines, { headers: { authorization: 'Bearer t0k3n', 'x-tenant': 'org1' } });
    expect(await push.pushNow()).toBeUndefined();
    expect(sink.received).toHaveLength(1);
    const [request] = sink.received;
    expect(request!.path).toBe('/v1/metrics');
    expect(request!.headers['content-type']).toBe('application/x-protobuf');
    expect(request!.headers['authorization']).toBe('Bearer t0k3n');
    expect(request!.headers['x-tenant']).toBe('org1');
    // protobuf keeps strings as UTF-8 bytes: the names and label values are in the body as written
    for (const text of ['ledger_blocks_total', 'mych', 'commit_seconds', 'service.name']) expect(request!.body.includes(text)).toBe(true);
    expect(lines).toEqual([]);
  });

  it('does not retry a 400 and logs one line naming the endpoint and the status', async () => {
    const sink = await receiver((_req, res) => res.writeHead(400).end('bad data'));
    const lines: string[] = [];
    const push = await started(sink.url, lines);
    expect(await push.pushNow()).toMatch(/400/);
    expect(sink.received).toHaveLength(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`OTLP push to ${sink.url} failed:`);
    expect(lines[0]).toMatch(/400/);
  });

  it('retries a 503 a bounded number of times within the timeout, then logs one line', async () => {
    const sink = await receiver((_req, res) => res.writeHead(503).end());
    const lines: string[] = [];
    const push = await started(sink.url, lines, { timeoutMs: 2_500 });
    expect(await push.pushNow()).toMatch(/retryable/);
    // OpenTelemetry's exporter: the first attempt plus at most five retries, none past the timeout
    expect(sink.received.length).toBeGreaterThanOrEqual(2);
    expect(sink.received.length).toBeLessThanOrEqual(6);
    expect(lines).toHaveLength(1);
  });

  it('logs one line per failed push while the receiver is down, and one when it takes pushes again', async () => {
    let up = false;
    const sink = await receiver((_req, res) => (up ? res.writeHead(200).end() : res.destroy()));
    const lines: string[] = [];
    const push = await started(sink.url, lines, { timeoutMs: 500 });
    expect(await push.pushNow()).toBeDefined();
    expect(await push.pushNow()).toBeDefined();
    expect(lines).toHaveLength(2);
    up = true;
    expect(await push.pushNow()).toBeUndefined();
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe(`OTLP push to ${sink.url} succeeded again after 2 failed or skipped intervals`);
  });

  it('holds one push at a time for a receiver that never answers: later intervals are skipped, one line a minute at most', async () => {
    const sink = await receiver(() => {});
    const lines: string[] = [];
    let ticks = 0;
    const push = await startOtlpPush({
      target: { endpoint: sink.url, headers: {}, timeoutMs: 60_000, intervalMs: 1 },
      collect: collection(),
      logger: { warn: (line) => lines.push(line) },
    });
    defer(() => push.stop());
    // 1 ms intervals (below what createMetricsProvider accepts): about 300 skipped in 300 ms.
    const until = Date.now() + 300;
    while (Date.now() < until) {
      await new Promise((r) => setTimeout(r, 10));
      ticks++;
    }
    expect(ticks).toBeGreaterThan(5);
    expect(sink.received).toHaveLength(1);
    expect(lines).toEqual([`OTLP push to ${sink.url} skipped: the previous push is still waiting for the receiver (timeout 60000 ms)`]);
  });

  it('ends a push at its deadline behind a receiver that answers one byte at a time, and logs the failure', async () => {
    // Real HTTP from a raw socket: a status line and then a header that never ends, one byte
    // every 50 ms, well inside the 400 ms timeout that restarts with each byte.
    const sockets: Socket[] = [];
    const drip = createTcpServer((socket) => {
      sockets.push(socket);
      socket.on('error', () => {});
      let wrote = false;
      socket.on('data', () => {
        if (wrote) return;
        wrote = true;
        const text = 'HTTP/1.1 200 OK\r\nX-Drip: ';
        let at = 0;
        const timer = setInterval(() => (socket.destroyed ? clearInterval(timer) : socket.write(at < text.length ? text[at++]! : 'a')), 50);
        socket.once('close', () => clearInterval(timer));
      });
    });
    await new Promise<void>((resolve) => drip.listen(0, '127.0.0.1', resolve));
    defer(() => new Promise<void>((resolve) => (sockets.forEach((socket) => socket.destroy()), drip.close(() => resolve()))));
    const port = (drip.address() as { port: number }).port;
    const url = `http://127.0.0.1:${port}/v1/metrics`;
    const lines: string[] = [];
    const push = await started(url, lines, { timeoutMs: 400 });
    const began = performance.now();
    const problem = await Promise.race([push.pushNow(), new Promise<string>((resolve) => setTimeout(() => resolve('still waiting after 3 s'), 3_000))]);
    const tookMs = performance.now() - began;
    expect(problem).toBe("no complete answer within 400 ms (the push's deadline; the request was aborted)");
    expect(lines).toEqual([`OTLP push to ${url} failed: ${problem}`]);
    expect(tookMs).toBeLessThan(400 + 300);
    // the receiver's connection was cut, not left dripping
    await waitFor(() => sockets.every((socket) => socket.destroyed), 2_000);
    console.log(`drip receiver: logged failure after ${Math.round(tookMs)} ms (timeout 400 ms)`);
  });

  it("carries service.name fabric-ops and the host name as service.instance.id by default, an embedder's attributes over them", async () => {
    const sink = await receiver((_req, res) => res.writeHead(200).end());
    const plain = await started(sink.url, []);
    expect(await plain.pushNow()).toBeUndefined();
    const named = await startOtlpPush({
      target: { endpoint: sink.url, headers: {}, timeoutMs: 2_000, intervalMs: 600_000, resourceAttributes: () => ({ 'service.name': 'fabric-peer', 'service.instance.id': 'peer0:9443' }) },
      collect: collection(),
    });
    defer(() => named.stop());
    expect(await named.pushNow()).toBeUndefined();
    const [first, second] = sink.received.map((request) => request.body);
    for (const text of ['service.instance.id', hostname(), 'fabric-ops']) expect(first!.includes(text)).toBe(true);
    for (const text of ['fabric-peer', 'peer0:9443']) expect(second!.includes(text)).toBe(true);
  });

  it('a provider without otlp starts nothing; with otlp it pushes the series /metrics serves', async () => {
    const sink = await receiver((_req, res) => res.writeHead(200).end());
    const provider = createMetricsProvider({
      provider: 'prometheus',
      runtimeMetrics: false,
      otlp: { endpoint: sink.url, headers: {}, timeoutMs: 2_000, intervalMs: 100 },
    });
    provider.newCounter({ name: 'pushed_total', help: 'h' }).add(1);
    await provider.start();
    defer(() => provider.stop());
    await waitFor(() => sink.received.length >= 1);
    expect(sink.received[0]!.body.includes('pushed_total')).toBe(true);
    expect(sink.received[0]!.body.includes('promhttp_metric_handler_requests_total')).toBe(true);
    await provider.stop();
    const after = sink.received.length;
    await new Promise((r) => setTimeout(r, 100));
    expect(sink.received.length).toBe(after);
  });
});

describe('OTLP settings an embedder passes', () => {
  const otlp = { endpoint: 'http://127.0.0.1:4318/v1/metrics', headers: {}, timeoutMs: 1_000, intervalMs: 1_000 };
  it.each([
    [{ ...otlp, endpoint: 'localhost:4318' }, 'otlp.endpoint must be an http:// or https:// URL, got "localhost:4318"'],
    [{ ...otlp, endpoint: 'ftp://x/v1/metrics' }, 'otlp.endpoint must be an http:// or https:// URL'],
    [{ ...otlp, headers: { 'bad name': 'x' } }, 'otlp.headers: "bad name" is not a valid header name'],
    [{ ...otlp, headers: { a: 'x\ny' } }, 'otlp.headers: the value of a must be text on one line'],
    [{ ...otlp, intervalMs: 0 }, 'otlp.intervalMs must be a number from 100 to 2147483647, got 0'],
    [{ ...otlp, intervalMs: 1 }, 'otlp.intervalMs must be a number from 100 to 2147483647, got 1'],
    [{ ...otlp, resourceAttributes: { 'service.name': 7 } as unknown as Record<string, string> }, 'otlp.resourceAttributes: the value of service.name must be text, got 7'],
    [{ ...otlp, timeoutMs: Number.NaN }, 'otlp.timeoutMs must be a number from 1 to 2147483647, got NaN'],
  ])('refuses %j', (target, message) => {
    expect(() => createMetricsProvider({ provider: 'prometheus', otlp: target })).toThrow(message);
  });

  it('refuses otlp with aggregate (a cluster primary)', () => {
    expect(() => createMetricsProvider({ provider: 'prometheus', otlp, aggregate: async () => [] })).toThrow('otlp: not available with aggregate');
  });
});
