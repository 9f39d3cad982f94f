// GET /version latency on the peer bin while connections keep presenting an expensive client
// chain (issue #21): a leaf + 10 self-issued CA certificates sharing one 16,384-bit RSA key and
// one name, each attacking handshake with the CAs in a new order (no cached verdict helps).
// Measured with no attack, 8 and 32 attacking connections: a keep-alive client (the event loop's
// share) and a client opening a new connection per request (the handshake's share, verdict
// included). Loopback only; each phase lasts BENCH_SECONDS (default 5). The key is made once
// with openssl (minutes) and kept in $TMPDIR/fabric-ops-rsa16384/key.pem; BENCH_ATTACK_BITS
// changes its size (another file). Needs openssl and the built bin (pnpm build).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { attackChain } from './lib/attack-chain.mjs';
import { createBenchPki } from './lib/pki.mjs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const BITS = Number(process.env.BENCH_ATTACK_BITS ?? 16_384);
const bin = fileURLToPath(new URL('../apps/peer/dist/bin.js', import.meta.url));
const attackScript = fileURLToPath(new URL('./lib/attack-load.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'fabric-ops-bench-tls-attack-'));
const keyFile = join(tmpdir(), BITS === 16_384 ? 'fabric-ops-rsa16384' : `fabric-ops-rsa${BITS}`, 'key.pem');

function startPeer(pki) {
  writeFileSync(join(dir, 'core.yaml'), [
    'vm:', '  endpoint: ""', 'operations:', '  listenAddress: "127.0.0.1:0"', '  tls:', '    enabled: true',
    `    cert:\n      file: ${JSON.stringify(pki.files.certFile)}`, `    key:\n      file: ${JSON.stringify(pki.files.keyFile)}`,
    '    clientAuthRequired: false', `    clientRootCAs:\n      files: [${JSON.stringify(pki.files.caFile)}]`, 'metrics:', '  provider: prometheus', '',
  ].join('\n'));
  const child = spawn(process.execPath, [bin], { env: { ...process.env, FABRIC_CFG_PATH: dir }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no listening line: ${out}`)), 60_000);
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /listening on 127\.0\.0\.1:(\d+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        child.stdout.resume();
        resolve({ child, port: Number(match[1]) });
      }
    });
    child.once('exit', (code) => reject(new Error(`peer exited ${code}: ${out}`)));
  });
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

async function latencies(port, client, agent, seconds) {
  const until = Date.now() + seconds * 1000;
  const samples = [];
  while (Date.now() < until) samples.push(await get(port, client, agent));
  return samples.sort((a, b) => a - b);
}
const at = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const fmt = (ms) => `${ms.toFixed(1).padStart(7)} ms`;

function attack(port, chain, connections, seconds) {
  const file = join(dir, `attack-${connections}.json`);
  writeFileSync(file, JSON.stringify({ port, connections, seconds, key: chain.key, leaf: chain.leaf, cas: chain.cas }));
  const child = spawn(process.execPath, [attackScript, file], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  return new Promise((resolve) => child.once('close', () => resolve(out === '' ? { handshakes: 0 } : JSON.parse(out))));
}

let peer;
try {
  const pki = createBenchPki(dir, { name: 'p256' });
  console.log(`attack chain: leaf + 10 self-issued CAs on one ${BITS}-bit RSA key (${keyFile}; made once, this can take minutes)`);
  const chain = attackChain(dir, { keyFile, bits: BITS });
  peer = await startPeer(pki);
  const keepAlive = new Agent({ keepAlive: true, maxSockets: 1 });
  await latencies(peer.port, pki.client, keepAlive, 1); // warm-up
  console.log(`node ${process.version}, peer bin, ${SECONDS}s per phase; GET /version with a valid client certificate:`);
  console.log('                              keep-alive median    p90   |  new connection median    p90   | attacking handshakes');
  for (const connections of [0, 8, 32]) {
    const attacking = connections === 0 ? Promise.resolve({ handshakes: 0 }) : attack(peer.port, chain, connections, SECONDS * 2 + 1);
    if (connections > 0) await new Promise((r) => setTimeout(r, 500)); // let the attack start
    const kept = await latencies(peer.port, pki.client, keepAlive, SECONDS);
    const fresh = await latencies(peer.port, pki.client, false, SECONDS);
    const { handshakes } = await attacking;
    console.log(`  ${String(connections).padStart(2)} attacking connections  ${fmt(at(kept, 0.5))} ${fmt(at(kept, 0.9))} | ${fmt(at(fresh, 0.5))} ${fmt(at(fresh, 0.9))} | ${handshakes}` +
      ` (${kept.length} + ${fresh.length} requests)`);
  }
  keepAlive.destroy();
} finally {
  peer?.child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
