// Where the server's CPU goes under load: V8 CPU profiles of ours (the peer bin) and of raw
// node:https serving the same bytes, taken in the same run over the same keep-alive load, and read
// for the share of garbage collection and the heaviest self-time lines.
//
//   node bench/profile.bench.mjs [--quick]        (after `pnpm build`)
//   BENCH_PROFILE_SECONDS=8  BENCH_PROFILE_PATHS=/version,/livez  BENCH_PROFILE_KEEP=1 (keep the .cpuprofile files)
//   BENCH_PROFILE_OURS_ARGS='--max-semi-space-size=16'  node options for ours only, given in NODE_OPTIONS (to compare V8 settings against the bin's own)
//
// Only samples taken inside the measured window count: the profile's timestamps and this
// process's `process.hrtime` both read the machine's monotonic clock, so start-up, handshakes and
// shutdown are cut away. Shares are of the samples in which the process was busy ("(idle)" left out).
// Both servers also run with --trace-gc, so each window reports the heap bytes allocated per request
// and collections per 10k requests: a GC share that differs while allocation per request does not
// comes from the young generation's size (V8's default, or BENCH_PROFILE_OURS_ARGS), not from
// garbage our code makes.
import './lib/fail.mjs';
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fetchOnce } from './lib/fetch-once.mjs';
import { writePeerConfig } from './lib/peer.mjs';
import { createBenchPki } from './lib/pki.mjs';
import { startPodmanService } from './lib/podman.mjs';

const QUICK = process.argv.includes('--quick') || process.env.BENCH_QUICK === '1';
const SECONDS = Number(process.env.BENCH_PROFILE_SECONDS ?? (QUICK ? 2 : 6));
const PATHS = (process.env.BENCH_PROFILE_PATHS ?? '/version,/livez,/readyz,/logspec,PUT /logspec,/healthz').split(',');
const KEEP = process.env.BENCH_PROFILE_KEEP === '1';
const CONNECTIONS = 32;
const TOP = 8;
const OURS_ARGS = (process.env.BENCH_PROFILE_OURS_ARGS ?? '').split(' ').filter(Boolean);
const TRACE_GC_PRELOAD = `data:text/javascript,${encodeURIComponent("import { setFlagsFromString } from 'node:v8'; setFlagsFromString('--trace-gc');")}`;
const PUT_BODY = '{"spec":"peer.operations=info:warn"}';

const here = (f) => fileURLToPath(new URL(f, import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'fabric-ops-bench-profile-'));
let runtime;

function start(name, args, env = {}) {
  const profileDir = join(dir, `profile-${name}-${Date.now()}`);
  const logFd = openSync(join(dir, `${name}.log`), 'a');
  // --trace-gc: the heap before and after each collection, from which allocation per request is read.
  // Set from a preload, not the command line: node refuses a V8 flag in a worker's execArgv, and
  // the peer's verifier worker inherits the bin's.
  const child = spawn(process.execPath, ['--cpu-prof', '--cpu-prof-interval', '100', '--cpu-prof-dir', profileDir, '--import', TRACE_GC_PRELOAD, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', logFd],
  });
  closeSync(logFd);
  return new Promise((resolve, reject) => {
    let out = '';
    let target;
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      out += chunk;
      const match = /listening on (\S+)/.exec(out);
      if (match && !target) {
        target = { name, child, profileDir, port: Number(match[1].slice(match[1].lastIndexOf(':') + 1)), output: () => out };
        resolve(target);
      }
    });
    child.once('exit', (code) => reject(new Error(`${name} exited ${code} before listening: ${out}`)));
  });
}

/** SIGTERM, then the profile V8 wrote on the way out (both servers exit 0 after a graceful stop). */
function stopAndReadProfile(target) {
  return new Promise((resolve, reject) => {
    target.child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`${target.name} exited ${code}; no profile`));
      const [file] = readdirSync(target.profileDir).filter((f) => f.endsWith('.cpuprofile'));
      if (!file) return reject(new Error(`${target.name} wrote no profile`));
      resolve(JSON.parse(readFileSync(join(target.profileDir, file), 'utf8')));
    });
    target.child.kill('SIGTERM');
  });
}

/**
 * Bytes allocated on the V8 heap in a stretch of --trace-gc output: what each collection found
 * minus what the previous one left. Per request, it says whether a difference in GC share comes
 * from garbage made per request or from the young generation's size (how often it is collected).
 */
function allocatedMiB(traceText) {
  let total = 0;
  let collections = 0;
  // Per isolate ("[pid:0x…]" prefix): the trace flag, set from a preload, covers the verifier
  // worker's isolate too, and one isolate's heap must not be subtracted from another's.
  const leftAfter = new Map();
  for (const m of traceText.matchAll(/^\[(\d+:0x[0-9a-f]+)[^\]]*\][^\n]*?: (?:Scavenge|Mark-Compact|Mark-Sweep|Minor Mark-Compact)\b[^\n]*?([\d.]+) \(([\d.]+)\) -> ([\d.]+) \(([\d.]+)\) MB/gm)) {
    const isolate = m[1];
    const before = Number(m[2]);
    if (leftAfter.has(isolate)) total += Math.max(0, before - leftAfter.get(isolate));
    leftAfter.set(isolate, Number(m[4]));
    collections++;
  }
  return { mib: total, collections };
}

