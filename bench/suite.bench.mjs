// The operations server under load, next to raw node:https serving the same bytes, in one run.
// Starts the peer bin (TLS with client certificates, prometheus, docker checker on a real podman
// service), the same composition with 1,000 and 10,000 extra series for /metrics, and a raw
// node:https twin for each; drives every endpoint keep-alive and with a new mTLS connection per
// request from a separate load process; prints a table and writes it to bench/results/.
// Needs the built packages (pnpm build), openssl and podman (scripts/test-deps.sh).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createBenchPki } from './lib/pki.mjs';
import { startPodmanService } from './lib/podman.mjs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const KEEPALIVE_CONNECTIONS = 32;
const CONNECT_CONCURRENCY = 16;
const here = (f) => fileURLToPath(new URL(f, import.meta.url));
const peerBin = here('../apps/peer/dist/bin.js');

const dir = mkdtempSync(join(tmpdir(), 'fabric-ops-bench-suite-'));
const children = [];
let runtime;
const cleanup = async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await runtime?.stop();
  rmSync(dir, { recursive: true, force: true });
};
process.on('SIGINT', () => cleanup().finally(() => process.exit(130)));

/** Spawns a node script and resolves its child and the address from its "listening on" line. */
function startNode(args, env = {}) {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      out += chunk;
      const match = /listening on (\S+)/.exec(out);
      if (match) {
        child.stdout.removeAllListeners('data');
        child.stdout.resume();
        const address = match[1];
        resolve({ child, port: Number(address.slice(address.lastIndexOf(':') + 1)) });
      }
    });
    child.once('exit', (code) => reject(new Error(`${args[0]} exited ${code} before listening: ${out}`)));
  });
}

function rssMiB(pid) {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) / 1024;
}

function fetchOnce(port, path, tls) {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false, ...tls, servername: 'localhost' }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, contentType: res.headers['content-type'] ?? '', body: Buffer.concat(chunks).toString('base64') }));
    });
    req.on('error', reject);
    req.end();
  });
}

function runLoad(options) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [here('./lib/load.mjs'), JSON.stringify(options)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c) => (out += c));
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`load generator exited ${code}`))));
  });
}

/** Runs the load while sampling the target's RSS; returns the load result and the peak RSS. */
async function measure(target, path, mode, tls) {
  let peak = rssMiB(target.child.pid);
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(target.child.pid))), 200);
  const result = await runLoad({
    host: '127.0.0.1', port: target.port, path, mode, seconds: SECONDS, tls,
    connections: mode === 'keepalive' ? KEEPALIVE_CONNECTIONS : CONNECT_CONCURRENCY,
  });
  clearInterval(sampler);
  return { ...result, peakRssMiB: peak };
}

