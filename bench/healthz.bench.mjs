// /healthz with the docker checker against a real podman Docker API service, under 64
// concurrent connections (wrk), next to raw node:http serving the same bytes in the same run.
// Prints requests/s, runtime pings/s (single-flight keeps them far below requests/s), and ratios.
// Needs podman and wrk (scripts/test-deps.sh installs both) and the built packages (pnpm build).
import './lib/fail.mjs';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { connect, createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dockerChecker } from '@fabric-ops/ops-health';
import { createOperationsSystem } from '@fabric-ops/ops-server';
import { tieSocketPair } from '../tools/test-kit/src/podman-shared.mjs';
import { startPodmanService } from './lib/podman.mjs';

const CONNECTIONS = 64;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

for (const tool of ['podman', 'wrk']) {
  if (spawnSync(tool, ['--version']).error) {
    console.error(`${tool} is not installed: run scripts/test-deps.sh first`);
    process.exit(1);
  }
}

const dir = mkdtempSync(join(tmpdir(), 'fabric-ops-bench-healthz-'));
const runtimeSocket = join(dir, 'docker.sock');
const proxySocket = join(dir, 'proxy.sock');
const cleanups = [];
const cleanup = async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
  rmSync(dir, { recursive: true, force: true });
};
process.on('SIGINT', () => cleanup().finally(() => process.exit(130)));

async function startPodman() {
  const service = await startPodmanService(dir);
  cleanups.push(() => service.stop());
  return service;
}

/** Forwards to podman and counts the GET /_ping requests it carries. */
async function startCountingProxy() {
  let pings = 0;
  const sockets = new Set();
  const server = createNetServer((client) => {
    const upstream = connect(runtimeSocket);
    client.on('data', (chunk) => {
      if (chunk.includes('GET /_ping ')) pings++;
    });
    client.pipe(upstream).pipe(client);
    tieSocketPair(sockets, client, upstream);
  });
  await new Promise((r) => server.listen(proxySocket, r));
  cleanups.push(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((r) => server.close(r));
  });
  return { pings: () => pings };
}

/** Runs wrk without blocking this process's event loop (the servers under test live here). */
function runWrk(args) {
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (c) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c) => (err += c));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`wrk failed (${code}): ${err}`))));
  });
}

async function wrk(url) {
  const out = await runWrk(['-t2', `-c${CONNECTIONS}`, `-d${SECONDS}s`, '--latency', url]);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
  const p99 = /99%\s+(\S+)/.exec(out)?.[1] ?? '?';
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  const errors = /Socket errors:.*/.exec(out)?.[0] ?? '';
  return { rps, p99, non2xx, errors };
}

async function measure(name, url, pingCounter) {
  const before = pingCounter?.pings() ?? 0;
  const started = performance.now();
  const r = await wrk(url);
  const seconds = (performance.now() - started) / 1_000;
  const pings = (pingCounter?.pings() ?? 0) - before;
  return { name, ...r, pingsPerSecond: pingCounter ? pings / seconds : undefined };
}

try {
  await startPodman();
  const counter = await startCountingProxy();

  const system = createOperationsSystem({ listenAddress: '127.0.0.1:0', version: { version: 'bench', commitSHA: 'bench00' } });
  system.registerChecker('docker', dockerChecker(`unix://${proxySocket}`));
  await system.start();
  cleanups.push(() => system.stop());
  const healthzUrl = `http://${system.address()}/healthz`;
  const sample = await fetch(healthzUrl);
  const sampleBody = await sample.text();
  if (sample.status !== 200) throw new Error(`/healthz answered ${sample.status}: ${sampleBody}`);

  // Baseline: raw node:http answering the very same bytes and headers, with no checks at all.
  const bytes = Buffer.from(sampleBody);
  const raw = createHttpServer((_req, res) => {
    res.writeHead(200, { 'X-Request-Id': '00000000-0000-4000-8000-000000000000', 'Content-Type': 'application/json', 'Content-Length': bytes.length });
    res.end(bytes);
  });
  await new Promise((r) => raw.listen(0, '127.0.0.1', r));
  cleanups.push(() => new Promise((r) => raw.close(r)));
  const rawUrl = `http://127.0.0.1:${raw.address().port}/healthz`;

  // Warm up both, then measure.
  await runWrk(['-t1', '-c8', '-d1s', healthzUrl]);
  await runWrk(['-t1', '-c8', '-d1s', rawUrl]);
  const baseline = await measure('raw node:http, same bytes (baseline)', rawUrl);
  const healthz = await measure('/healthz + docker checker (podman)', healthzUrl, counter);

  console.log(`${CONNECTIONS} connections, ${SECONDS}s each, wrk -t2, node ${process.version}`);
  for (const r of [baseline, healthz]) {
    const pings = r.pingsPerSecond === undefined ? '' : `  runtime pings/s ${r.pingsPerSecond.toFixed(1)}`;
    console.log(`${r.name.padEnd(40)} req/s ${r.rps.toFixed(0).padStart(7)}  p99 ${r.p99.padStart(8)}  non-2xx ${r.non2xx}${pings} ${r.errors}`);
  }
  console.log(`ratio /healthz : baseline = ${(healthz.rps / baseline.rps).toFixed(2)}`);
  console.log(`requests per runtime ping = ${(healthz.rps / healthz.pingsPerSecond).toFixed(1)} (single-flight)`);
} finally {
  await cleanup();
}
