// Unauthenticated clients presenting client chains that are cheap to send and expensive to check,
// against the peer bin (loopback). Two attacks, chosen with BENCH_ATTACK (default: both):
//
// constraint (issue #27): an EC leaf with 280 DNS SANs + 10 self-issued CAs sharing one P-256 key,
//   each with 230 excluded DNS name constraints, in a new order per connection. Three shapes:
//   a 5 s burst of 2 connections that hang up as soon as their handshake is done (then nothing),
//   and sustained attacks of 2 and 32 connections that wait for their verdicts; each with
//   clientAuthRequired false and true. Meanwhile a legitimate operator opens a new mTLS connection
//   per request (GET /version), each time with a certificate of its own (a fleet of certificates,
//   so a cached verdict seldom answers), and a keep-alive client keeps asking on one connection.
//   Reported: new-connection success rate and p50/p90 during and after the attack (a failure is
//   a reset or a refusal, e.g. at the 10 s handshake deadline), keep-alive p50/p90, the peer's
//   peak RSS.
// rsa (issues #21, #32 item 5): a leaf + 10 self-issued CAs sharing one RSA key of
//   BENCH_ATTACK_BITS bits (default 8,192, the largest Go 1.26 still checks) with 0, 8 and 32
//   attacking connections; GET /version latency for a keep-alive client and a new connection
//   each time. The key is made once with openssl and kept in $TMPDIR/fabric-ops-rsa<bits>/key.pem.
//
// BENCH_SECONDS (default 5) sets each phase. Needs openssl and the built bin (node scripts/build.mjs).
// Fabric's own server is not run here; compare by hand (see bench/README.md).
import './lib/fail.mjs';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { attackChain } from './lib/attack-chain.mjs';
import { constraintChain } from './lib/constraint-chain.mjs';
import { createBenchPki } from './lib/pki.mjs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const BITS = Number(process.env.BENCH_ATTACK_BITS ?? 8_192);
const ATTACKS = (process.env.BENCH_ATTACK ?? 'constraint,rsa').split(',');
const FLEET = 400;
const bin = fileURLToPath(new URL('../apps/peer/dist/bin.js', import.meta.url));
const attackScript = fileURLToPath(new URL('./lib/attack-load.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'fabric-ops-bench-tls-attack-'));

function startPeer(pki, clientAuthRequired) {
  writeFileSync(
    join(dir, 'core.yaml'),
    [
      'vm:',
      '  endpoint: ""',
      'operations:',
      '  listenAddress: "127.0.0.1:0"',
      '  tls:',
      '    enabled: true',
      `    cert:\n      file: ${JSON.stringify(pki.files.certFile)}`,
      `    key:\n      file: ${JSON.stringify(pki.files.keyFile)}`,
      `    clientAuthRequired: ${clientAuthRequired}`,
      `    clientRootCAs:\n      files: [${JSON.stringify(pki.files.caFile)}]`,
      'metrics:',
      '  provider: prometheus',
      '',
    ].join('\n'),
  );
  const child = spawn(process.execPath, [bin], { env: { ...process.env, FABRIC_CFG_PATH: dir }, stdio: ['ignore', 'pipe', 'ignore'] });
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

/** Client certificates with one key and one CA, each its own serial: distinct chains, so distinct verdicts. */
function clientFleet(pki, count) {
  const p = (f) => join(dir, `fleet-${f}`);
  const openssl = (...args) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  openssl('req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', p('key'), '-out', p('csr'), '-subj', '/O=Org1/CN=fleet');
  writeFileSync(p('ext'), 'extendedKeyUsage=clientAuth\nkeyUsage=critical,digitalSignature\n');
  const key = readFileSync(p('key'), 'utf8');
  return Array.from({ length: count }, (_, i) => {
    openssl(
      'x509',
      '-req',
      '-in',
      p('csr'),
      '-CA',
      pki.files.caFile,
      '-CAkey',
      pki.files.caFile.replace(/ca\.pem$/, 'ca.key'),
      '-set_serial',
      String(1000 + i),
      '-days',
      '2',
      '-out',
      p(`${i}.pem`),
      '-extfile',
      p('ext'),
    );
    return { cert: readFileSync(p(`${i}.pem`), 'utf8'), key, ca: pki.client.ca };
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

async function constraintAttack(pki) {
  const chain = constraintChain(dir);
  const fleet = clientFleet(pki, FLEET);
  let next = 0;
  const fresh = () => fleet[next++ % fleet.length];
  console.log(`\nissue #27: leaf (280 SANs) + 10 self-issued CAs on one P-256 key (230 excluded constraints each), ${SECONDS}s attack, ${SECONDS + 3}s after; node ${process.version}`);
  console.log('legitimate client: a new mTLS connection per GET /version, each with its own certificate; keep-alive client beside it');
  console.log('attack                      clientAuth | during: ok      p50     p90 | after: ok       p50     p90 | keep-alive p50   p90 | peak RSS | attack handshakes | load');
  const shapes = [
    { name: 'burst 2, hang up at once', connections: 2, hangUp: true },
    { name: 'sustained 2, polite', connections: 2, hangUp: false },
    { name: 'sustained 32, polite', connections: 32, hangUp: false },
  ];
  for (const shape of shapes) {
    for (const clientAuthRequired of [false, true]) {
      const peer = await startPeer(pki, clientAuthRequired);
      try {
        const keepAlive = new Agent({ keepAlive: true, maxSockets: 1 });
        await measure(peer.port, fresh, keepAlive, 0.5); // warm-up
        const rss = peakRss(peer.child.pid);
        const attacking = attack(peer.port, chain, shape.connections, SECONDS, shape.hangUp);
        await new Promise((r) => setTimeout(r, 300)); // let the attack start
        const [during, kept] = await Promise.all([measure(peer.port, fresh, false, SECONDS - 0.3), measure(peer.port, fresh, keepAlive, SECONDS - 0.3)]);
        const { handshakes } = await attacking;
        const after = await measure(peer.port, fresh, false, SECONDS + 3);
        const peak = rss();
        keepAlive.destroy();
        console.log(
          `${shape.name.padEnd(28)}${String(clientAuthRequired).padStart(10)} | ${rate(during)} ${ms(at(during.samples, 0.5))} ${ms(at(during.samples, 0.9))} |` +
            ` ${rate(after)} ${ms(at(after.samples, 0.5))} ${ms(at(after.samples, 0.9))} | ${ms(at(kept.samples, 0.5))} ${ms(at(kept.samples, 0.9))} | ${peak.toFixed(0).padStart(5)} MiB |` +
            ` ${String(handshakes).padStart(17)} | ${load()}`,
        );
      } finally {
        peer.child.kill('SIGTERM');
      }
    }
  }
}

async function rsaAttack(pki) {
  const keyFile = join(tmpdir(), `fabric-ops-rsa${BITS}`, 'key.pem');
  console.log(`\nissues #21/#32: leaf + 10 self-issued CAs on one ${BITS}-bit RSA key (${keyFile}; made once, this can take minutes)`);
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
    peer.child.kill('SIGTERM');
  }
}

try {
  const pki = createBenchPki(dir, { name: 'p256' });
  if (ATTACKS.includes('constraint')) await constraintAttack(pki);
  if (ATTACKS.includes('rsa')) await rsaAttack(pki);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