/** Runs bench/lib/load.mjs; returns the monotonic window (ns) in which the requests ran. */
function load(target, method, path, tls) {
  return new Promise((resolve, reject) => {
    const options = { host: '127.0.0.1', port: target.port, path, method, body: method === 'PUT' ? PUT_BODY : '', mode: 'keepalive', seconds: SECONDS, tls, connections: CONNECTIONS, gate: true };
    const child = spawn(process.execPath, [here('./lib/load.mjs'), JSON.stringify(options)], { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    let from;
    let traceFrom = 0;
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      out += chunk;
      if (from === undefined && out.startsWith('ready\n')) {
        from = process.hrtime.bigint();
        traceFrom = target.output().length;
        out = out.slice('ready\n'.length);
        child.stdin.end('go\n');
      }
      if (from !== undefined && out.endsWith('\n')) {
        const to = process.hrtime.bigint();
        // Let the last trace lines of the window arrive through the pipe.
        setTimeout(() => resolve({ from, to, result: JSON.parse(out), trace: allocatedMiB(target.output().slice(traceFrom)) }), 200);
      }
    });
    child.once('exit', (code) => code !== 0 && reject(new Error(`load generator exited ${code}`)));
  });
}

/** Samples inside [from, to] (ns), counted by node id, with the time each node was on the CPU (µs). */
function samplesIn(profile, from, to) {
  const fromUs = Number(from / 1000n);
  const toUs = Number(to / 1000n);
  const counts = new Map();
  const micros = new Map();
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i];
    if (t < fromUs || t > toUs) continue;
    const id = profile.samples[i];
    counts.set(id, (counts.get(id) ?? 0) + 1);
    // A sample stands for the time since the previous one.
    micros.set(id, (micros.get(id) ?? 0) + profile.timeDeltas[i]);
  }
  return { counts, micros };
}

/** Where a sample's self time belongs: our packages (the peer bin's request path), Node's JavaScript, native code, GC, V8. */
function kindOf(functionName, url) {
  if (functionName === '(garbage collector)') return 'gc';
  if (functionName === '(program)') return 'program';
  if (/\/(packages|apps)\/[^/]+\/dist\//.test(url)) return 'ours';
  if (url.startsWith('node:')) return 'node';
  if (url === '') return 'native';
  return 'other';
}

function analyse(profile, windows) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const perWindow = windows.map(({ label, from, to, completed, trace }) => {
    const { counts, micros } = samplesIn(profile, from, to);
    let busy = 0;
    let busyUs = 0;
    let gc = 0;
    const byLine = new Map();
    const byKind = { ours: 0, node: 0, native: 0, gc: 0, program: 0, other: 0 };
    for (const [id, count] of counts) {
      const { functionName, url, lineNumber } = nodes.get(id).callFrame;
      if (functionName === '(idle)') continue;
      busy += count;
      busyUs += micros.get(id);
      if (functionName === '(garbage collector)') gc += count;
      byKind[kindOf(functionName, url)] += micros.get(id);
      const where = url ? `${url.replace(/^file:\/\//, '').replace(/^.*\/(node_modules|apps|packages)\//, '$1/')}:${lineNumber + 1}` : '';
      const line = `${functionName || '(anonymous)'} ${where}`.trim();
      byLine.set(line, (byLine.get(line) ?? 0) + count);
    }
    const top = [...byLine]
      .sort((a, b) => b[1] - a[1])
      .slice(0, TOP)
      .map(([line, count]) => ({ line, share: count / busy }));
    return {
      label,
      allocatedBytesPerRequest: completed > 0 ? (trace.mib * 2 ** 20) / completed : Number.NaN,
      collectionsPer10kRequests: completed > 0 ? (trace.collections * 10_000) / completed : Number.NaN,
      busySamples: busy,
      completed,
      mainThreadUsPerRequest: completed > 0 ? busyUs / completed : Number.NaN,
      gcShare: busy > 0 ? gc / busy : Number.NaN,
      // Main-thread µs per request by where the time went (self time): our packages' code, Node's
      // own JavaScript, native code (writev: TLS encryption and the write), GC, V8's "(program)".
      usPerRequestByKind: Object.fromEntries(Object.entries(byKind).map(([kind, us]) => [kind, completed > 0 ? us / completed : Number.NaN])),
      top,
    };
  });
  return perWindow;
}

const cases = PATHS.map((entry) => {
  const [method, path] = entry.includes(' ') ? entry.split(' ') : ['GET', entry];
  return { method, path, label: `${method} ${path} · mTLS · keep-alive` };
});

