// /metrics scrape cost at 1k / 10k / 100k series (time, bytes, longest event-loop stall),
// against prom-client's own registry.metrics() on the same series; and the per-call cost of
// counter.with(...).add(1) for the Prometheus and StatsD providers against raw prom-client.
import './lib/fail.mjs';
import { createServer, request } from 'node:http';
import { availableParallelism, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { createMetricsProvider } from '@fabric-ops/ops-metrics';
import { createRequire } from 'node:module';

// The prom-client ops-metrics itself resolves (a dev/peer dependency of that package).
const promClient = createRequire(new URL('../packages/ops-metrics/package.json', import.meta.url))('prom-client');

const { Registry, Counter, Gauge, Histogram } = promClient;
const fmt = (n, digits = 1) => n.toFixed(digits);
const kb = (bytes) => `${(bytes / 1024).toFixed(0)} KiB`;

/** Runs `work` while a timer chain records the longest gap the event loop went without turning. */
async function withStallProbe(work) {
  let longest = 0;
  let last = performance.now();
  let running = true;
  const tick = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const result = await work();
  const elapsed = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  running = false;
  const now = performance.now();
  longest = Math.max(longest, now - last);
  return { result, elapsed, longest, cpuMs };
}

function fill(factory, series) {
  // Half counters, half gauges, spread over 10 families each, two labels per series.
  const perFamily = Math.max(1, Math.floor(series / 20));
  for (let f = 0; f < 10; f++) {
    const counter = factory.counter(`bench_requests_${f}`);
    const gauge = factory.gauge(`bench_depth_${f}`);
    for (let i = 0; i < perFamily; i++) {
      counter(`channel${i % 100}`, `op${i}`);
      gauge(`channel${i % 100}`, `op${i}`);
    }
  }
}

function ours(provider) {
  return {
    counter: (name) => {
      const c = provider.newCounter({ name, help: 'bench counter', labelNames: ['channel', 'op'] });
      return (ch, op) => c.with('channel', ch, 'op', op).add(1);
    },
    gauge: (name) => {
      const g = provider.newGauge({ name, help: 'bench gauge', labelNames: ['channel', 'op'] });
      return (ch, op) => g.with('channel', ch, 'op', op).set(3);
    },
  };
}

function raw(registry) {
  return {
    counter: (name) => {
      const c = new Counter({ name, help: 'bench counter', labelNames: ['channel', 'op'], registers: [registry] });
      return (channel, op) => c.inc({ channel, op }, 1);
    },
    gauge: (name) => {
      const g = new Gauge({ name, help: 'bench gauge', labelNames: ['channel', 'op'], registers: [registry] });
      return (channel, op) => g.set({ channel, op }, 3);
    },
  };
}

/** The provider's /metrics handler on a loopback port. */
async function serveProvider(provider) {
  const server = createServer((req, res) => void provider.handler(req, res));
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: server.address().port };
}

