// One /metrics for a multi-process service: ops-server's createOperationsCluster against
// prom-client's AggregatorRegistry, on the same workload in the same run.
//
//   node bench/cluster.bench.mjs [--quick]
//
// For 1, 2 and 4 workers, each worker holds SERIES counter series (default 1,000). Each cell
// warms both targets up with the same number of scrapes, then scrapes the primary sequentially
// (as Prometheus does) and reports latency and the CPU the whole service spent per scrape
// (primary + workers, every thread, from /proc/<pid>/task/*/schedstat; the primary's share in
// brackets), alternating the two targets round by round and printing medians. What each side
// does: bench/README.md. Loopback only; every process is stopped at the end.
import cluster from 'node:cluster';
import { once } from 'node:events';
import { request } from 'node:http';
import { createRequire } from 'node:module';
import { readdirSync, readFileSync } from 'node:fs';
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

const SERIES = Number(process.env.BENCH_SERIES || 1_000);
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
        version: { version: 'bench', commitSha: '' },
        metrics: { provider: 'prometheus' },
        cluster: { minWorkers: workers },
        logger: { info() {}, warn() {}, error() {} },
      });
      await ops.start();
      for (let i = 0; i < workers; i++) cluster.fork();
      await waitUntil(async () => (await get(ops.address(), '/readyz')).status === 200);
      process.send?.({ address: ops.address(), pids: Object.values(cluster.workers).map((w) => w.process.pid) });
    } else {
      const ops = await startOperationsWorker();
      const counter = ops.metrics.newCounter({ namespace: 'bench', name: 'work_total', help: 'Work.', labelNames: ['shard'] });
      for (let i = 0; i < SERIES; i++) counter.with('shard', `s${i}`).add(i + 1);
    }
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
    for (let i = 0; i < SERIES; i++) counter.inc({ shard: `s${i}` }, i + 1);
    process.send?.('bench-ready');
  }
}

function get(address, path) {
  const colon = address.lastIndexOf(':');
  return new Promise((resolve, reject) => {
    const req = request({ host: address.slice(0, colon), port: Number(address.slice(colon + 1)), path, agent: false }, (res) => {
      let bytes = 0;
      res.on('data', (chunk) => (bytes += chunk.length));
      res.on('end', () => resolve({ status: res.statusCode, bytes }));
    });
    req.setTimeout(30_000, () => req.destroy(new Error('timed out')));
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

async function startTarget(kind, workers) {
  const { fork } = await import('node:child_process');
  const child = fork(new URL(import.meta.url), [], { env: { ...process.env, CLUSTER_BENCH_ROLE: kind, WORKERS: String(workers), PORT: '0' }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const [info] = await once(child, 'message');
  return { child, ...info, pids: [child.pid, ...info.pids] };
}

async function measure(target, scrapes) {
  const cpu = () => target.pids.reduce((sum, pid) => sum + preciseCpuSeconds(pid), 0);
  const primaryCpu = () => preciseCpuSeconds(target.pids[0]);
  // Both sides get the same warm-up, long enough for the JIT to settle: a scraped service runs for
  // days, and a handful of cold scrapes measured the compiler more than the scrape.
  const coldBefore = cpu();
  for (let i = 0; i < WARM_UP_SCRAPES; i++) await get(target.address, '/metrics');
  const coldUs = ((cpu() - coldBefore) / WARM_UP_SCRAPES) * 1e6;
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
  return { cpuUs: cpuPerScrape, ticksUs: ticksPerScrape, primaryUs: primaryPerScrape, coldUs, p50: latencies[Math.floor(latencies.length * 0.5)], p99: latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))], bytes };
}

async function main() {
  const quick = process.argv.includes('--quick');
  const scrapes = Number(process.env.BENCH_SCRAPES) || (quick ? 20 : 100);
  const rounds = quick ? 1 : 3;
  console.log(`cluster scrape: ${SERIES} series per worker, ${scrapes} sequential scrapes per round, ${rounds} round(s), medians; CPU = primary + workers`);
  console.log('| workers | ours µs CPU/scrape (primary) | ours p50 / p99 ms | ours bytes | AggregatorRegistry µs CPU/scrape (primary) | theirs p50 / p99 ms | theirs bytes | CPU ours/theirs | first 30 scrapes µs CPU/scrape ours / theirs |');
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const workers of [1, 2, 4]) {
    const targets = { ours: await startTarget('ours', workers), theirs: await startTarget('prom-client', workers) };
    const results = { ours: [], theirs: [] };
    try {
      for (let round = 0; round < rounds; round++) {
        for (const kind of ['ours', 'theirs']) results[kind].push(await measure(targets[kind], scrapes));
      }
    } finally {
      for (const target of Object.values(targets)) {
        target.child.kill('SIGKILL');
        for (const pid of target.pids) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // already gone
          }
        }
      }
    }
    const m = (kind, key) => median(results[kind].map((r) => r[key]));
    // A cross-check of the schedstat figures against /proc/<pid>/stat's 10 ms ticks (BENCH_TICKS=1).
    if (process.env.BENCH_TICKS) console.log(`(${workers} workers, CPU/scrape by ticks: ours ${m('ours', 'ticksUs').toFixed(0)} µs, theirs ${m('theirs', 'ticksUs').toFixed(0)} µs)`);
    console.log(
      `| ${workers} | ${m('ours', 'cpuUs').toFixed(0)} (${m('ours', 'primaryUs').toFixed(0)}) | ${m('ours', 'p50').toFixed(2)} / ${m('ours', 'p99').toFixed(2)} | ${m('ours', 'bytes')} | ${m('theirs', 'cpuUs').toFixed(0)} (${m('theirs', 'primaryUs').toFixed(0)}) | ${m('theirs', 'p50').toFixed(2)} / ${m('theirs', 'p99').toFixed(2)} | ${m('theirs', 'bytes')} | ${(m('ours', 'cpuUs') / m('theirs', 'cpuUs')).toFixed(2)}× | ${results.ours[0].coldUs.toFixed(0)} / ${results.theirs[0].coldUs.toFixed(0)} |`,
    );
  }
}

if (role === undefined) await main();
else await runTarget();
