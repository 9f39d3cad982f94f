// Mutual TLS cost of the operations server: GET /version and GET /logspec with a client
// certificate on keep-alive connections, and new mTLS connections per second (full handshakes
// and TLS 1.3 ticket resumption), each next to raw node:https serving the same bytes with the
// same certificates in the same run. Load comes from a separate process (bench/lib/load.mjs).
// Needs openssl and the built packages (pnpm build). BENCH_SECONDS sets each run's length.
import './lib/fail.mjs';
import { spawn } from 'node:child_process';
import { createPrivateKey, sign, X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createOperationsSystem } from '@fabric-ops/ops-server';
import { createBenchPki } from './lib/pki.mjs';
import { createAuthorizer, createTlsServer, loadTlsCredentials } from '@fabric-ops/ops-tls-auth';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const ROUNDS = 3;
const KEEPALIVE_CONNECTIONS = 32;
const HANDSHAKE_CONCURRENCY = 16;
const loadScript = fileURLToPath(new URL('./lib/load.mjs', import.meta.url));

const dir = mkdtempSync(join(tmpdir(), 'fabric-ops-bench-tls-'));
const cleanups = [];
const cleanup = async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
  rmSync(dir, { recursive: true, force: true });
};

function get(port, path, client) {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false, ...client }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

function load(port, path, mode, client, connections, seconds = SECONDS) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [loadScript, JSON.stringify({ host: '127.0.0.1', port, path, mode, connections, seconds, tls: client })], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`load generator exited ${code}`))));
  });
}

/** The system's recorded answer for this path; a path it never answered gets a bare 404. */
function sampleFor(samples, req, res) {
  const sample = samples.get(req.url);
  if (!sample) res.writeHead(404).end();
  return sample;
}

function replay(res, sample) {
  res.writeHead(200, sample.headers);
  res.end(sample.body);
}

/** Listens on a loopback port, closed with the other servers at the end; resolves the port. */
async function listenForBench(server) {
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => new Promise((r) => server.close(r)));
  return server.address().port;
}

/** raw node:https answering with the exact status, headers and body the system sent. */
async function rawServer(pki, samples, extra = {}) {
  const server = createHttpsServer({ ...pki.server, requestCert: true, rejectUnauthorized: false, ...extra }, (req, res) => {
    const sample = sampleFor(samples, req, res);
    if (sample) replay(res, sample);
  });
  return listenForBench(server);
}

/** raw node:https plus only this package's layer (options, certificate guard, secure-route
 * check) serving the same bytes: isolates the TLS layer from routing and handlers. */
async function tlsLayerOnly(pki, samples) {
  const credentials = loadTlsCredentials({ certFile: pki.files.certFile, keyFile: pki.files.keyFile, clientRootCAs: [pki.files.caFile] });
  const authorize = createAuthorizer();
  const { server } = createTlsServer({ credentials }, (req, res) => {
    const sample = sampleFor(samples, req, res);
    if (!sample) return;
    const decision = req.url === '/logspec' ? authorize(req, { path: '/logspec' }) : { allow: true };
    if (!decision.allow) {
      res.writeHead(decision.status, { 'Content-Length': '0' }).end();
      return;
    }
    replay(res, sample);
  });
  return listenForBench(server);
}

async function startSystem(pki) {
  const system = createOperationsSystem({
    listenAddress: '127.0.0.1:0',
    version: { version: 'bench', commitSHA: 'bench00' },
    logger: { info() {}, warn() {}, error() {} },
    tls: { enabled: true, certFile: pki.files.certFile, keyFile: pki.files.keyFile, clientAuthRequired: false, clientRootCAs: [pki.files.caFile] },
  });
  await system.start();
  cleanups.push(() => system.stop());
  return Number(system.address().split(':').at(-1));
}

const perSecond = (r) => r.completed / r.seconds;
const fmt = (n) => n.toFixed(0).padStart(8);

/** Load one server and note the server process's CPU time per completed operation: unlike
 * throughput, that figure barely moves when other work shares the machine. */
