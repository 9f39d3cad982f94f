// What a long refused certificate list costs everyone else: a keep-alive client's GET /version
// latency (p50/p99) while ATTACKERS other clients keep handshaking (one connection each, again and
// again, waiting for the server to close it) with a leaf and 201 small self-signed CAs (~84 KB,
// lib/tiny-chain.mjs) that no client CA issues. Targets, one after the other, same certificates:
//   - the peer bin (clientAuthRequired false, the bench CA as its client root CA),
//   - raw node:https with requestCert and the same CA file (reads nothing from the client's list),
//   - Fabric's own operations server when FABRIC_OPS_BENCH_FABRIC names it (lib/fabric.mjs).
// Each target: BENCH_SECONDS (default 5) without attackers, then as long with them; the
// attackers' handshakes a second are printed too (a server that refuses inside the handshake
// completes fewer of them from the attackers' side, which is not a cost). Load average printed.
// Run: node bench/chain-latency.bench.mjs (after node scripts/build.mjs), or node bench/run.mjs chain-latency.
//   BENCH_SECONDS (5), BENCH_ATTACKERS (2), BENCH_CHAIN (202) certificates in the attack list
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
  const rows = [];
  for (const [name, start] of targets) rows.push(await measure(name, start, pki, chain));
  const raw = rows.find((row) => row.name === 'raw node:https');
  console.log('| server | quiet p50 / p99 (ms) | attacked p50 / p99 (ms) | attacked p50 ÷ raw node | attack handshakes/s | load |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const { name, quiet, busy, load } of rows) {
    console.log(
      `| ${name} | ${quiet.p50.toFixed(2)} / ${quiet.p99.toFixed(2)} | ${busy.p50.toFixed(2)} / ${busy.p99.toFixed(2)} | ${(busy.p50 / raw.busy.p50).toFixed(2)} | ${busy.attackPerSecond.toFixed(1)} | ${load.toFixed(2)} |`,
    );
  }
  if (fabric.binary === undefined) console.log(`| Fabric | ${fabric.missing} | | | | |`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