try {
  const pki = createBenchPki(dir);
  const tls = pki.client;
  const files = pki.files;
  runtime = await startPodmanService(dir);
  writePeerConfig(dir, { tls: files, runtimeEndpoint: runtime.endpoint });

  const loadBefore = loadavg()[0];
  const ours = await start('ours', [here('../apps/peer/dist/bin.cjs')], {
    FABRIC_CFG_PATH: dir,
    FABRIC_LOGGING_SPEC: 'peer.operations=info:warn',
    ...(OURS_ARGS.length > 0 ? { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} ${OURS_ARGS.join(' ')}`.trim() } : {}),
  });
  const responses = {};
  for (const c of cases) responses[`${c.method} ${c.path} mtls`] = await fetchOnce(ours.port, { method: c.method, path: c.path, body: c.method === 'PUT' ? PUT_BODY : undefined }, tls);
  const responsesFile = join(dir, 'responses.json');
  writeFileSync(responsesFile, JSON.stringify(responses));
  const raw = await start('raw', [here('./lib/raw-target.mjs'), JSON.stringify({ ...files, responsesFile, clientAuthRequired: false })]);

  const windows = { ours: [], raw: [] };
  for (const c of cases) {
    // Warm both servers on this path first (JIT), then measure; alternate the targets.
    for (const target of [ours, raw]) await load(target, c.method, c.path, tls);
    for (const target of [ours, raw]) {
      const { from, to, result, trace } = await load(target, c.method, c.path, tls);
      windows[target.name].push({ label: c.label, from, to, completed: result.completed, trace });
    }
  }
  const profiles = { ours: await stopAndReadProfile(ours), raw: await stopAndReadProfile(raw) };
  const results = { ours: analyse(profiles.ours, windows.ours), raw: analyse(profiles.raw, windows.raw) };

  const pct = (x) => `${(x * 100).toFixed(1)} %`;
  process.stdout.write(`\nCPU profiles under ${CONNECTIONS} keep-alive mTLS connections, ${SECONDS} s per target and path (load average ${loadBefore.toFixed(2)} before)\n\n`);
  process.stdout.write(
    '| case | main thread µs/request, ours | raw | GC share, ours | GC share, raw | GC ours ÷ raw | heap bytes allocated/request, ours | raw | collections per 10k requests, ours | raw |\n|---|---|---|---|---|---|---|---|---|---|\n',
  );
  for (let i = 0; i < cases.length; i++) {
    const o = results.ours[i];
    const r = results.raw[i];
    process.stdout.write(
      `| ${cases[i].label} | ${o.mainThreadUsPerRequest.toFixed(1)} | ${r.mainThreadUsPerRequest.toFixed(1)} | ${pct(o.gcShare)} | ${pct(r.gcShare)} | ${(o.gcShare / r.gcShare).toFixed(2)}× | ${o.allocatedBytesPerRequest.toFixed(0)} | ${r.allocatedBytesPerRequest.toFixed(0)} | ${o.collectionsPer10kRequests.toFixed(1)} | ${r.collectionsPer10kRequests.toFixed(1)} |\n`,
    );
  }
  process.stdout.write(
    '\nMain-thread µs per request by where it went (self time; "ours" is the peer\'s own code in packages/*/dist, "other" the bench script or a dependency):\n\n| case | server | ours | Node JS | native (writev, TLS) | GC | (program) | other |\n|---|---|---|---|---|---|---|---|\n',
  );
  for (let i = 0; i < cases.length; i++) {
    for (const name of ['ours', 'raw']) {
      const k = results[name][i].usPerRequestByKind;
      process.stdout.write(`| ${cases[i].label} | ${name} | ${[k.ours, k.node, k.native, k.gc, k.program, k.other].map((v) => v.toFixed(1)).join(' | ')} |\n`);
    }
  }
  for (let i = 0; i < cases.length; i++) {
    process.stdout.write(`\n${cases[i].label}: heaviest self-time lines (share of busy samples)\n`);
    for (const name of ['ours', 'raw']) {
      process.stdout.write(`  ${name} (${results[name][i].busySamples} samples, ${results[name][i].completed} requests)\n`);
      for (const { line, share } of results[name][i].top) process.stdout.write(`    ${pct(share).padStart(7)}  ${line}\n`);
    }
  }
  const out = join(here('./results'), 'profile.json');
  writeFileSync(
    out,
    `${JSON.stringify({ date: new Date().toISOString(), seconds: SECONDS, connections: CONNECTIONS, loadAverageBefore: loadBefore, cases: cases.map((c, i) => ({ label: c.label, ours: results.ours[i], raw: results.raw[i] })) }, null, 2)}\n`,
  );
  process.stdout.write(`\nwritten to ${out}${KEEP ? `; profiles kept in ${dir}` : ''}\n`);
} finally {
  await runtime?.stop();
  if (!KEEP) rmSync(dir, { recursive: true, force: true });
}
