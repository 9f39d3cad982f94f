// One /metrics for a multi-process service: ops-server's createOperationsCluster against one
// process holding the same series (createOperationsSystem), and with --theirs prom-client's
// AggregatorRegistry, on the same workload in the same run.
//
//   node bench/cluster.bench.mjs [--quick] [--theirs]
//   node --expose-gc bench/cluster.bench.mjs --hostile reply|retire|hello
//   node bench/cluster.bench.mjs --profile <dir> [workers]
//
// A sweep: for each workers count (BENCH_WORKERS, default 1,2,4) and series per worker
// (BENCH_SERIES, default 100,1000,10000,30000), each worker holds that many counter series of its
// own and the single process all of them; BENCH_CHANGED (default 0.1) of every process's series
// count once more at every scrape. Each cell warms the targets up, then scrapes sequentially (as
// Prometheus does), targets alternating round by round, and reports the CPU the whole service
// spent per scrape (primary + workers, every thread, from /proc/<pid>/task/*/schedstat; the
// primary's share in brackets) and the ratio of the two measured in the same round. Then, per
// workers count, a least-squares line of CPU per scrape against the total series for each target:
// its slope is the cost of one more series (the "CPU per series"), its intercept the cost
// of a scrape with none, whose difference is the cluster's fixed cost. `--hostile` measures the
// primary against one hostile worker instead (RSS, scrape time, longest event-loop
// block). What each side does: bench/README.md. Loopback only; every process is stopped at the end.
import cluster from 'node:cluster';
import { once } from 'node:events';
import { request } from 'node:http';
import { createRequire } from 'node:module';
import { readdirSync, readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { cpuSeconds, median } from './lib/proc.mjs';

/**
 * CPU seconds of a process to the nanosecond: the sum of its threads' run time
 * (/proc/<pid>/task/<tid>/schedstat). /proc/<pid>/stat counts in 10 ms ticks, too coarse for a
 * few milliseconds per scrape over five processes; it is the fallback where schedstat is missing.
 */
function preciseCpuSeconds(pid) {
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ', 1)[0]);
      } catch {
        // the thread ended between the listing and the read
      }
    }
    return ns / 1e9;
  } catch {
    return cpuSeconds(pid);
  }
}

// Series per worker in a target (the sweep sets it per cell; --profile reads BENCH_SERIES).
const SERIES = Number(process.env.BENCH_SERIES_CELL || process.env.BENCH_SERIES || 1_000);
// Share of each process's series that changes between two scrapes (default 0.1; 1 = every one).
const CHANGED = Number(process.env.BENCH_CHANGED ?? 0.1);

/**
 * Makes CHANGED of `handles` count once more at every scrape, in the single process as in each
 * worker (the same number of changes per scrape on both sides): an application registry, which
 * a provider reads once per scrape, that holds nothing of its own and returns no metrics.
 */
function changingAtScrape(handles) {
  const perScrape = Math.round(handles.length * CHANGED);
  let next = 0;
  return {
    getMetricsAsJSON: async () => {
      for (let i = 0; i < perScrape; i++) {
        handles[next].add(1);
        next = (next + 1) % handles.length;
      }
      return [];
    },
  };
}
const WARM_UP_SCRAPES = 30;
const role = process.env.CLUSTER_BENCH_ROLE;

// prom-client is a dev dependency of ops-metrics (its parity tests), not of the repo root.
const promClient = () => createRequire(new URL('../packages/ops-metrics/package.json', import.meta.url))('prom-client');

