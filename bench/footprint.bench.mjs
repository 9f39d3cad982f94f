// Memory footprint of the built peer bin next to a raw node:http(s) hello and, with TLS, Go's
// net/http (bench/go-hello, when Go is installed), in the same run:
// RSS idle (start-up settled), after 100,000 keep-alive requests (a mix of /version, /logspec,
// /healthz and /metrics) and after a forced GC, with TLS off and on. Plain node, loopback only,
// every child bounded by a timeout. Run after a build: node bench/footprint.bench.mjs
//   FOOTPRINT_REQUESTS   requests per target (default 100000)
//   FOOTPRINT_SETTLE_MS  wait before the idle figure (default 2000)
//   FOOTPRINT_JSON=1     print the figures as one JSON line as well
//   FOOTPRINT_IDLE_ONLY=N the quick mode: idle figures only (no load), N rounds with the targets
//                        alternating, each round's figure and the median printed (about 10 s a
//                        target and round instead of ~7 min a line)
//   FOOTPRINT_ONLY       a regular expression: measure only the targets whose name matches (e.g. 'peer')
//   FOOTPRINT_PEER_ARGS  node options for the peer bin only, e.g. '--max-semi-space-size=2', given in
//                        NODE_OPTIONS (so only options NODE_OPTIONS allows; on the command line a V8
//                        flag would reach the verifier worker's execArgv, which node refuses) (the
//                        raw baselines always run on node's defaults)
// Every child runs on the node that runs this script (`node bench/run.mjs footprint --lines 22,24`
// runs it on each line).
// With FABRIC_OPS_BENCH_FABRIC (bench/lib/fabric.mjs) Fabric's own operations server is measured
// too, with its own answers (its CPU column is per request of its own bytes, so no goal reads it).
// The forced GC and the heap-space figures come from a measurement-only preload (two signal
// handlers); it allocates nothing until signalled, so the RSS figures are what a user sees. It
// must not need --expose-gc on the command line: node refuses that flag in a worker's execArgv and
// the peer starts its verifier worker with its own execArgv, so every client certificate was
// refused and the load died with "socket hang up" (bench/README.md).
import './lib/fail.mjs';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fabricReference, fabricTlsEnv, startFabric } from './lib/fabric.mjs';
import { buildGoHello } from './lib/go-hello.mjs';
import { writePeerConfig } from './lib/peer.mjs';
import { createBenchPki } from './lib/pki.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const PEER_BIN = join(here, '..', 'apps', 'peer', 'dist', 'bin.cjs');
const REQUESTS = Number(process.env.FOOTPRINT_REQUESTS ?? 100_000);
const SETTLE_MS = Number(process.env.FOOTPRINT_SETTLE_MS ?? 2_000);
const CONNECTIONS = 8;
const PATHS = ['/version', '/logspec', '/healthz', '/metrics'];
const PEER_ARGS = (process.env.FOOTPRINT_PEER_ARGS ?? '').split(/\s+/).filter((arg) => arg !== '');
const IDLE_ROUNDS = Number(process.env.FOOTPRINT_IDLE_ONLY ?? 0);
const CHILD_TIMEOUT_MS = 180_000;
const MiB = 1024 * 1024;
const CLOCK_TICKS = 100; // USER_HZ on Linux

// SIGWINCH: one line with V8's heap spaces (committed and used bytes); SIGUSR2: a full GC (gc
// exposed at that moment, not by a command-line flag).
const PRELOAD_SOURCE = `
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
process.on('SIGWINCH', () => {
  const spaces = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, [s.space_size, s.space_used_size]]));
  process.stderr.write('footprint-heap ' + JSON.stringify(spaces) + '\\n');
});
process.on('SIGUSR2', () => { setFlagsFromString('--expose-gc'); const gc = runInNewContext('gc'); gc(); gc(); });
`;
const GC_PRELOAD = `data:text/javascript,${encodeURIComponent(PRELOAD_SOURCE)}`;

// The reference: node:http(s) answering every path with a short body, nothing else loaded.
const RAW_HELLO = `
const { readFileSync } = require('node:fs');
const tls = process.argv[1] ? JSON.parse(process.argv[1]) : null;
const handler = (req, res) => { res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': 6 }); res.end('hello\\n'); };
const server = tls
  ? require('node:https').createServer({ cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile), ca: readFileSync(tls.caFile), requestCert: true, rejectUnauthorized: false }, handler)
  : require('node:http').createServer(handler);
server.keepAliveTimeout = 10000;
server.listen(0, '127.0.0.1', () => process.stdout.write('listening on 127.0.0.1:' + server.address().port + '\\n'));
`;

