// `opsctl health` over a fleet of 100 operations endpoints on loopback (one process hosts them
// all), then over 100 of which 10 accept connections and never answer, at several concurrency
// limits. Prints each run's wall time next to what the timeout arithmetic says it must be:
// at least ceil(hung / concurrency) × timeout (a hung target holds its slot for one timeout),
// and, for a healthy fleet, close to the start-up cost of one opsctl process. The baseline is
// the way it is done without a fleet mode: one opsctl process per node, one after another.
// Needs the built opsctl (pnpm build). Loopback only; bounded (about 40 s).
import './lib/fail.mjs';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const OPSCTL = fileURLToPath(new URL('../apps/opsctl/dist/bin.js', import.meta.url));
if (!existsSync(OPSCTL)) {
  console.error(`${OPSCTL} is missing: run pnpm build first`);
  process.exit(1);
}

const TARGETS = 100;
const HUNG = 10;
const TIMEOUT_S = 1;
const SEQUENTIAL_SAMPLE = 10;

const dir = mkdtempSync(join(tmpdir(), 'fabric-ops-bench-fleet-'));
const servers = [];
const held = new Set();

/** An operations endpoint that answers /healthz as Fabric does. */
async function healthyEndpoint() {
  const server = createHttpServer((req, res) => {
    const body = JSON.stringify({ status: 'OK', time: new Date().toISOString() });
    res.writeHead(req.url === '/healthz' ? 200 : 404, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return `127.0.0.1:${server.address().port}`;
}

/** Accepts the connection, reads the request, never answers. */
async function hungEndpoint() {
  const server = createNetServer((socket) => {
    held.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => held.delete(socket));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return `127.0.0.1:${server.address().port}`;
}

function run(args) {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, [OPSCTL, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, OPSCTL_ADDRESS: '', OPSCTL_CACERT: '', OPSCTL_CERT: '', OPSCTL_KEY: '' } });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
    child.stderr.resume();
    // Bounded even if opsctl misbehaved: the longest expected run is well under a minute.
    const kill = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('close', (code) => {
      clearTimeout(kill);
      resolve({ code, stdout, ms: Number(process.hrtime.bigint() - started) / 1e6 });
    });
  });
}

function writeTargets(name, addresses) {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify([{ targets: addresses, labels: { role: 'bench' } }]));
  return file;
}

const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;

try {
  const healthy = await Promise.all(Array.from({ length: TARGETS }, healthyEndpoint));
  const hung = await Promise.all(Array.from({ length: HUNG }, hungEndpoint));
  // The hung targets spread through the list, as they would be in a real fleet.
  const mixed = healthy.slice(0, TARGETS - HUNG);
  hung.forEach((address, i) => mixed.splice(i * (TARGETS / HUNG) + 3, 0, address));
  const allHealthy = writeTargets('healthy.json', healthy);
  const withHung = writeTargets('hung.json', mixed);

  const startup = [];
  for (let i = 0; i < 3; i++) startup.push((await run(['--help'])).ms);
  const startupMs = Math.min(...startup);

  let sequentialMs = 0;
  for (const address of healthy.slice(0, SEQUENTIAL_SAMPLE)) sequentialMs += (await run(['--address', address, 'health'])).ms;
  const perNodeMs = sequentialMs / SEQUENTIAL_SAMPLE;

  const rows = [];
  const measure = async (label, file, concurrency, hungCount, extra = [], deadlineMs = undefined) => {
    const result = await run(['--targets', file, '--timeout', `${TIMEOUT_S}s`, '--concurrency', String(concurrency), ...extra, 'health', '--json']);
    const parsed = JSON.parse(result.stdout);
    const failed = parsed.filter((row) => !row.ok);
    const floorMs = deadlineMs ?? Math.ceil(hungCount / concurrency) * TIMEOUT_S * 1000;
    rows.push({
      label,
      concurrency,
      exit: result.code,
      ok: parsed.length - failed.length,
      failed: failed.length,
      reasons: [...new Set(failed.map((row) => row.reason))].join(',') || '-',
      floor:
        deadlineMs !== undefined
          ? `deadline ${seconds(deadlineMs)}`
          : hungCount === 0
            ? `~${seconds(startupMs)} (start-up)`
            : `${Math.ceil(hungCount / concurrency)} × ${TIMEOUT_S}s = ${seconds(floorMs)}`,
      measured: result.ms,
      overFloor: result.ms - startupMs - (hungCount === 0 ? 0 : floorMs),
    });
  };

  await measure(`${TARGETS} healthy`, allHealthy, 16, 0);
  await measure(`${TARGETS} healthy`, allHealthy, 4, 0);
  for (const concurrency of [16, 4, 2]) await measure(`${TARGETS}, ${HUNG} hung`, withHung, concurrency, HUNG);
  // A deadline shorter than the arithmetic: opsctl stops there and names what it could not do.
  await measure(`${TARGETS}, ${HUNG} hung, --deadline 2s`, withHung, 1, HUNG, ['--deadline', '2s'], 2_000);

  console.log(`opsctl health over a fleet, --timeout ${TIMEOUT_S}s (node ${process.version}, loopback, plain HTTP)`);
  console.log(`one opsctl process start-up: ${seconds(startupMs)} (best of 3, --help)`);
  console.log(`baseline, one opsctl per node in turn: ${seconds(perNodeMs)} per node, so ~${seconds(perNodeMs * TARGETS)} for ${TARGETS} (measured on ${SEQUENTIAL_SAMPLE})`);
  console.log('');
  const header = ['targets', 'concurrency', 'exit', 'ok', 'failed', 'reasons', 'arithmetic floor', 'measured', 'beyond floor and start-up'];
  const body = rows.map((r) => [r.label, String(r.concurrency), String(r.exit), String(r.ok), String(r.failed), r.reasons, r.floor, seconds(r.measured), seconds(r.overFloor)]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((cells) => cells[i].length)));
  for (const cells of [header, ...body])
    console.log(
      cells
        .map((cell, i) => cell.padEnd(widths[i]))
        .join('  ')
        .trimEnd(),
    );
  console.log('');
  console.log('floor: a hung target holds its slot for one --timeout, so N hung targets over C slots take at least');
  console.log('ceil(N / C) × timeout; the healthy targets share the remaining slots. With --deadline the run ends');
  console.log('at the deadline (the floor shown is the deadline) and the unfinished targets carry reason "deadline".');
} finally {
  for (const socket of held) socket.destroy();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  rmSync(dir, { recursive: true, force: true });
}
