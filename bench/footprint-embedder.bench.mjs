// The embedder's view: what mounting the operations handlers (metrics, logspec,
// health; examples/frameworks) adds to an Express 5 and a Fastify 5 service. For each framework
// two services run side by side, the same app without and with the handlers under /ops
// (lib/embedder-target.mjs); measured: RSS idle, RSS after BENCH_RSS_REQUESTS keep-alive requests
// to the host's own route (GET /orders), and the server's CPU per request on that route, medians of
// rounds that alternate the two services. Goal: ≤ 5 MiB more, idle and after load, and no
// measurable per-request cost on the host's route (the with-ops median inside the spread of the
// without-ops rounds, or within 5 %).
//   BENCH_SECONDS (5) one round of one service; BENCH_ROUNDS (5); BENCH_RSS_REQUESTS (100000);
//   BENCH_SETTLE_MS (2000) wait before the idle reading.
// Plain HTTP on loopback (the service's own listener; TLS would be the same for both).
import './lib/fail.mjs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { startListening, stopProcess } from './lib/peer.mjs';
import { median, rssMiB } from './lib/proc.mjs';
import { runServerLoad } from './lib/server-load.mjs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 5));
const RSS_REQUESTS = Number(process.env.BENCH_RSS_REQUESTS ?? 100_000);
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 2_000);
const CONNECTIONS = 32;
const RSS_GOAL_MIB = 5;
const CPU_NOISE = 0.05;
const target = fileURLToPath(new URL('./lib/embedder-target.mjs', import.meta.url));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const running = new Set();
process.on('SIGINT', () => Promise.all([...running].map(stopProcess)).finally(() => process.exit(130)));

async function start(framework, mode) {
  const server = await startListening(`${framework} ${mode}`, process.execPath, [target, framework, mode]);
  running.add(server.child);
  return { ...server, mode };
}

const load = (server, extra) => runServerLoad(server.child.pid, { host: '127.0.0.1', port: server.port, path: '/orders', mode: 'keepalive', connections: CONNECTIONS, seconds: SECONDS, ...extra });

async function measureFramework(framework) {
  const servers = [await start(framework, 'without-ops'), await start(framework, 'with-ops')];
  try {
    await sleep(SETTLE_MS);
    const figures = Object.fromEntries(servers.map((s) => [s.mode, { idle: rssMiB(s.child.pid), rounds: [] }]));
    for (const s of servers) {
      const r = await load(s, { seconds: 600, requests: RSS_REQUESTS });
      if (r.completed < RSS_REQUESTS || r.failed > 0) throw new Error(`${framework} ${s.mode}: ${r.completed} of ${RSS_REQUESTS} requests answered, ${r.failed} failed`);
      await sleep(500);
      figures[s.mode].loaded = rssMiB(s.child.pid);
    }
    for (const s of servers) await load(s, { seconds: Math.min(1, SECONDS) }); // warm-up
    for (let round = 0; round < ROUNDS; round++) {
      for (const s of servers) {
        const r = await load(s);
        if (r.failed > 0 || Object.keys(r.statuses).some((status) => status !== '200'))
          throw new Error(`${framework} ${s.mode}: GET /orders answered ${JSON.stringify(r.statuses)}, ${r.failed} failed`);
        figures[s.mode].rounds.push(r.cpuUsPerRequest);
      }
    }
    return figures;
  } finally {
    for (const s of servers) {
      await stopProcess(s.child);
      running.delete(s.child);
    }
  }
}

const f1 = (n) => (Number.isFinite(n) ? n.toFixed(1) : '–');
console.log(`node ${process.version}, load average ${loadavg()[0].toFixed(2)} at the start`);
const rows = [];
for (const framework of ['express', 'fastify']) rows.push([framework, await measureFramework(framework)]);
console.log(
  `\nThe embedder's view: the same ${'Express 5 / Fastify 5'} service without and with the operations handlers under /ops; RSS idle and after ${RSS_REQUESTS} keep-alive GET /orders; server CPU per GET /orders, medians of ${ROUNDS} alternating rounds × ${SECONDS} s (${CONNECTIONS} connections); load average ${loadavg()[0].toFixed(2)} at the end`,
);
console.log('| framework | idle MiB without / with (goal ≤ +5) | after load MiB without / with (goal ≤ +5) | CPU µs/request without / with | with/without (goal: within the noise) |');
console.log('|---|---|---|---|---|');
for (const [framework, figures] of rows) {
  const without = figures['without-ops'];
  const withOps = figures['with-ops'];
  const memory = (a, b) => `${f1(a)} / ${f1(b)}: +${f1(b - a)}, ${b - a <= RSS_GOAL_MIB ? 'met' : `missed by ${f1(b - a - RSS_GOAL_MIB)}`}`;
  const cpuWithout = median(without.rounds);
  const cpuWith = median(withOps.rounds);
  const ratio = cpuWith / cpuWithout;
  const lowest = Math.min(...without.rounds);
  const highest = Math.max(...without.rounds);
  const spread = `without-ops rounds ${f1(lowest)}–${f1(highest)}`;
  const noiseFree = (cpuWith >= lowest && cpuWith <= highest) || Math.abs(ratio - 1) <= CPU_NOISE;
  console.log(
    `| ${framework} | ${memory(without.idle, withOps.idle)} | ${memory(without.loaded, withOps.loaded)} | ${f1(cpuWithout)} / ${f1(cpuWith)} | ${ratio.toFixed(2)}× (${spread}): ${noiseFree ? 'met' : `missed by ${((Math.abs(ratio - 1) - CPU_NOISE) * 100).toFixed(0)} % beyond 5 %`} |`,
  );
}