/** Resident set of a process from /proc, in bytes: total, anonymous (heap, stacks) and file-backed (code). */
function rss(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { total: kb('VmRSS'), anon: kb('RssAnon'), file: kb('RssFile'), peak: kb('VmHWM') };
}

/** CPU time the process has used so far (user + system), in microseconds. */
function cpuMicros(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS) * 1e6;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Asks the child for its heap spaces and resolves them. */
async function heapSpaces(server) {
  const count = server.heapReports.length;
  server.child.kill('SIGWINCH');
  for (let i = 0; i < 50 && server.heapReports.length === count; i++) await sleep(20);
  return server.heapReports[count];
}

/** Spawns a server child and resolves its pid and address once it prints "listening on". */
function startChild(name, args, env, command = process.execPath) {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const killTimer = setTimeout(() => child.kill('SIGKILL'), CHILD_TIMEOUT_MS);
  let output = '';
  const heapReports = [];
  return new Promise((resolve, reject) => {
    const onData = (chunk) => {
      output += chunk;
      const match = /listening on "?([\d.]+:\d+)/.exec(output);
      if (match) {
        child.stdout.off('data', onData);
        // Keep the log's tail (the peer logs to stdout): a failed load shows what the server said.
        child.stdout.on('data', (more) => (output = (output + more).slice(-100_000)));
        resolve({ child, address: match[1], heapReports, output: () => output.slice(-3_000), stop: () => (clearTimeout(killTimer), child.kill('SIGKILL')) });
      }
    };
    child.stdout.setEncoding('utf8').on('data', onData);
    child.stderr.setEncoding('utf8').on('data', (chunk) => {
      output = (output + chunk).slice(-100_000);
      for (const match of chunk.matchAll(/^footprint-heap (.*)$/gm)) heapReports.push(JSON.parse(match[1]));
    });
    child.once('exit', (code, signal) => {
      clearTimeout(killTimer);
      reject(new Error(`${name} exited (${code ?? signal}) before listening:\n${output.slice(-3_000)}`));
    });
  });
}

/** The Fabric reference, in startChild's shape (no heap reports: it is Go). */
async function startFabricChild(binary, env) {
  const fabric = await startFabric(binary, env);
  const killTimer = setTimeout(() => fabric.child.kill('SIGKILL'), CHILD_TIMEOUT_MS);
  return { child: fabric.child, address: fabric.address, heapReports: [], output: fabric.stderr, stop: () => (clearTimeout(killTimer), fabric.child.kill('SIGKILL')) };
}

