import { request, createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as zlib from 'node:zlib';
import { gunzipSync } from 'node:zlib';
import { collectDefaultMetrics, Counter as PromCounter, Gauge as PromGauge, Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { TEXT_CONTENT_TYPE, TEXT_FORMAT, ZSTD_AVAILABLE } from './negotiate.ts';
import { createPrometheusProvider, renderBody } from './prometheus.ts';

const OPENMETRICS = { kind: 'openmetrics', version: '1.0.0' } as const;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe('Prometheus exposition', () => {
  it('renders fabric_version as Fabric does', async () => {
    const provider = createPrometheusProvider({ runtimeMetrics: false });
    provider
      .newGauge({ name: 'fabric_version', help: 'The active version of Fabric.', labelNames: ['version'], statsdFormat: '%{#fqname}.%{version}' })
      .with('version', 'test-version')
      .set(1);
    const text = (await renderBody(provider, TEXT_FORMAT)).toString();
    expect(text).toContain('# HELP fabric_version The active version of Fabric.\n# TYPE fabric_version gauge\nfabric_version{version="test-version"} 1\n');
  });

  it('leaves out families that have no series yet', async () => {
    const provider = createPrometheusProvider({ runtimeMetrics: false });
    provider.newCounter({ name: 'silent', help: 'h', labelNames: ['a'] });
    provider.newCounter({ name: 'unlabelled', help: 'h' });
    const text = (await renderBody(provider, TEXT_FORMAT)).toString();
    expect(text).not.toContain('silent');
    expect(text).not.toContain('unlabelled');
  });

  it('escapes label values and help text', async () => {
    const provider = createPrometheusProvider({ runtimeMetrics: false });
    provider
      .newCounter({ name: 'esc', help: 'back\\slash\nnewline "quoted"', labelNames: ['v'] })
      .with('v', 'a"b\\c\nd')
      .add(2);
    const text = (await renderBody(provider, TEXT_FORMAT)).toString();
    expect(text).toContain('# HELP esc back\\\\slash\\nnewline "quoted"\n');
    expect(text).toContain('esc{v="a\\"b\\\\c\\nd"} 2\n');
    const om = (await renderBody(provider, OPENMETRICS)).toString();
    expect(om).toContain('# HELP esc back\\\\slash\\nnewline \\"quoted\\"\n');
  });

  it('renders histograms with cumulative buckets, sum and count', async () => {
    const provider = createPrometheusProvider({ runtimeMetrics: false });
    const histogram = provider.newHistogram({ namespace: 'ledger', name: 'commit_time', help: 'h', labelNames: ['channel'], buckets: [0.1, 1, 10] });
    for (const value of [0.05, 0.5, 0.5, 5, 50]) histogram.with('channel', 'ch').observe(value);
    const text = (await renderBody(provider, TEXT_FORMAT)).toString();
    expect(text).toContain(
      [
        '# HELP ledger_commit_time h',
        '# TYPE ledger_commit_time histogram',
        'ledger_commit_time_bucket{channel="ch",le="0.1"} 1',
        'ledger_commit_time_bucket{channel="ch",le="1"} 3',
        'ledger_commit_time_bucket{channel="ch",le="10"} 4',
        'ledger_commit_time_bucket{channel="ch",le="+Inf"} 5',
        'ledger_commit_time_sum{channel="ch"} 56.05',
        'ledger_commit_time_count{channel="ch"} 5',
      ].join('\n'),
    );
    const om = (await renderBody(provider, OPENMETRICS)).toString();
    expect(om).toContain('ledger_commit_time_bucket{channel="ch",le="1.0"} 3');
    expect(om).toContain('ledger_commit_time_bucket{channel="ch",le="0.1"} 1');
  });

  it('adds _total to counter samples in OpenMetrics and ends with # EOF', async () => {
    const provider = createPrometheusProvider({ runtimeMetrics: false });
    provider
      .newCounter({ namespace: 'logging', name: 'entries_checked', help: 'h', labelNames: ['level'] })
      .with('level', 'info')
      .add(3);
    const om = (await renderBody(provider, OPENMETRICS)).toString();
    expect(om).toContain('# TYPE logging_entries_checked counter\nlogging_entries_checked_total{level="info"} 3\n');
    expect(om).toContain('# TYPE promhttp_metric_handler_requests counter\npromhttp_metric_handler_requests_total{code="200"} 0\n');
    expect(om.endsWith('# EOF\n')).toBe(true);
    const text = (await renderBody(provider, TEXT_FORMAT)).toString();
    expect(text).toContain('logging_entries_checked{level="info"} 3\n');
    expect(text).not.toContain('# EOF');
  });

  it("includes the metrics of the application's own prom-client registry, and the runtime series", async () => {
    const registry = new Registry();
    const provider = createPrometheusProvider({ registry });
    cleanups.push(() => provider.stop());
    new PromGauge({ name: 'embedder_gauge', help: 'from prom-client', labelNames: ['x'], registers: [registry] }).set({ x: 'y' }, 7);
    new PromCounter({ name: 'embedder_events_total', help: 'from prom-client', registers: [registry] }).inc(2);
    const text = (await renderBody(provider, TEXT_FORMAT)).toString();
    expect(text).toContain('embedder_gauge{x="y"} 7');
    expect(text).toContain('embedder_events_total 2');
    expect(text).toContain('# TYPE process_cpu_seconds_total counter');
    expect(text).toContain('# TYPE nodejs_heap_size_total_bytes gauge');
    expect(text).not.toContain('nodejs_active_handles_total');
    const om = (await renderBody(provider, OPENMETRICS)).toString();
    expect(om).toContain('# TYPE embedder_events counter\nembedder_events_total 2');
  });

  it('keeps two providers apart and never touches the global registry', async () => {
    const { register } = await import('prom-client');
    const before = register.getMetricsAsArray().length;
    const a = createPrometheusProvider({ runtimeMetrics: false });
    const b = createPrometheusProvider({ runtimeMetrics: false });
    a.newCounter({ name: 'only_in_a', help: 'h' }).add(1);
    expect((await renderBody(b, TEXT_FORMAT)).toString()).not.toContain('only_in_a');
    expect(register.getMetricsAsArray().length).toBe(before);
  });

  it('serves a registry that already collects prom-client default metrics without throwing, one family per name', async () => {
    const registry = new Registry();
    collectDefaultMetrics({ register: registry });
    const warnings: string[] = [];
    const provider = createPrometheusProvider({ registry, logger: { warn: (m) => warnings.push(m) } });
    cleanups.push(() => provider.stop());
    const text = (await renderBody(provider, TEXT_FORMAT)).toString();
    const types = text.split('\n').filter((l) => l.startsWith('# TYPE '));
    expect(new Set(types).size).toBe(types.length);
    expect(types).toContain('# TYPE process_cpu_seconds_total counter');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('process_cpu_seconds_total');
    await renderBody(provider, TEXT_FORMAT);
    expect(warnings).toHaveLength(1);
  });

  it('yields to the event loop while serialising a large registry', async () => {
    const provider = createPrometheusProvider({ runtimeMetrics: false, maxSeriesPerMetric: 1_000_000, sliceMs: 1 });
    const counter = provider.newCounter({ name: 'big', help: 'h', labelNames: ['i'] });
    for (let i = 0; i < 100_000; i++) counter.with('i', String(i)).add(1);
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 0);
    const body = await renderBody(provider, TEXT_FORMAT);
    clearInterval(ticker);
    expect(
      body
        .toString()
        .split('\n')
        .filter((l) => l.startsWith('big{')),
    ).toHaveLength(100_000);
    expect(ticks).toBeGreaterThan(1);
  });
});

describe('/metrics handler', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });

  async function serve(handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>): Promise<number> {
    server = createServer((req, res) => void handler(req, res));
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  }

  /** A provider holding only fabric_version{version="1.2.3"} 1, served on a loopback port. */
  async function serveVersionGauge(options: { readonly openMetrics?: boolean } = {}): Promise<number> {
    const provider = createPrometheusProvider({ runtimeMetrics: false, ...options });
    provider
      .newGauge({ name: 'fabric_version', help: 'The active version of Fabric.', labelNames: ['version'] })
      .with('version', '1.2.3')
      .set(1);
    return serve(provider.handler);
  }

  function get(port: number, headers: Record<string, string> = {}, method = 'GET', path = '/metrics') {
    return new Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path, method, headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      });
      req.on('error', reject);
      req.end();
    });
  }

  it('gives two overlapping scrapes on two connections each a complete, correct body', async () => {
    // sliceMs 0: the renderer yields every 256 series, so the two renders interleave and the
    // second cannot use the first one's scratch buffer.
    const provider = createPrometheusProvider({ runtimeMetrics: false, sliceMs: 0 });
    const counter = provider.newCounter({ name: 'big', help: 'h', labelNames: ['i'] });
    for (let i = 0; i < 3_000; i++) counter.with('i', `séries-${i}`).add(i);
    const port = await serve(provider.handler);
    const replies = await Promise.all([get(port), get(port)]);
    const expected = Array.from({ length: 3_000 }, (_, i) => `big{i="séries-${i}"} ${i}`).join('\n');
    for (const reply of replies) {
      expect(reply.status).toBe(200);
      expect(Number(reply.headers['content-length'])).toBe(reply.body.length);
      const text = reply.body.toString('utf8');
      expect(text).toContain(`# HELP big h\n# TYPE big counter\n${expected}\n# HELP promhttp_metric_handler_requests_in_flight`);
      expect(text.endsWith('promhttp_metric_handler_requests_total{code="503"} 0\n')).toBe(true);
    }
    // Both were in flight at once: one of them saw the other.
    expect(replies.map((r) => /requests_in_flight (\d)/.exec(r.body.toString())![1])).toContain('2');
  });

  it('never changes a body it has handed out when the next scrape reuses its scratch buffer', async () => {
    const provider = createPrometheusProvider({ runtimeMetrics: false });
    const gauge = provider.newGauge({ name: 'value', help: 'h' });
    gauge.set(111111);
    const first = await renderBody(provider, TEXT_FORMAT);
    const copy = Buffer.from(first);
    gauge.set(2);
    const second = await renderBody(provider, TEXT_FORMAT);
    expect(second.toString()).toContain('value 2\n');
    expect(first.equals(copy)).toBe(true);
    expect(first.toString()).toContain('value 111111\n');
  });

  it('serves text 0.0.4 even to an OpenMetrics-preferring Prometheus unless OpenMetrics is switched on', async () => {
    const port = await serveVersionGauge();
    const reply = await get(port, { Accept: 'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1' });
    expect(reply.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8; escaping=underscores');
    expect(reply.body.toString()).not.toContain('# EOF');
  });

  it('serves text 0.0.4 by default, OpenMetrics on request when enabled, gzip when allowed, and every method', async () => {
    const port = await serveVersionGauge({ openMetrics: true });

    const plain = await get(port);
    expect(plain.status).toBe(200);
    expect(plain.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8; escaping=underscores');
    expect(plain.body.toString()).toContain('fabric_version{version="1.2.3"} 1');

    const om = await get(port, { Accept: 'application/openmetrics-text;version=1.0.0,text/plain;q=0.5' });
    expect(om.headers['content-type']).toBe('application/openmetrics-text; version=1.0.0; charset=utf-8; escaping=underscores');
    expect(om.body.toString().endsWith('# EOF\n')).toBe(true);

    const zipped = await get(port, { 'Accept-Encoding': 'gzip' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(zipped.body).toString()).toContain('fabric_version{version="1.2.3"} 1');

    for (const method of ['POST', 'PUT', 'DELETE']) {
      const reply = await get(port, {}, method);
      expect(reply.status).toBe(200);
      expect(reply.body.toString()).toContain('fabric_version');
    }
    const head = await get(port, {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);

    const after = await get(port);
    expect(after.body.toString()).toMatch(/promhttp_metric_handler_requests_total\{code="200"\} [1-9]/);
  });

  it('answers escaping=, the delimited protobuf and identity / gzip / zstd as promhttp 1.20.5 does', async () => {
    const port = await serveVersionGauge();
    // The scrape counter moves with every request; everything else must be byte for byte the same.
    const own = (body: Buffer | string) =>
      String(body)
        .split('\n')
        .filter((line) => !line.includes('promhttp_'))
        .join('\n');
    const plain = own((await get(port)).body);

    // Prometheus 3's default Accept: text 0.0.4 (OpenMetrics stays off) with the escaping it asked for.
    const prometheus3 = await get(port, {
      Accept:
        'application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.5,application/openmetrics-text;version=0.0.1;q=0.4,text/plain;version=1.0.0;escaping=allow-utf-8;q=0.3,text/plain;version=0.0.4;q=0.2,*/*;q=0.1',
      'Accept-Encoding': 'gzip',
    });
    expect(prometheus3.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8; escaping=allow-utf-8');
    expect(own(gunzipSync(prometheus3.body))).toBe(plain);
    // Every name served is a legacy name, which no scheme changes: the body is the same under each.
    for (const escaping of ['dots', 'values', 'underscores']) {
      const reply = await get(port, { Accept: `text/plain;escaping=${escaping}` });
      expect(reply.headers['content-type']).toBe(`text/plain; version=0.0.4; charset=utf-8; escaping=${escaping}`);
      expect(own(reply.body)).toBe(plain);
    }
    expect((await get(port, { Accept: 'text/plain;escaping=nonsense' })).headers['content-type']).toBe(TEXT_CONTENT_TYPE);

    const proto = await get(port, { Accept: 'application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;escaping=allow-utf-8' });
    expect(proto.headers['content-type']).toBe('application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited; escaping=allow-utf-8');
    expect(proto.body.includes(Buffer.from('fabric_version'))).toBe(true);
    expect(proto.body.includes(Buffer.from('# HELP'))).toBe(false);

    const identity = await get(port, { 'Accept-Encoding': '*' });
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(own(identity.body)).toBe(plain);
    const gzipped = await get(port, { 'Accept-Encoding': 'gzip, zstd' });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(own(gunzipSync(gzipped.body))).toBe(plain);

    const zstd = await get(port, { 'Accept-Encoding': 'zstd' });
    if (ZSTD_AVAILABLE) {
      expect(zstd.headers['content-encoding']).toBe('zstd');
      const { zstdDecompressSync } = zlib as unknown as { zstdDecompressSync(b: Buffer): Buffer };
      expect(own(zstdDecompressSync(zstd.body))).toBe(plain);
    } else {
      // Node 20 has no zstd: never offered, so the client gets identity.
      expect(zstd.headers['content-encoding']).toBeUndefined();
      expect(own(zstd.body)).toBe(plain);
    }
  });

  it('serves under any mount path and reads nothing but the headers (a body parser may have consumed the body)', async () => {
    const provider = createPrometheusProvider({ runtimeMetrics: false });
    provider.newCounter({ name: 'mounted', help: 'h' }).add(1);
    const port = await serve(async (req, res) => {
      // What a framework's body parser leaves behind: the stream already read to its end.
      req.resume();
      await new Promise((resolve) => req.once('end', resolve));
      return provider.handler(req, res);
    });
    for (const path of ['/ops/metrics', '/internal/v1/prom?target=peer0', '/']) {
      const reply = await get(port, { 'Content-Type': 'application/json' }, 'POST', path);
      expect(reply.status).toBe(200);
      expect(reply.body.toString()).toContain('mounted 1\n');
    }
  });

  it('answers 503 beyond the in-flight limit and when a scrape outlasts its time limit', async () => {
    const registry = new Registry();
    const provider = createPrometheusProvider({ runtimeMetrics: false, registry, maxInFlight: 1, timeoutMs: 60_000 });
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered: () => void = () => {};
    const collecting = new Promise<void>((resolve) => (entered = resolve));
    new PromGauge({
      name: 'slow_gauge',
      help: 'waits for the test',
      registers: [registry],
      async collect() {
        entered();
        await gate;
        this.set(1);
      },
    });
    const port = await serve(provider.handler);
    const first = get(port);
    await collecting;
    const second = await get(port);
    expect(second.status).toBe(503);
    expect(second.body.toString()).toContain('too many concurrent scrapes (limit 1)');
    release();
    expect((await first).status).toBe(200);

    const stuck = new Promise<void>(() => {});
    const registry2 = new Registry();
    const provider2 = createPrometheusProvider({ runtimeMetrics: false, registry: registry2, timeoutMs: 200 });
    new PromGauge({ name: 'stuck', help: 'never answers', registers: [registry2], collect: () => stuck });
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    const port2 = await serve(provider2.handler);
    const timedOut = await get(port2);
    expect(timedOut.status).toBe(503);
    expect(timedOut.body.toString()).toBe('collecting metrics took longer than 200 ms\n');
  });

  it('answers 500 with the message only when a collector fails', async () => {
    const registry = new Registry();
    const provider = createPrometheusProvider({ runtimeMetrics: false, registry });
    new PromGauge({
      name: 'broken',
      help: 'throws',
      registers: [registry],
      collect() {
        throw new Error('sensor offline');
      },
    });
    const port = await serve(provider.handler);
    const reply = await get(port);
    expect(reply.status).toBe(500);
    expect(reply.body.toString()).toBe('error collecting metrics: sensor offline\n');
  });
});