async function runTarget() {
  const workers = Number(process.env.WORKERS);
  const port = Number(process.env.PORT ?? 0);
  if (role === 'ours') {
    const { createOperationsCluster, startOperationsWorker } = await import('@fabric-ops/ops-server/cluster');
    if (cluster.isPrimary) {
      const ops = createOperationsCluster({
        listenAddress: `127.0.0.1:${port}`,
        version: { version: 'bench', commitSHA: '' },
        metrics: { provider: 'prometheus' },
        cluster: { minWorkers: workers },
        logger: { info() {}, warn() {}, error() {} },
      });
      await ops.start();
      for (let i = 0; i < workers; i++) cluster.fork();
      await waitUntil(async () => (await get(ops.address(), '/readyz')).status === 200);
      process.send?.({ address: ops.address(), pids: Object.values(cluster.workers).map((w) => w.process.pid) });
      // --profile: a clean exit, so --cpu-prof writes the primary's and every worker's profile.
      process.on('message', (message) => {
        if (message !== 'bench-stop') return;
        for (const worker of Object.values(cluster.workers)) worker.disconnect();
        setTimeout(() => process.exit(0), 500);
      });
    } else {
      process.on('disconnect', () => process.exit(0));
      const handles = [];
      const ops = await startOperationsWorker({ registry: changingAtScrape(handles) });
      const counter = ops.metrics.newCounter({ namespace: 'bench', name: 'work_total', help: 'Work.', labelNames: ['shard'] });
      for (let i = 0; i < SERIES; i++) handles.push(counter.with('shard', `w${cluster.worker.id}-s${i}`));
      handles.forEach((handle, i) => handle.add(i + 1));
    }
    return;
  }
  if (role === 'single') {
    const { createOperationsSystem } = await import('@fabric-ops/ops-server');
    const handles = [];
    const ops = createOperationsSystem({
      listenAddress: `127.0.0.1:${port}`,
      version: { version: 'bench', commitSHA: '' },
      // Past the default bound of 100,000 series a metric, so it holds every worker's (4 × 30,000).
      metrics: { provider: 'prometheus', maxSeriesPerMetric: 1_000_000, registry: changingAtScrape(handles) },
      logger: { info() {}, warn() {}, error() {} },
    });
    await ops.start();
    const counter = ops.metrics.newCounter({ namespace: 'bench', name: 'work_total', help: 'Work.', labelNames: ['shard'] });
    // The series of every worker of the cluster, in one process (worker ids start at 1).
    for (let w = 1; w <= workers; w++) for (let i = 0; i < SERIES; i++) handles.push(counter.with('shard', `w${w}-s${i}`));
    handles.forEach((handle, i) => handle.add((i % SERIES) + 1));
    process.send?.({ address: ops.address(), pids: [] });
    return;
  }
  const { AggregatorRegistry, Counter, Registry, collectDefaultMetrics } = promClient();
  if (cluster.isPrimary) {
    const aggregator = new AggregatorRegistry();
    const { createServer } = await import('node:http');
    const server = createServer(async (req, res) => {
      try {
        const text = await aggregator.clusterMetrics();
        res.writeHead(200, { 'content-type': aggregator.contentType }).end(text);
      } catch (error) {
        res.writeHead(500).end(String(error));
      }
    });
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
    // Scrape only once every worker has its registry (prom-client answers a scrape that reaches a
    // worker without one with a 5 s timeout).
    const ready = Promise.all(
      Array.from({ length: workers }, () => {
        const worker = cluster.fork();
        return new Promise((resolve) => worker.on('message', (message) => message === 'bench-ready' && resolve()));
      }),
    );
    await ready;
    const address = `127.0.0.1:${server.address().port}`;
    process.send?.({ address, pids: Object.values(cluster.workers).map((w) => w.process.pid) });
  } else {
    const registry = new Registry();
    // Constructing one is what makes a worker answer the primary's requests.
    new AggregatorRegistry();
    AggregatorRegistry.setRegistries([registry]);
    collectDefaultMetrics({ register: registry });
    const counter = new Counter({ name: 'bench_work_total', help: 'Work.', labelNames: ['shard'], registers: [registry] });
    for (let i = 0; i < SERIES; i++) counter.inc({ shard: `w${cluster.worker.id}-s${i}` }, i + 1);
    process.send?.('bench-ready');
  }
}