/** Sends `total` GETs over `CONNECTIONS` keep-alive connections, cycling through PATHS. */
async function load(address, tls, total) {
  const [host, port] = address.split(':');
  const agent = tls
    ? new HttpsAgent({ keepAlive: true, maxSockets: CONNECTIONS, ca: tls.client.ca, cert: tls.client.cert, key: tls.client.key })
    : new HttpAgent({ keepAlive: true, maxSockets: CONNECTIONS });
  const request = tls ? httpsRequest : httpRequest;
  let sent = 0;
  const statuses = {};
  const one = (path) =>
    new Promise((resolve, reject) => {
      const req = request({ host, port, path, agent, servername: 'localhost' }, (res) => {
        statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
        res.resume();
        res.once('end', resolve);
      });
      req.setTimeout(10_000, () => req.destroy(new Error(`no answer within 10 s`)));
      req.once('error', (error) => reject(new Error(`GET ${path} failed after ${sent} requests: ${error.message}${error.code ? ` [${error.code}]` : ''}`)));
      req.end();
    });
  const worker = async () => {
    while (sent < total) {
      const path = PATHS[sent++ % PATHS.length];
      await one(path);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  agent.destroy();
  return { seconds: (performance.now() - started) / 1_000, statuses };
}

/** The quick mode: the target started, settled and its idle RSS read; nothing else. */
async function measureIdle(name, args, env, kind = 'node') {
  const server =
    kind === 'node' ? await startChild(name, ['--import', GC_PRELOAD, ...args], env) : kind === 'fabric' ? await startFabricChild(args[0], env) : await startChild(name, args, env, kind.go);
  try {
    await sleep(SETTLE_MS);
    return rss(server.child.pid);
  } finally {
    server.stop();
  }
}

/** Prints the quick mode's table: each round's idle RSS per target, the median, and the peer's distance from raw node. */
async function reportIdleOnly(targets, only, loadAtStart) {
  const chosen = targets.filter(([name]) => only.test(name));
  const figures = new Map(chosen.map(([name]) => [name, []]));
  for (let round = 0; round < IDLE_ROUNDS; round++) {
    for (const [name, args, env, , kind] of chosen) figures.get(name).push((await measureIdle(name, args, env, kind)).total);
  }
  const f = (bytes) => (bytes / MiB).toFixed(1);
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  console.log(
    `node ${process.version}, idle only, ${IDLE_ROUNDS} rounds, load average ${loadAtStart.toFixed(2)} at the start, ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} at the end`,
  );
  console.log('| target | idle RSS per round (MiB) | median |');
  console.log('|---|---|---|');
  for (const [name, values] of figures) console.log(`| ${name} | ${values.map(f).join(' · ')} | ${f(median(values))} |`);
  for (const [peer, raw] of [
    ['peer, TLS off', 'raw node:http hello'],
    ['peer, TLS on', 'raw node:https hello'],
  ]) {
    if (figures.has(peer) && figures.has(raw)) console.log(`${peer}: idle +${f(median(figures.get(peer)) - median(figures.get(raw)))} MiB over raw (goal ≤ +8)`);
  }
}

async function measure(name, args, env, tls, kind = 'node') {
  // Go and Fabric have no heap-space report or forced GC here (SIGUSR2 would end them): RSS only.
  const node = kind === 'node';
  const server = node ? await startChild(name, ['--import', GC_PRELOAD, ...args], env) : kind === 'fabric' ? await startFabricChild(args[0], env) : await startChild(name, args, env, kind.go);
  try {
    await sleep(SETTLE_MS);
    const idle = rss(server.child.pid);
    const idleHeap = node ? await heapSpaces(server) : undefined;
    const cpuBefore = cpuMicros(server.child.pid);
    let run;
    try {
      run = await load(server.address, tls, REQUESTS);
    } catch (error) {
      // The server's own log says why it refused or closed (e.g. a verifier that could not start).
      throw new Error(`${name}: ${error.message}\n--- its output, last lines ---\n${server.output().trim().split('\n').slice(-12).join('\n')}`);
    }
    const cpuPerRequest = (cpuMicros(server.child.pid) - cpuBefore) / REQUESTS;
    await sleep(500);
    const loaded = rss(server.child.pid);
    const loadedHeap = node ? await heapSpaces(server) : undefined;
    if (node) {
      server.child.kill('SIGUSR2');
      await sleep(500);
    }
    const collected = rss(server.child.pid);
    return { name, idle, loaded, collected, idleHeap, loadedHeap, cpuPerRequest, ...run };
  } finally {
    server.stop();
  }
}

/** The Go baseline's responses file: every path answered with the raw hello's bytes, with or without a client certificate. */
function goResponsesFile(dir) {
  const file = join(dir, 'go-responses.json');
  const hello = { status: 200, contentType: 'text/plain', body: Buffer.from('hello\n').toString('base64') };
  writeFileSync(file, JSON.stringify(Object.fromEntries(PATHS.flatMap((path) => ['tls', 'mtls'].map((auth) => [`GET ${path} ${auth}`, hello])))));
  return file;
}

const loadAtStart = loadavg()[0];
const dir = mkdtempSync(join(tmpdir(), 'footprint-'));
try {
  const pki = createBenchPki(dir);
  const tlsFiles = pki.files;
  const configs = {};
  for (const [key, tls] of [
    ['plain', null],
    ['tls', tlsFiles],
  ]) {
    const cfg = join(dir, key);
    rmSync(cfg, { recursive: true, force: true });
    writePeerConfig(cfg, { tls });
    configs[key] = cfg;
  }
  const peerEnv = (key) => ({
    FABRIC_CFG_PATH: configs[key],
    FABRIC_LOGGING_SPEC: 'info',
    ...(PEER_ARGS.length > 0 ? { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} ${PEER_ARGS.join(' ')}`.trim() } : {}),
  });
  const only = new RegExp(process.env.FOOTPRINT_ONLY ?? '');
  const targets = [
    ['raw node:http hello', ['-e', RAW_HELLO], {}, null],
    ['peer, TLS off', [PEER_BIN], peerEnv('plain'), null],
    ['raw node:https hello', ['-e', RAW_HELLO, JSON.stringify(tlsFiles)], {}, pki],
    ['peer, TLS on', [PEER_BIN], peerEnv('tls'), pki],
  ];
  const goName = 'Go net/http hello (TLS)';
  if (only.test(goName)) {
    const go = await buildGoHello(dir);
    if (go.error === undefined) {
      const goOptions = { certFile: tlsFiles.certFile, keyFile: tlsFiles.keyFile, caFile: tlsFiles.caFile, responsesFile: goResponsesFile(dir), clientAuthRequired: false };
      targets.push([goName, [JSON.stringify(goOptions)], {}, pki, { go: go.binary }]);
    } else {
      console.log(`(no Go baseline: ${go.error})`);
    }
  }
  const fabricName = "Fabric's operations server (TLS)";
  const fabric = fabricReference();
  if (fabric.binary !== undefined && only.test(fabricName)) targets.push([fabricName, [fabric.binary], fabricTlsEnv(tlsFiles, false), pki, 'fabric']);
  if (IDLE_ROUNDS > 0) {
    await reportIdleOnly(targets, only, loadAtStart);
    // The full run's tables below are not for the quick mode (its `finally` does not run on exit).
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  }
  const results = [];
  for (const [name, args, env, tls, kind] of targets) if (only.test(name)) results.push(await measure(name, args, env, tls, kind));

  const f = (bytes) => (bytes / MiB).toFixed(1);
  console.log(
    `node ${process.version}${PEER_ARGS.length > 0 ? `, peer with ${PEER_ARGS.join(' ')}` : ''}, load average ${loadAtStart.toFixed(2)} at the start, ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} at the end`,
  );
  console.log(`RSS in MiB (anonymous + file-backed), ${REQUESTS} keep-alive requests over ${CONNECTIONS} connections (${PATHS.join(' ')})`);
  console.log('| target | idle | after load | growth | peak | after GC | server CPU/request | req/s | statuses |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    console.log(
      `| ${r.name} | ${f(r.idle.total)} (${f(r.idle.anon)}+${f(r.idle.file)}) | ${f(r.loaded.total)} (${f(r.loaded.anon)}+${f(r.loaded.file)}) | ${f(r.loaded.total - r.idle.total)} | ${f(r.loaded.peak)} | ${f(r.collected.total)} | ${r.cpuPerRequest.toFixed(0)} µs | ${Math.round(REQUESTS / r.seconds)} | ${JSON.stringify(r.statuses)} |`,
    );
  }
  const byName = (name) => results.find((r) => r.name === name);
  for (const [peer, raw] of [
    [byName('peer, TLS off'), byName('raw node:http hello')],
    [byName('peer, TLS on'), byName('raw node:https hello')],
  ]) {
    if (peer === undefined || raw === undefined) continue;
    // The memory goals, on every Node line: within 8 MiB of raw node on the same line, idle and after the same load.
    const idleGap = peer.idle.total - raw.idle.total;
    const loadedGap = peer.loaded.total - raw.loaded.total;
    const verdict = (gap) => (gap <= 8 * MiB ? 'met' : `missed by ${f(gap - 8 * MiB)} MiB`);
    console.log(`${peer.name}: idle +${f(idleGap)} MiB over raw (goal ≤ +8: ${verdict(idleGap)}), after load +${f(loadedGap)} MiB (goal ≤ +8: ${verdict(loadedGap)})`);
  }
  const fabricResult = byName(fabricName);
  if (fabricResult === undefined) console.log(`${fabricName}: ${fabric.missing ?? 'not measured (FOOTPRINT_ONLY)'}`);
  else if (byName('peer, TLS on') !== undefined) {
    const peer = byName('peer, TLS on');
    console.log(
      `peer, TLS on vs Fabric: idle ${f(peer.idle.total)} / ${f(fabricResult.idle.total)} MiB, after load ${f(peer.loaded.total)} / ${f(fabricResult.loaded.total)} MiB (Fabric answers with its own bytes: its CPU column is no comparison)`,
    );
  }
  console.log("\nV8 heap spaces, committed/used MiB (new space is the young generation; old space grows by at least V8's 8 MiB step)");
  console.log('| target | new idle | new after load | old idle | old after load | code idle | code after load |');
  console.log('|---|---|---|---|---|---|---|');
  const space = (heap, name) => (heap?.[name] ? `${f(heap[name][0])}/${f(heap[name][1])}` : '?');
  for (const r of results.filter((result) => result.idleHeap !== undefined)) {
    console.log(
      `| ${r.name} | ${space(r.idleHeap, 'new_space')} | ${space(r.loadedHeap, 'new_space')} | ${space(r.idleHeap, 'old_space')} | ${space(r.loadedHeap, 'old_space')} | ${space(r.idleHeap, 'code_space')} | ${space(r.loadedHeap, 'code_space')} |`,
    );
  }
  if (process.env.FOOTPRINT_JSON === '1') console.log(JSON.stringify(results));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
