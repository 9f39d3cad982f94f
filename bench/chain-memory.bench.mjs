// What reading client certificate lists leaves in a server's memory: RSS of each target idle,
// after ORDINARY new mutual-TLS connections from a client that sends its leaf and its CA (what a
// Node or curl client with `ca` set sends), and after LONG more from one that sends a leaf and
// 160 small self-signed CAs (~64 KB, lib/tiny-chain.mjs) that no client CA issues. Targets, one
// after the other, same certificates:
//   - the peer bin (clientAuthRequired false, the bench CA as its client root CA),
//   - raw node:https with requestCert and the same CA file (reads nothing from the client's list),
//   - Fabric's own operations server when FABRIC_OPS_BENCH_FABRIC names it (lib/fabric.mjs).
// Each connection: handshake, one GET /version, wait for the close. RSS is read from /proc after
// SETTLE_MS of quiet, after each half of each kind (no collection can be forced from outside: growth
// that goes on in the second half is what stays per handshake).
// Run: node bench/chain-memory.bench.mjs (after node scripts/build.mjs), or node bench/run.mjs chain-memory.
//   BENCH_ORDINARY (10000), BENCH_LONG (1000), BENCH_CHAIN (161) certificates in the long list,
//   BENCH_CONNECTIONS (8) client loops, BENCH_SETTLE_MS (3000), BENCH_PEER_NODE_OPTIONS (none)
import './lib/fail.mjs';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chainTargets, runTlsClients } from './lib/chain-bench.mjs';
import { fabricReference } from './lib/fabric.mjs';
import { stopProcess } from './lib/peer.mjs';
import { createBenchPki } from './lib/pki.mjs';
import { rssMiB } from './lib/proc.mjs';
import { tinyChain } from './lib/tiny-chain.mjs';

const ORDINARY = Number(process.env.BENCH_ORDINARY ?? 10_000);
const LONG = Number(process.env.BENCH_LONG ?? 1_000);
const CHAIN = Number(process.env.BENCH_CHAIN ?? 161);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 3_000);
// Node options for the peer only (in NODE_OPTIONS), e.g. `--max-old-space-size=64`: a small heap
// collects often, so what still grows then is not garbage waiting for a collection.
const PEER_NODE_OPTIONS = process.env.BENCH_PEER_NODE_OPTIONS;
const dir = mkdtempSync(join(tmpdir(), 'fabric-ops-bench-chain-memory-'));
const fabric = fabricReference();

/** `count` new connections from CONNECTIONS client loops in a process of their own; their `{ made, failed }`. */
async function handshakes(port, credentials, count) {
  if (count === 0) return { made: 0, answered: 0, failed: 0 };
  return runTlsClients({ port, connections: CONNECTIONS, count, ...credentials });
}

const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS));

async function measure(name, start, ordinaryClient, longClient) {
  const server = await start();
  try {
    await handshakes(server.port, ordinaryClient, 50); // warm-up: modules, first verdicts, V8's first growth
    await settle();
    const readings = [rssMiB(server.child.pid)];
    const made = [];
    // Each kind in two halves: growth that goes on in the second half is kept per handshake;
    // growth that stops is the allocator and V8 sizing themselves to the load.
    for (const [client, count] of [
      [ordinaryClient, Math.ceil(ORDINARY / 2)],
      [ordinaryClient, Math.floor(ORDINARY / 2)],
      [longClient, Math.ceil(LONG / 2)],
      [longClient, Math.floor(LONG / 2)],
    ]) {
      made.push(await handshakes(server.port, client, count));
      await settle();
      readings.push(rssMiB(server.child.pid));
    }
    return { name, readings, made, load: loadavg()[0] };
  } finally {
    await stopProcess(server.child);
  }
}

try {
  const pki = createBenchPki(dir);
  const chain = tinyChain(CHAIN, 400);
  const ordinaryClient = { cert: pki.client.cert, key: pki.client.key, ca: pki.client.ca };
  const longClient = { cert: chain.cert, key: chain.key };
  console.log(
    `node ${process.version}; ${ORDINARY} ordinary handshakes (leaf + CA), then ${LONG} with ${CHAIN} certificates (${(chain.bytes / 1000).toFixed(1)} KB of DER, refused); ${CONNECTIONS} client loops; load average ${loadavg()[0].toFixed(2)} at the start`,
  );
  const targets = chainTargets(dir, pki, fabric, { env: PEER_NODE_OPTIONS === undefined ? {} : { NODE_OPTIONS: PEER_NODE_OPTIONS } });
  const rows = [];
  for (const [name, start] of targets) rows.push(await measure(name, start, ordinaryClient, longClient));
  const f = (n) => n.toFixed(1);
  const growth = (r, i) => `${r.readings[i + 1] - r.readings[i] >= 0 ? '+' : ''}${f(r.readings[i + 1] - r.readings[i])}`;
  console.log(
    '\n| target | idle RSS MiB | ordinary, 1st half · 2nd half (growth) | long, 1st half · 2nd half (growth) | after all | answered: ordinary · long | ended by an error: ordinary · long | load avg |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const errors = (from, to) => r.made.slice(from, to).reduce((n, m) => n + m.failed, 0);
    const answered = (from, to) => r.made.slice(from, to).reduce((n, m) => n + m.answered, 0);
    console.log(
      `| ${r.name} | ${f(r.readings[0])} | ${growth(r, 0)} · ${growth(r, 1)} | ${growth(r, 2)} · ${growth(r, 3)} | ${f(r.readings[4])} | ${answered(0, 2)} · ${answered(2, 4)} | ${errors(0, 2)} · ${errors(2, 4)} | ${r.load.toFixed(2)} |`,
    );
  }
  if (fabric.binary === undefined) console.log(`Fabric: ${fabric.missing}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