function get(address, path, timeoutMs = 30_000) {
  const colon = address.lastIndexOf(':');
  return new Promise((resolve, reject) => {
    const req = request({ host: address.slice(0, colon), port: Number(address.slice(colon + 1)), path, agent: false }, (res) => {
      let bytes = 0;
      res.on('data', (chunk) => (bytes += chunk.length));
      res.on('end', () => resolve({ status: res.statusCode, bytes }));
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end();
  });
}

async function waitUntil(check, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error('target did not come up');
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function startTarget(kind, workers, execArgv = process.execArgv, env = {}) {
  const { fork } = await import('node:child_process');
  const child = fork(new URL(import.meta.url), [], {
    execArgv,
    env: { ...process.env, ...env, CLUSTER_BENCH_ROLE: kind, WORKERS: String(workers), PORT: '0' },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const [info] = await once(child, 'message');
  return { child, ...info, pids: [child.pid, ...info.pids] };
}

async function measure(target, scrapes, warmUpScrapes = WARM_UP_SCRAPES) {
  const cpu = () => target.pids.reduce((sum, pid) => sum + preciseCpuSeconds(pid), 0);
  const primaryCpu = () => preciseCpuSeconds(target.pids[0]);
  // Both sides get the same warm-up, long enough for the JIT to settle: a scraped service runs for
  // days, and a handful of cold scrapes measured the compiler more than the scrape.
  const coldBefore = cpu();
  for (let i = 0; i < warmUpScrapes; i++) await get(target.address, '/metrics');
  const coldUs = ((cpu() - coldBefore) / warmUpScrapes) * 1e6;
  const latencies = [];
  let bytes = 0;
  const ticks = () => target.pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
  const before = cpu();
  const ticksBefore = ticks();
  const primaryBefore = primaryCpu();
  for (let i = 0; i < scrapes; i++) {
    const started = process.hrtime.bigint();
    const answer = await get(target.address, '/metrics');
    latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
    if (answer.status !== 200) throw new Error(`scrape answered ${answer.status}`);
    bytes = answer.bytes;
  }
  const cpuPerScrape = ((cpu() - before) / scrapes) * 1e6;
  const ticksPerScrape = ((ticks() - ticksBefore) / scrapes) * 1e6;
  const primaryPerScrape = ((primaryCpu() - primaryBefore) / scrapes) * 1e6;
  latencies.sort((a, b) => a - b);
  return {
    cpuUs: cpuPerScrape,
    ticksUs: ticksPerScrape,
    primaryUs: primaryPerScrape,
    coldUs,
    p50: latencies[Math.floor(latencies.length * 0.5)],
    p99: latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))],
    bytes,
  };
}

/** Scrapes per round for a cell: about the same CPU per round whatever its size. */
function scrapesFor(totalSeries, quick) {
  if (process.env.BENCH_SCRAPES) return Number(process.env.BENCH_SCRAPES);
  const scrapes = Math.round(400_000 / totalSeries);
  return Math.max(quick ? 5 : 10, Math.min(quick ? 20 : 100, scrapes));
}

/** Least squares of y on x: the marginal cost (slope) and the fixed cost (intercept). */
function fit(points) {
  const n = points.length;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  const sxy = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const slope = sxx === 0 ? Number.NaN : sxy / sxx;
  return { slope, intercept: my - slope * mx };
}

const stopTarget = (target) => {
  target.child.kill('SIGKILL');
  for (const pid of target.pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
};

/** One cell: ours, single (and theirs) for `workers` × `series`, rounds alternating the targets. */
async function measureCell(workers, series, kinds, rounds, quick) {
  const env = { BENCH_SERIES_CELL: String(series) };
  const targets = {};
  try {
    for (const kind of kinds) targets[kind] = await startTarget(kind === 'theirs' ? 'prom-client' : kind, workers, process.execArgv, env);
    const scrapes = scrapesFor(workers * series, quick);
    const results = Object.fromEntries(kinds.map((kind) => [kind, []]));
    for (let round = 0; round < rounds; round++) for (const kind of kinds) results[kind].push(await measure(targets[kind], scrapes, round === 0 ? Math.min(WARM_UP_SCRAPES, Math.max(5, scrapes)) : 3));
    const m = (kind, key) => median(results[kind].map((r) => r[key]));
    // Same-round ratios: both targets measured back to back under the same load.
    const ratio = (a, b) => median(results[a].map((r, i) => r.cpuUs / results[b][i].cpuUs));
    return { workers, series, scrapes, results, m, ratio };
  } finally {
    for (const target of Object.values(targets)) stopTarget(target);
  }
}

async function main() {
  const quick = process.argv.includes('--quick');
  const kinds = process.argv.includes('--theirs') ? ['ours', 'single', 'theirs'] : ['ours', 'single'];
  const list = (name, fallback) => (process.env[name] ?? fallback).split(',').map(Number);
  const seriesCounts = list('BENCH_SERIES', quick ? '100,1000,10000' : '100,1000,10000,30000');
  const workerCounts = list('BENCH_WORKERS', '1,2,4');
  const rounds = Number(process.env.BENCH_ROUNDS) || (quick ? 1 : 3);
  const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log(
    `cluster scrape: series per worker ${seriesCounts.join(', ')}; workers ${workerCounts.join(', ')}; ${CHANGED * 100}% of the series change between scrapes; ${rounds} round(s), targets alternating, medians; CPU = primary + workers (schedstat); load average ${load()}`,
  );
  console.log(
    `| workers | series per worker | scrapes/round | ours µs CPU/scrape (primary) | single µs CPU/scrape | ours/single (same-round) | ours p50 / p99 ms | bytes ours / single${kinds.includes('theirs') ? ' | AggregatorRegistry µs (primary) | ours/theirs' : ''} | load |`,
  );
  console.log(`|---:|---:|---:|---:|---:|---:|---:|---:|${kinds.includes('theirs') ? '---:|---:|' : ''}---|`);
  const cells = [];
  for (const workers of workerCounts) {
    for (const series of seriesCounts) {
      const cell = await measureCell(workers, series, kinds, rounds, quick);
      cells.push(cell);
      const { m } = cell;
      const theirs = kinds.includes('theirs') ? ` | ${m('theirs', 'cpuUs').toFixed(0)} (${m('theirs', 'primaryUs').toFixed(0)}) | ${cell.ratio('ours', 'theirs').toFixed(2)}×` : '';
      console.log(
        `| ${workers} | ${series} | ${cell.scrapes} | ${m('ours', 'cpuUs').toFixed(0)} (${m('ours', 'primaryUs').toFixed(0)}) | ${m('single', 'cpuUs').toFixed(0)} | ${cell.ratio('ours', 'single').toFixed(2)}× | ${m('ours', 'p50').toFixed(2)} / ${m('ours', 'p99').toFixed(2)} | ${m('ours', 'bytes')} / ${m('single', 'bytes')}${theirs} | ${load().split(' ')[0]} |`,
      );
    }
  }
  if (seriesCounts.length < 2) {
    console.log(`load average after: ${load()}`);
    return;
  }
  // Per workers count: CPU per scrape against the total series (workers × series per worker),
  // fitted by least squares for each target. The slope is the cost of one more series; the
  // intercept what a scrape costs with none, whose difference is the cluster's fixed cost.
  console.log('');
  console.log('| workers | ours ns/series (slope) | single ns/series | ours/single per series | ours fixed µs/scrape | single fixed µs/scrape | cluster fixed µs per worker per scrape |');
  console.log('|---:|---:|---:|---:|---:|---:|---:|');
  for (const workers of workerCounts) {
    const mine = cells.filter((cell) => cell.workers === workers);
    const line = (kind) => fit(mine.map((cell) => [cell.workers * cell.series, cell.m(kind, 'cpuUs')]));
    const ours = line('ours');
    const single = line('single');
    console.log(
      `| ${workers} | ${(ours.slope * 1e3).toFixed(0)} | ${(single.slope * 1e3).toFixed(0)} | ${(ours.slope / single.slope).toFixed(2)}× | ${ours.intercept.toFixed(0)} | ${single.intercept.toFixed(0)} | ${((ours.intercept - single.intercept) / workers).toFixed(0)} |`,
    );
  }
  console.log(`load average after: ${load()}`);
}

// ---- --hostile: the primary against one hostile worker ----

const TAG = 'fabric-ops/cluster/v1';
// The primary's protocol: `series` (structured, this tree) or `text` (an earlier version's).
const FORMAT = process.env.HOSTILE_FORMAT ?? 'series';

// A scrape of a hostile worker's millions of samples takes long: these requests wait up to 120 s.
const getWithTimeout = (address, path) => get(address, path, 120_000);
const mib = (bytes) => (bytes / 1048576).toFixed(0);
const pause = (ms) => new Promise((r) => setTimeout(r, ms));

function payload(samples, name, labels) {
  if (FORMAT === 'text') {
    const parts = labels ? [`# TYPE ${name} counter\n`] : [];
    for (let i = 0; i < samples; i++) parts.push(labels ? `${name}{${labels}="${process.pid}",i="${i}"} 1\n` : `${name} 1\n`);
    return parts.join('');
  }
  const family = { name, help: '', type: labels ? 'counter' : 'untyped', samples: [] };
  const values = [];
  for (let i = 0; i < samples; i++) {
    family.samples.push(['', labels ? [labels, String(process.pid), 'i', String(i)] : []]);
    values.push(1);
  }
  return JSON.stringify({ layoutId: 1, layout: [family], values });
}

function hostileWorker() {
  const kind = process.env.HOSTILE_KIND;
  let answer;
  if (kind === 'reply') answer = payload(Number(process.env.HOSTILE_SAMPLES), 'a', undefined);
  if (kind === 'retire') answer = payload(100_000, 'x_total', 'pid');
  process.on('message', (message) => {
    if (message?.tag !== TAG) return;
    if (message.type === 'init') process.send({ tag: TAG, type: 'ready', spec: message.spec });
    if (message.type === 'request') {
      if (message.op === 'metrics') process.send({ tag: TAG, type: 'reply', id: message.id, ok: true, metrics: answer });
      else if (message.op === 'health') process.send({ tag: TAG, type: 'reply', id: message.id, ok: true, health: { healthy: true, failed: [] } });
      else process.send({ tag: TAG, type: 'reply', id: message.id, ok: true, spec: message.spec });
    }
  });
  if (kind === 'hello') {
    for (let i = 0; i < 3000; i++) process.send({ tag: TAG, type: 'hello' });
    // Stop reading: a process that never returns to its event loop.
    setTimeout(() => {
      const until = Date.now() + 600_000;
      while (Date.now() < until);
    }, 200);
  } else process.send({ tag: TAG, type: 'hello' });
}

async function hostilePrimary(MODE) {
  const { createOperationsCluster } = await import('@fabric-ops/ops-server/cluster');
  const ops = createOperationsCluster({
    listenAddress: '127.0.0.1:0',
    version: { version: 'bench', commitSHA: '' },
    metrics: { provider: 'prometheus' },
    cluster: { minWorkers: 1, workerTimeoutMs: 120_000 },
    logger: { info() {}, warn() {}, error() {} },
  });
  await ops.start();
  const address = ops.address();
  const delay = monitorEventLoopDelay({ resolution: 10 });
  const rss = () => process.memoryUsage().rss;
  const settle = async () => {
    for (let i = 0; i < 3; i++) {
      globalThis.gc?.();
      await pause(100);
    }
  };
  await settle();
  const rss0 = rss();
  const ready = async () => {
    for (let i = 0; i < 600; i++) {
      if ((await getWithTimeout(address, '/readyz')).status === 200) return;
      await pause(100);
    }
    throw new Error('no worker joined');
  };
  if (MODE === 'reply') {
    const samples = Number(process.env.HOSTILE_SAMPLES ?? 8 * 1024 * 1024);
    cluster.fork({ HOSTILE_KIND: 'reply', HOSTILE_SAMPLES: String(samples) });
    await ready();
    delay.enable();
    let peak = rss();
    const sampler = setInterval(() => (peak = Math.max(peak, rss())), 20);
    const started = performance.now();
    // A health probe while the scrape runs: how long the loop keeps it waiting.
    const probe = (async () => {
      await pause(50);
      const t = performance.now();
      const answer = await getWithTimeout(address, '/livez');
      return { status: answer.status, ms: performance.now() - t };
    })();
    const scrape = await getWithTimeout(address, '/metrics');
    const scrapeMs = performance.now() - started;
    const live = await probe;
    delay.disable();
    clearInterval(sampler);
    await settle();
    console.log(
      `load ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]}: one worker's huge reply (${FORMAT}, ${samples} samples): scrape ${scrape.status} ${scrape.bytes} B in ${scrapeMs.toFixed(0)} ms; /livez during it ${live.status} after ${live.ms.toFixed(0)} ms; longest loop block ${(delay.max / 1e6).toFixed(0)} ms; RSS ${mib(rss0)} → peak ${mib(peak)} → retained ${mib(rss())} MiB (heap used ${mib(process.memoryUsage().heapUsed)} MiB)`,
    );
  } else if (MODE === 'retire') {
    for (let round = 1; round <= 6; round++) {
      const worker = cluster.fork({ HOSTILE_KIND: 'retire' });
      await ready();
      await getWithTimeout(address, '/metrics');
      worker.process.kill('SIGKILL');
      await new Promise((resolve) => worker.once('exit', resolve));
      const started = performance.now();
      const scrape = await getWithTimeout(address, '/metrics');
      const ms = performance.now() - started;
      await settle();
      console.log(
        `load ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]}: exited workers' series (${FORMAT}) after ${round} exits: /metrics ${scrape.bytes} B in ${ms.toFixed(0)} ms; RSS ${mib(rss())} MiB, heap used ${mib(process.memoryUsage().heapUsed)} MiB`,
      );
    }
  } else if (MODE === 'hello') {
    // A 310 KB spec, as in the issue.
    const loggers = [];
    for (let i = 0; loggers.join(':').length < 310_000; i++) loggers.push(`logger${String(i).padStart(6, '0')}=debug`);
    ops.logging.activateSpec(`${loggers.join(':')}:info`);
    const worker = cluster.fork({ HOSTILE_KIND: 'hello' });
    delay.enable();
    let peak = rss();
    const sampler = setInterval(() => (peak = Math.max(peak, rss())), 20);
    await pause(8_000);
    delay.disable();
    clearInterval(sampler);
    await settle();
    console.log(
      `load ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]}: a worker flooding hellos (spec ${ops.logging.spec().length} B, 3000 hellos, worker stops reading): RSS ${mib(rss0)} → peak ${mib(peak)} → ${mib(rss())} MiB after 8 s; longest loop block ${(delay.max / 1e6).toFixed(0)} ms`,
    );
    worker.process.kill('SIGKILL');
  }
  for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGKILL');
  await ops.stop();
  process.exit(0);
}

/** CPU profiles of our primary and its workers over BENCH_SCRAPES (default 300) scrapes after the warm-up. */
async function profile(dir, workers) {
  const target = await startTarget('ours', workers, [...process.execArgv, '--cpu-prof', '--cpu-prof-dir', dir]);
  for (let i = 0; i < WARM_UP_SCRAPES; i++) await get(target.address, '/metrics');
  const scrapes = Number(process.env.BENCH_SCRAPES) || 300;
  for (let i = 0; i < scrapes; i++) await get(target.address, '/metrics');
  target.child.send('bench-stop');
  await once(target.child, 'exit');
  console.log(`profiles of the primary (pid ${target.pids[0]}) and ${workers} worker(s) (${target.pids.slice(1).join(', ')}) in ${dir}`);
}

const hostileAt = process.argv.indexOf('--hostile');
const profileAt = process.argv.indexOf('--profile');
if (cluster.isWorker && process.env.HOSTILE_KIND !== undefined) hostileWorker();
else if (hostileAt >= 0) await hostilePrimary(process.argv[hostileAt + 1] ?? 'reply');
else if (profileAt >= 0 && role === undefined) await profile(process.argv[profileAt + 1] ?? '.', Number(process.argv[profileAt + 2] ?? 4));
else if (role === undefined) await main();
else await runTarget();