async function measure(port, path, mode, client, connections, seconds) {
  const cpuBefore = process.cpuUsage();
  const result = await load(port, path, mode, client, connections, seconds);
  const cpu = process.cpuUsage(cpuBefore);
  return { ...result, cpuMicros: cpu.user + cpu.system };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

async function compare(label, oursPort, rawPort, path, mode, client, connections) {
  // Warm both, then alternate short windows (raw first, then ours first, ...) and take
  // medians: the machine is shared, so this evens out drift and bursts of other work.
  await load(rawPort, path, mode, client, 4, 1);
  await load(oursPort, path, mode, client, 4, 1);
  const window = SECONDS / ROUNDS;
  const ours = [];
  const raw = [];
  for (let round = 0; round < ROUNDS; round++) {
    const order =
      round % 2 === 0
        ? [
            [raw, rawPort],
            [ours, oursPort],
          ]
        : [
            [ours, oursPort],
            [raw, rawPort],
          ];
    for (const [into, port] of order) into.push(await measure(port, path, mode, client, connections, window));
  }
  const rate = (runs) => median(runs.map(perSecond));
  const cpu = (runs) => median(runs.map((r) => r.cpuMicros / Math.max(1, r.completed)));
  const result = { ours: rate(ours), raw: rate(raw), oursCpu: cpu(ours), rawCpu: cpu(raw) };
  // Connection failures and every non-200 answer.
  const failures = [...ours, ...raw].reduce((n, r) => n + r.failed + r.completed - (r.statuses['200'] ?? 0), 0);
  const resumedShare =
    mode === 'resume'
      ? `  resumed ${(
          (ours.reduce((n, r) => n + r.resumed, 0) /
            Math.max(
              1,
              ours.reduce((n, r) => n + r.handshakes, 0),
            )) *
          100
        ).toFixed(0)}%`
      : '';
  console.log(
    `${label.padEnd(48)} ours ${fmt(result.ours)}/s  raw ${fmt(result.raw)}/s  ratio ${(result.ours / result.raw).toFixed(2)}` +
      `  | server CPU/op ours ${result.oursCpu.toFixed(0).padStart(5)}µs raw ${result.rawCpu.toFixed(0).padStart(5)}µs` +
      `  efficiency ratio ${(result.rawCpu / result.oursCpu).toFixed(2)}  failures ${failures}${resumedShare}`,
  );
  return result;
}

try {
  const ec = createBenchPki(dir, { name: 'p256' });
  const oursPort = await startSystem(ec);
  const samples = new Map();
  const paths = ['/version', '/logspec'];
  for (const path of paths) {
    const reply = await get(oursPort, path, ec.client);
    if (reply.status === 404) {
      console.log(`${path} is not served by this build; skipped`);
      continue;
    }
    if (reply.status !== 200) throw new Error(`${path} answered ${reply.status}`);
    const headers = { ...reply.headers };
    delete headers.connection;
    delete headers['keep-alive'];
    samples.set(path, { headers, body: reply.body });
  }
  const rawPort = await rawServer(ec, samples);

  console.log(
    `node ${process.version} (OpenSSL ${process.versions.openssl}), ${SECONDS}s per figure in ${ROUNDS} alternating rounds per side, medians;` +
      ' load from a separate process; ECDSA P-256 certificates. "efficiency ratio" = raw CPU per op / ours.',
  );
  console.log('keep-alive requests (client certificate, TLS 1.3):');
  for (const path of samples.keys()) {
    await compare(`  GET ${path}, ${KEEPALIVE_CONNECTIONS} connections`, oursPort, rawPort, path, 'keepalive', ec.client, KEEPALIVE_CONNECTIONS);
  }
  console.log('keep-alive, the TLS layer alone (raw node:https + ops-tls-auth options, guard, secure-route check, no router or handlers):');
  const layerPort = await tlsLayerOnly(ec, samples);
  for (const path of samples.keys()) {
    await compare(`  GET ${path}, ${KEEPALIVE_CONNECTIONS} connections`, layerPort, rawPort, path, 'keepalive', ec.client, KEEPALIVE_CONNECTIONS);
  }
  console.log('new mTLS connections, one GET /version each:');
  const full = await compare(`  full handshakes, ${HANDSHAKE_CONCURRENCY} concurrent`, oursPort, rawPort, '/version', 'connect', ec.client, HANDSHAKE_CONCURRENCY);
  const resumed = await compare(`  resumed with a session ticket, ${HANDSHAKE_CONCURRENCY} concurrent`, oursPort, rawPort, '/version', 'resume', ec.client, HANDSHAKE_CONCURRENCY);
  console.log(`  resumption: ${(full.oursCpu / resumed.oursCpu).toFixed(2)}x less server CPU per connection (ours)`);
  // What the client certificate costs: the same raw server without asking for one, full and resumed.
  const anonymousPort = await rawServer(ec, samples, { requestCert: false });
  for (const mode of ['connect', 'resume']) {
    const runs = [];
    for (let round = 0; round < ROUNDS; round++) runs.push(await measure(anonymousPort, '/version', mode, { ca: ec.client.ca }, HANDSHAKE_CONCURRENCY, SECONDS / ROUNDS));
    const cpu = median(runs.map((r) => r.cpuMicros / Math.max(1, r.completed)));
    const reference = mode === 'connect' ? full.rawCpu : resumed.rawCpu;
    console.log(
      `  raw node:https, no client certificate, ${mode === 'connect' ? 'full   ' : 'resumed'}: ${fmt(median(runs.map(perSecond)))}/s, server CPU/op ${cpu.toFixed(0).padStart(5)}µs` +
        ` (asking for and verifying a client certificate adds ${(reference - cpu).toFixed(0)}µs)`,
    );
  }

  // The key type decides the server's signature cost on every full handshake.
  const rsa = createBenchPki(dir, { name: 'rsa2048', rsa: true });
  const rsaPort = await startSystem(rsa);
  const rsaRawSamples = new Map([['/version', samples.get('/version')]]);
  const rsaRawPort = await rawServer(rsa, rsaRawSamples);
  console.log('new mTLS connections with RSA-2048 certificates instead:');
  const rsaFull = await compare(`  full handshakes, ${HANDSHAKE_CONCURRENCY} concurrent`, rsaPort, rsaRawPort, '/version', 'connect', rsa.client, HANDSHAKE_CONCURRENCY);
  console.log(`  server CPU per full handshake, RSA-2048 : P-256 (ours) = ${(rsaFull.oursCpu / full.oursCpu).toFixed(2)}x`);

  // Where a full handshake's time goes: the per-certificate operations OpenSSL performs,
  // measured through node:crypto (same OpenSSL build as the TLS stack).
  const microseconds = (iterations, fn) => {
    for (let i = 0; i < 100; i++) fn();
    const began = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) fn();
    return Number(process.hrtime.bigint() - began) / iterations / 1_000;
  };
  const ca = new X509Certificate(ec.client.ca);
  const clientCert = new X509Certificate(ec.client.cert);
  const ecKey = createPrivateKey(ec.server.key);
  const rsaKey = createPrivateKey(rsa.server.key);
  console.log(`OpenSSL ${process.versions.openssl} per-operation costs in this process:`);
  console.log(
    `  decode an X.509 certificate (P-256)      ${microseconds(1_000, () => new X509Certificate(ec.client.cert))
      .toFixed(0)
      .padStart(5)}µs`,
  );
  console.log(
    `  decode an X.509 certificate (RSA-2048)   ${microseconds(1_000, () => new X509Certificate(rsa.client.cert))
      .toFixed(0)
      .padStart(5)}µs`,
  );
  console.log(
    `  verify the client certificate's signature ${microseconds(1_000, () => clientCert.verify(ca.publicKey))
      .toFixed(0)
      .padStart(5)}µs`,
  );
  console.log(
    `  ECDSA P-256 signature (server, per full handshake) ${microseconds(1_000, () => sign('sha256', Buffer.from('x'), ecKey))
      .toFixed(0)
      .padStart(5)}µs`,
  );
  console.log(
    `  RSA-2048 signature (server, per full handshake)    ${microseconds(200, () => sign('sha256', Buffer.from('x'), rsaKey))
      .toFixed(0)
      .padStart(5)}µs`,
  );
} finally {
  await cleanup();
}