function get(port, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/metrics', headers, agent: false }, (res) => {
      let bytes = 0;
      res.on('data', (c) => (bytes += c.length));
      res.on('end', () => resolve({ status: res.statusCode, bytes }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function scrapeBench() {
  console.log('\n/metrics scrape (HTTP, text 0.0.4), median of 5; cpu = process CPU time (server and in-process client);');
  console.log('stall = longest event-loop gap during the scrape (worst of 5)');
  console.log('series   | ours: time   cpu      bytes      gzip      stall  | prom-client metrics(): time  cpu      stall | time ratio');
  for (const series of [1_000, 10_000, 100_000]) {
    const provider = createMetricsProvider({ provider: 'prometheus', runtimeMetrics: false, maxSeriesPerMetric: 1_000_000 });
    fill(ours(provider), series);
    const { server, port } = await serveProvider(provider);
    await get(port); // warm-up
    const runs = [];
    for (let i = 0; i < 5; i++) runs.push(await withStallProbe(() => get(port)));
    const zipped = await get(port, { 'Accept-Encoding': 'gzip' });
    server.close();

    const registry = new Registry();
    fill(raw(registry), series);
    await registry.metrics(); // warm-up
    const baseline = [];
    for (let i = 0; i < 5; i++) baseline.push(await withStallProbe(() => registry.metrics()));

    const median = (list, key) => list.map((r) => r[key]).sort((a, b) => a - b)[Math.floor(list.length / 2)];
    const t = median(runs, 'elapsed');
    const b = median(baseline, 'elapsed');
    console.log(
      `${String(series).padEnd(8)} | ${fmt(t).padStart(8)} ms ${fmt(median(runs, 'cpuMs')).padStart(6)} ms ${kb(runs[0].result.bytes).padStart(10)} ${kb(zipped.bytes).padStart(9)} ${fmt(Math.max(...runs.map((r) => r.longest))).padStart(6)} ms` +
        ` | ${fmt(b).padStart(24)} ms ${fmt(median(baseline, 'cpuMs')).padStart(6)} ms ${fmt(Math.max(...baseline.map((r) => r.longest))).padStart(6)} ms | ${fmt(t / b, 2)}x`,
    );
  }
}

const PROTOBUF_ACCEPT = 'application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited';

/** CPU per scrape of each encoding and format Fabric v2.5 / v3.1 negotiate, against identity text in the same run. */
async function wireBench() {
  console.log('\n/metrics per negotiated answer (HTTP), median of 5: cpu per scrape, bytes, longest stall; ratio = cpu / identity text cpu');
  const answers = [
    ['text, identity', {}],
    ['text, gzip', { 'Accept-Encoding': 'gzip' }],
    ...(typeof (await import('node:zlib')).zstdCompress === 'function' ? [['text, zstd', { 'Accept-Encoding': 'zstd' }]] : []),
    ['protobuf, identity', { Accept: PROTOBUF_ACCEPT }],
    ['protobuf, gzip', { Accept: PROTOBUF_ACCEPT, 'Accept-Encoding': 'gzip' }],
  ];
  for (const series of [1_000, 10_000, 100_000]) {
    const provider = createMetricsProvider({ provider: 'prometheus', runtimeMetrics: false, maxSeriesPerMetric: 1_000_000 });
    fill(ours(provider), series);
    const { server, port } = await serveProvider(provider);
    let base;
    for (const [label, headers] of answers) {
      await get(port, headers); // warm-up
      const runs = [];
      for (let i = 0; i < 5; i++) runs.push(await withStallProbe(() => get(port, headers)));
      const cpu = runs.map((r) => r.cpuMs).sort((a, b) => a - b)[2];
      base ??= cpu;
      console.log(
        `${String(series).padEnd(8)} ${label.padEnd(20)} ${fmt(cpu).padStart(8)} ms cpu ${kb(runs[0].result.bytes).padStart(10)} ${fmt(Math.max(...runs.map((r) => r.longest))).padStart(7)} ms stall  ${fmt(cpu / base, 2)}x`,
      );
    }
    server.close();
  }
}

async function histogramBench() {
  console.log('\nhistograms: 11 buckets + +Inf + sum + count = 14 lines per series (HTTP, text 0.0.4), median of 5');
  console.log('series   | ours: time   bytes      stall  | prom-client metrics(): time  stall | time ratio');
  for (const series of [1_000, 10_000]) {
    const provider = createMetricsProvider({ provider: 'prometheus', runtimeMetrics: false, maxSeriesPerMetric: 1_000_000 });
    const ourHistogram = provider.newHistogram({ name: 'bench_latency_seconds', help: 'bench histogram', labelNames: ['channel', 'op'] });
    const registry = new Registry();
    const rawHistogram = new Histogram({ name: 'bench_latency_seconds', help: 'bench histogram', labelNames: ['channel', 'op'], registers: [registry] });
    for (let i = 0; i < series; i++) {
      ourHistogram.with('channel', `channel${i % 100}`, 'op', `op${i}`).observe((i % 50) / 10);
      rawHistogram.observe({ channel: `channel${i % 100}`, op: `op${i}` }, (i % 50) / 10);
    }
    const { server, port } = await serveProvider(provider);
    await get(port);
    const runs = [];
    for (let i = 0; i < 5; i++) runs.push(await withStallProbe(() => get(port)));
    server.close();
    await registry.metrics();
    const baseline = [];
    for (let i = 0; i < 5; i++) baseline.push(await withStallProbe(() => registry.metrics()));
    const median = (list) => list.map((r) => r.elapsed).sort((a, b) => a - b)[2];
    const stall = (list) => Math.max(...list.map((r) => r.longest));
    console.log(
      `${String(series).padEnd(8)} | ${fmt(median(runs)).padStart(8)} ms ${kb(runs[0].result.bytes).padStart(10)} ${fmt(stall(runs)).padStart(6)} ms` +
        ` | ${fmt(median(baseline)).padStart(24)} ms ${fmt(stall(baseline)).padStart(6)} ms | ${fmt(median(runs) / median(baseline), 2)}x`,
    );
  }
}

function perCall(label, fn, calls = 2_000_000) {
  for (let i = 0; i < 200_000; i++) fn(i);
  const started = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) fn(i);
  const ns = Number(process.hrtime.bigint() - started) / calls;
  return { label, ns };
}

function hotPathBench() {
  console.log('\ncounter.with(channel, type).add(1) per call, 100 label combinations');
  const channels = Array.from({ length: 10 }, (_, i) => `channel${i}`);
  const types = Array.from({ length: 10 }, (_, i) => `type${i}`);
  const opts = { namespace: 'bench', name: 'calls', help: 'h', labelNames: ['channel', 'type'], statsdFormat: '%{#fqname}.%{channel}.%{type}' };

  const registry = new Registry();
  const rawCounter = new Counter({ name: 'bench_calls', help: 'h', labelNames: ['channel', 'type'], registers: [registry] });
  const prometheus = createMetricsProvider({ provider: 'prometheus', runtimeMetrics: false }).newCounter(opts);
  const statsd = createMetricsProvider({ provider: 'statsd', statsd: { network: 'udp', host: '127.0.0.1', port: 9, writeIntervalMs: 10_000, prefix: '' }, runtimeMetrics: false }).newCounter(opts);
  const cachedProm = prometheus.with('channel', 'channel0', 'type', 'type0');
  const cachedRaw = rawCounter.labels('channel0', 'type0');

  const results = [
    perCall('baseline: prom-client counter.inc({channel, type}, 1)', (i) => rawCounter.inc({ channel: channels[i % 10], type: types[((i / 10) % 10) | 0] }, 1)),
    perCall('baseline: prom-client counter.labels(c, t).inc(1)', (i) => rawCounter.labels(channels[i % 10], types[((i / 10) % 10) | 0]).inc(1)),
    perCall('prometheus: counter.with(...).add(1)', (i) => prometheus.with('channel', channels[i % 10], 'type', types[((i / 10) % 10) | 0]).add(1)),
    perCall('statsd: counter.with(...).add(1)', (i) => statsd.with('channel', channels[i % 10], 'type', types[((i / 10) % 10) | 0]).add(1)),
    perCall('baseline: prom-client child.inc(1) (child kept)', () => cachedRaw.inc(1)),
    perCall('prometheus: child.add(1) (child kept)', () => cachedProm.add(1)),
  ];
  const base = results[0].ns;
  for (const r of results) console.log(`${r.label.padEnd(56)} ${fmt(r.ns).padStart(7)} ns/call  ${fmt(r.ns / base, 2)}x of inc({..})`);
}

console.log(
  `machine: ${availableParallelism()} CPUs, load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} (stalls include time other processes took the CPU)`,
);
await scrapeBench();
await wireBench();
await histogramBench();
hotPathBench();