try {
  const pki = createBenchPki(dir);
  const tls = pki.client;
  runtime = await startPodmanService(dir);

  const coreYaml = [
    'vm:', `  endpoint: ${runtime.endpoint}`,
    'operations:', '  listenAddress: 127.0.0.1:0', '  tls:', '    enabled: true',
    `    cert:\n      file: ${pki.files.certFile}`, `    key:\n      file: ${pki.files.keyFile}`,
    '    clientAuthRequired: false', `    clientRootCAs:\n      files: [${pki.files.caFile}]`,
    'metrics:', '  provider: prometheus', '',
  ].join('\n');
  writeFileSync(join(dir, 'core.yaml'), coreYaml);

  const targets = [
    { name: 'peer', start: () => startNode([peerBin], { FABRIC_CFG_PATH: dir, FABRIC_LOGGING_SPEC: 'peer.operations=info:warn' }), paths: ['/version', '/logspec', '/healthz', '/metrics'] },
    ...[1_000, 10_000].map((extraSeries) => ({
      name: `+${extraSeries} series`,
      start: () => startNode([here('./lib/ops-target.mjs'), JSON.stringify({ certFile: pki.files.certFile, keyFile: pki.files.keyFile, caFile: pki.files.caFile, runtimeEndpoint: runtime.endpoint, extraSeries })]),
      paths: ['/metrics'],
    })),
  ];

  const rows = [];
  for (const target of targets) {
    const ours = await target.start();
    await new Promise((r) => setTimeout(r, 500));
    const idleRssMiB = rssMiB(ours.child.pid);
    const responses = {};
    for (const path of target.paths) responses[path] = await fetchOnce(ours.port, path, tls);
    const responsesFile = join(dir, 'responses.json');
    writeFileSync(responsesFile, JSON.stringify(responses));
    const raw = await startNode([here('./lib/raw-target.mjs'), JSON.stringify({ certFile: pki.files.certFile, keyFile: pki.files.keyFile, caFile: pki.files.caFile, responsesFile })]);
    for (const path of target.paths) {
      for (const mode of ['keepalive', 'connect']) {
        const o = await measure(ours, path, mode, tls);
        const r = await measure(raw, path, mode, tls);
        const label = target.name === 'peer' ? path : `${path} (${target.name})`;
        rows.push({
          endpoint: label, mode, bytes: Buffer.from(responses[path].body, 'base64').length,
          ours: { rps: o.rps, p50ms: o.p50ms, p99ms: o.p99ms, failed: o.failed, statuses: o.statuses, idleRssMiB, peakRssMiB: o.peakRssMiB },
          raw: { rps: r.rps, p50ms: r.p50ms, p99ms: r.p99ms, failed: r.failed, statuses: r.statuses },
          ratio: o.rps / r.rps,
        });
        process.stdout.write(`  measured ${label} ${mode}: ${Math.round(o.rps)} vs ${Math.round(r.rps)} req/s\n`);
      }
    }
    ours.child.kill('SIGTERM');
    raw.child.kill('SIGTERM');
  }

  const fmt = (n, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : '-');
  // Every non-200 answer and every failed connection is shown: a capped or failing endpoint must not pass as throughput.
  const errors = (side) => side.failed + Object.entries(side.statuses).reduce((n, [status, count]) => (status === '200' ? n : n + count), 0);
  const header = '| endpoint | mode | bytes | ours req/s | ours p50 ms | ours p99 ms | raw req/s | raw p50 ms | raw p99 ms | ours/raw | ours errors | RSS idle→peak MiB |';
  const lines = [header, '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|'];
  for (const row of rows) {
    lines.push(`| ${row.endpoint} | ${row.mode === 'keepalive' ? 'keep-alive' : 'new mTLS conn'} | ${row.bytes} | ${fmt(row.ours.rps)} | ${fmt(row.ours.p50ms, 2)} | ${fmt(row.ours.p99ms, 2)} | ${fmt(row.raw.rps)} | ${fmt(row.raw.p50ms, 2)} | ${fmt(row.raw.p99ms, 2)} | ${fmt(row.ratio, 2)} | ${errors(row.ours)} | ${fmt(row.ours.idleRssMiB)}→${fmt(row.ours.peakRssMiB)} |`);
  }
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, load average ${loadavg()[0]?.toFixed(1)}`;
  process.stdout.write(`\nOperations server vs raw node:https, same bytes, TLS with client certificate (${SECONDS} s per cell; ${KEEPALIVE_CONNECTIONS} keep-alive connections or ${CONNECT_CONCURRENCY} concurrent new connections)\nMachine: ${machine}\n\n${lines.join('\n')}\n`);
  const results = here('./results/');
  mkdirSync(results, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const json = JSON.stringify({ date: new Date().toISOString(), machine, seconds: SECONDS, rows }, null, 2);
  writeFileSync(join(results, `suite-${stamp}.json`), json);
  writeFileSync(join(results, 'latest.json'), json);
  process.stdout.write(`\nwritten: bench/results/suite-${stamp}.json and bench/results/latest.json\n`);
} finally {
  await cleanup();
}
