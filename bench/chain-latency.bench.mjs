// What a long refused certificate list costs everyone else: a keep-alive client's GET /version
// latency (p50/p99) while ATTACKERS other clients keep handshaking (one connection each, again and
// again, waiting for the server to close it) with a leaf and 201 small self-signed CAs (~84 KB,
// lib/tiny-chain.mjs) that no client CA issues. Targets, one after the other, same certificates:
//   - the peer bin (clientAuthRequired false, the bench CA as its client root CA),
//   - raw node:https with requestCert and the same CA file (reads nothing from the client's list),
//   - Fabric's own operations server when FABRIC_OPS_BENCH_FABRIC names it (lib/fabric.mjs).
// Each target: BENCH_SECONDS (default 5) without attackers, then as long with them; the
// attackers' handshakes a second are printed too (a server that refuses inside the handshake
// completes fewer of them from the attackers' side, which is not a cost). BENCH_ROUNDS rounds
// (default 3) alternate the order (peer, raw, Fabric, then Fabric, raw, peer, …); the table gives
// each figure's median over rounds, and the peer ÷ raw ratio of each round (its two runs back to
// back) as a median and range: an attacked p50 moves with how the keep-alive request falls
// between the attackers' handshakes, for raw as much as for the peer. Load average printed.
// Run: node bench/chain-latency.bench.mjs (after node scripts/build.mjs), or node bench/run.mjs chain-latency.
//   BENCH_SECONDS (5), BENCH_ROUNDS (3), BENCH_ATTACKERS (2), BENCH_CHAIN (202) certificates in the attack list
import './lib/fail.mjs';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chainTargets, runTlsClients } from './lib/chain-bench.mjs';
import { fabricReference } from './lib/fabric.mjs';
import { stopProcess } from './lib/peer.mjs';
import { createBenchPki } from './lib/pki.mjs';
import { tinyChain } from './lib/tiny-chain.mjs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ATTACKERS = Number(process.env.BENCH_ATTACKERS ?? 2);
const CHAIN = Number(process.env.BENCH_CHAIN ?? 202);
const dir = mkdtempSync(join(tmpdir(), 'fabric-ops-bench-chain-latency-'));
const fabric = fabricReference();

function percentile(sorted, q) {
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/** Sequential keep-alive GET /version for `seconds`: p50/p99 in ms and the count. */
async function keepAlive(port, pki, seconds) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1, ca: pki.client.ca, cert: pki.client.cert, key: pki.client.key });
  const times = [];
  const until = Date.now() + seconds * 1000;
  try {
    while (Date.now() < until) {
      const started = process.hrtime.bigint();
      await new Promise((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path: '/version', agent, servername: 'localhost' }, (res) => {
          res.resume();
          res.once('end', resolve);
        });
        req.setTimeout(10_000, () => req.destroy(new Error('no answer within 10 s')));
        req.once('error', reject);
        req.end();
      });
      times.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
  } finally {
    agent.destroy();
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 0.5), p99: percentile(times, 0.99), n: times.length };
}

async function attacked(port, pki, chain) {
  // The attackers: one process, each of ATTACKERS loops handshaking again and again with the list.
  const attackers = runTlsClients({ port, connections: ATTACKERS, seconds: SECONDS + 0.5, cert: chain.cert, key: chain.key });
  await new Promise((resolve) => setTimeout(resolve, 300));
  const latency = await keepAlive(port, pki, SECONDS);
  const { made } = await attackers;
  return { ...latency, attackPerSecond: made / (SECONDS + 0.5) };
}

async function measure(name, start, pki, chain) {
  const server = await start();
  try {
    await keepAlive(server.port, pki, 1); // warm-up, not measured
    const quiet = await keepAlive(server.port, pki, SECONDS);
    const load = loadavg()[0];
    const busy = await attacked(server.port, pki, chain);
    return { name, quiet, busy, load };
  } finally {
    await stopProcess(server.child);
  }
}

try {
  const pki = createBenchPki(dir);
  const chain = tinyChain(CHAIN, 400);
  console.log(
    `node ${process.version}; attack list: ${CHAIN} certificates, ${(chain.bytes / 1000).toFixed(1)} KB of DER; ${ATTACKERS} attackers; ${SECONDS} s per phase; load average ${loadavg()[0].toFixed(2)} at the start`,
  );
  const targets = chainTargets(dir, pki, fabric);
  const runs = new Map(targets.map(([name]) => [name, []]));
  const ratios = [];
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? targets : [...targets].reverse();
    const byName = new Map();
    for (const [name, start] of order) byName.set(name, await measure(name, start, pki, chain));
    for (const [name, row] of byName) runs.get(name).push(row);
    ratios.push(byName.get('peer').busy.p50 / byName.get('raw node:https').busy.p50);
    console.log(`round ${round + 1}: ${order.map(([name]) => `${name} ${byName.get(name).busy.p50.toFixed(2)} ms`).join(', ')}; peer ÷ raw ${ratios.at(-1).toFixed(2)}`);
  }
  const median = (values) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted.length % 2 === 1 ? sorted[(sorted.length - 1) / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
  };
  const rawBusy = median(runs.get('raw node:https').map((row) => row.busy.p50));
  console.log(`\nmedians over ${ROUNDS} round(s); peer ÷ raw by round: median ${median(ratios).toFixed(2)}, range ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`);
  console.log('| server | quiet p50 / p99 (ms) | attacked p50 / p99 (ms) | attacked p50 ÷ raw node | attack handshakes/s | load |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const [name, rows] of runs) {
    const m = (pick) => median(rows.map(pick));
    const busyP50 = m((row) => row.busy.p50);
    console.log(
      `| ${name} | ${m((row) => row.quiet.p50).toFixed(2)} / ${m((row) => row.quiet.p99).toFixed(2)} | ${busyP50.toFixed(2)} / ${m((row) => row.busy.p99).toFixed(2)} | ${(busyP50 / rawBusy).toFixed(2)} | ${m((row) => row.busy.attackPerSecond).toFixed(1)} | ${m((row) => row.load).toFixed(2)} |`,
    );
  }
  if (fabric.binary === undefined) console.log(`| Fabric | ${fabric.missing} | | | | |`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
