// Unauthenticated clients presenting client chains that are cheap to send and expensive to check,
// against the peer bin (loopback). Two attacks, chosen with BENCH_ATTACK (default: both):
//
// constraint: an EC leaf with 280 DNS SANs + 10 self-issued CAs sharing one P-256 key,
//   each with 230 excluded DNS name constraints, in a new order per connection. Three shapes:
//   a 5 s burst of 2 connections that hang up as soon as their handshake is done (then nothing),
//   and sustained attacks of 2 and 32 connections that wait for their verdicts; each with
//   clientAuthRequired false and true. Meanwhile a legitimate operator opens a new mTLS connection
//   per request (GET /version), each time with a certificate of its own (a fleet of certificates,
//   so a cached verdict seldom answers), and a keep-alive client keeps asking on one connection.
//   Reported: new-connection success rate and p50/p90 during and after the attack (a failure is
//   a reset or a refusal, e.g. at the 10 s handshake deadline), keep-alive p50/p90, the peer's
//   peak RSS.
// rsa: a leaf + 10 self-issued CAs sharing one RSA key of
//   BENCH_ATTACK_BITS bits (default 8,192, the largest Go 1.26 still checks) with 0, 8 and 32
//   attacking connections; GET /version latency for a keep-alive client and a new connection
//   each time. The key is made once with openssl and kept in $TMPDIR/fabric-ops-rsa<bits>/key.pem.
//
// With FABRIC_OPS_BENCH_FABRIC (lib/fabric.mjs) the constraint attack also runs, in the same run and
// the same way, against Fabric's own operations server (PROBE_TLS_CLIENT_REQUIRED for
// clientAuthRequired), and the table puts the two side by side; without it Fabric's columns say
// "not given".
// BENCH_SECONDS (default 5) sets each phase. Needs openssl and the built bin (node scripts/build.mjs).
import './lib/fail.mjs';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { attackChain } from './lib/attack-chain.mjs';
import { constraintChain } from './lib/constraint-chain.mjs';
import { fabricReference, fabricTlsEnv, startFabric } from './lib/fabric.mjs';
import { startPeer as startPeerBin, stopProcess, writePeerConfig } from './lib/peer.mjs';
import { createBenchPki, issueClientFleet } from './lib/pki.mjs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const BITS = Number(process.env.BENCH_ATTACK_BITS ?? 8_192);
const ATTACKS = (process.env.BENCH_ATTACK ?? 'constraint,rsa').split(',');
const FLEET = 400;
const attackScript = fileURLToPath(new URL('./lib/attack-load.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'fabric-ops-bench-tls-attack-'));

const fabric = fabricReference();
const running = new Set();

async function startPeer(pki, clientAuthRequired) {
  const peer = await startPeerBin(writePeerConfig(join(dir, `peer-${clientAuthRequired}`), { tls: pki.files, clientAuthRequired }));
  running.add(peer.child);
  return peer;
}

async function startFabricServer(pki, clientAuthRequired) {
  const server = await startFabric(fabric.binary, fabricTlsEnv(pki.files, clientAuthRequired));
  running.add(server.child);
  return server;
}

async function stop(server) {
  await stopProcess(server.child);
  running.delete(server.child);
}

function get(port, client, agent) {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/version', agent, ...client }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve(Number(process.hrtime.bigint() - started) / 1e6) : reject(new Error(`status ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Sequential requests for `seconds`: latencies of those that succeeded, sorted, and how many were tried. */
async function measure(port, clientFor, agent, seconds) {
  const until = Date.now() + seconds * 1000;
  const samples = [];
  let tried = 0;
  while (Date.now() < until) {
    tried += 1;
    try {
      samples.push(await get(port, clientFor(), agent));
    } catch {
      // counted as a failure
    }
  }
  return { samples: samples.sort((a, b) => a - b), tried };
}
const at = (sorted, q) => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]);
const ms = (value) => (Number.isNaN(value) ? '      -' : `${value.toFixed(value < 100 ? 1 : 0).padStart(7)}`);
const rate = ({ samples, tried }) => `${((100 * samples.length) / Math.max(1, tried)).toFixed(0).padStart(3)}% of ${String(tried).padStart(3)}`;
const load = () => loadavg()[0].toFixed(1);

function attack(port, chain, connections, seconds, hangUp) {
  const file = join(dir, `attack-${connections}.json`);
  writeFileSync(file, JSON.stringify({ port, connections, seconds, key: chain.key, leaf: chain.leaf, cas: chain.cas, hangUp }));
  const child = spawn(process.execPath, [attackScript, file], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  return new Promise((resolve) => child.once('close', () => resolve(out === '' ? { handshakes: 0 } : JSON.parse(out))));
}

function peakRss(pid) {
  let peak = 0;
  const sample = () => {
    try {
      const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (match) peak = Math.max(peak, Number(match[1]) / 1024);
    } catch {
      // the process is gone
    }
  };
  const timer = setInterval(sample, 200);
  return () => {
    clearInterval(timer);
    sample();
    return peak;
  };
}

/** One attack shape against one server: the legitimate clients' view during and after it. */
async function underAttack(server, chain, shape, fresh, regular) {
  const keepAlive = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    // The keep-alive client keeps one certificate: the agent pools connections per TLS options, so a
    // new certificate per request would open a new connection each time.
    const kept0 = await measure(server.port, () => regular, keepAlive, 0.5); // warm-up, and its connection opened
    if (kept0.samples.length === 0) throw new Error(`the keep-alive client got no answer before the attack (port ${server.port})`);
    const rss = peakRss(server.child.pid);
    const attacking = attack(server.port, chain, shape.connections, SECONDS, shape.hangUp);
    await new Promise((r) => setTimeout(r, 300)); // let the attack start
    const [during, kept] = await Promise.all([measure(server.port, fresh, false, SECONDS - 0.3), measure(server.port, () => regular, keepAlive, SECONDS - 0.3)]);
    const { handshakes, attempts } = await attacking;
    const after = await measure(server.port, fresh, false, SECONDS + 3);
    return { during, after, kept, peak: rss(), handshakes, attempts, load: load() };
  } finally {
    keepAlive.destroy();
  }
}

async function constraintAttack(pki) {
  const chain = constraintChain(dir);
  const fleet = issueClientFleet(pki, FLEET);
  let next = 0;
  const fresh = () => fleet[1 + (next++ % (fleet.length - 1))]; // fleet[0] is the keep-alive client's
  console.log(
    `\nconstraint attack: leaf (280 SANs) + 10 self-issued CAs on one P-256 key (230 excluded constraints each), ${SECONDS}s attack, ${SECONDS + 3}s after; node ${process.version}; Fabric: ${fabric.binary ?? fabric.missing}`,
  );
  console.log('legitimate client: a new mTLS connection per GET /version, each with its own certificate; keep-alive client beside it');
  const shapes = [
    { name: 'burst 2, hang up at once', connections: 2, hangUp: true },
    { name: 'sustained 2, polite', connections: 2, hangUp: false },
    { name: 'sustained 32, polite', connections: 32, hangUp: false },
  ];
  const rows = [];
  for (const shape of shapes) {
    for (const clientAuthRequired of [false, true]) {
      const row = { shape, clientAuthRequired };
      const peer = await startPeer(pki, clientAuthRequired);
      try {
        row.peer = await underAttack(peer, chain, shape, fresh, fleet[0]);
      } finally {
        await stop(peer);
      }
      if (fabric.binary) {
        const server = await startFabricServer(pki, clientAuthRequired);
        try {
          row.fabric = await underAttack(server, chain, shape, fresh, fleet[0]);
        } finally {
          await stop(server);
        }
      }
      rows.push(row);
      process.stdout.write(`  done: ${shape.name}, clientAuthRequired ${clientAuthRequired} (load ${load()})\n`);
    }
  }
  const pct = ({ samples, tried }) => `${((100 * samples.length) / Math.max(1, tried)).toFixed(0)} % of ${tried}`;
  const p = (m) => `${ms(at(m.samples, 0.5)).trim()} / ${ms(at(m.samples, 0.9)).trim()}`;
  const side = (r) =>
    r === undefined ? Array(7).fill(fabric.missing) : [pct(r.during), p(r.during), pct(r.after), p(r.after), p(r.kept), `${r.peak.toFixed(0)} MiB`, `${r.attempts ?? '?'} (${r.handshakes})`];
  const columns = ['new conn. ok during', 'p50 / p90 ms during', 'ok after', 'p50 / p90 ms after', 'keep-alive p50 / p90 ms', 'peak RSS', 'attack connections (handshakes completed)'];
  console.log(`\n| attack | clientAuthRequired | ${columns.map((c) => `peer: ${c}`).join(' | ')} | ${columns.map((c) => `Fabric: ${c}`).join(' | ')} | load avg |`);
  console.log(`|---|---|${columns.map(() => '---').join('|')}|${columns.map(() => '---').join('|')}|---|`);
  for (const row of rows) console.log(`| ${row.shape.name} | ${row.clientAuthRequired} | ${side(row.peer).join(' | ')} | ${side(row.fabric).join(' | ')} | ${row.peer.load} |`);
}

async function rsaAttack(pki) {
  const keyFile = join(tmpdir(), `fabric-ops-rsa${BITS}`, 'key.pem');
  console.log(`\na long self-issued chain: leaf + 10 self-issued CAs on one ${BITS}-bit RSA key (${keyFile}; made once, this can take minutes)`);
  const chain = attackChain(dir, { keyFile, bits: BITS });
  const peer = await startPeer(pki, false);
  try {
    const keepAlive = new Agent({ keepAlive: true, maxSockets: 1 });
    await measure(peer.port, () => pki.client, keepAlive, 1); // warm-up
    console.log(`node ${process.version}, peer bin, ${SECONDS}s per phase; GET /version with a valid client certificate:`);
    console.log('                              keep-alive median    p90   |  new connection median    p90   | attacking handshakes | load');
    for (const connections of [0, 8, 32]) {
      const attacking = connections === 0 ? Promise.resolve({ handshakes: 0 }) : attack(peer.port, chain, connections, SECONDS * 2 + 1, false);
      if (connections > 0) await new Promise((r) => setTimeout(r, 500)); // let the attack start
      const kept = await measure(peer.port, () => pki.client, keepAlive, SECONDS);
      const fresh = await measure(peer.port, () => pki.client, false, SECONDS);
      const { handshakes } = await attacking;
      console.log(
        `  ${String(connections).padStart(2)} attacking connections  ${ms(at(kept.samples, 0.5))} ms ${ms(at(kept.samples, 0.9))} ms | ${ms(at(fresh.samples, 0.5))} ms ${ms(at(fresh.samples, 0.9))} ms |` +
          ` ${String(handshakes).padStart(20)} | ${load()} (${kept.samples.length} + ${fresh.samples.length} requests, ${fresh.tried - fresh.samples.length} failed)`,
      );
    }
    keepAlive.destroy();
  } finally {
    await stop(peer);
  }
}

try {
  const pki = createBenchPki(dir, { name: 'p256' });
  if (ATTACKS.includes('constraint')) await constraintAttack(pki);
  if (ATTACKS.includes('rsa')) await rsaAttack(pki);
} finally {
  await Promise.all([...running].map(stopProcess));
  rmSync(dir, { recursive: true, force: true });
}
