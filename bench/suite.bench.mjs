// The operations server under load, next to raw node:https and a Go net/http server serving the
// same bytes, in one run. Starts the peer bin (TLS, client certificates verified when given,
// prometheus, docker checker on a real podman service) and, for /metrics at 1,000 and 10,000 extra
// series, the same composition with synthetic series; each with a raw node:https twin and a Go twin
// (bench/go-hello) answering with the bytes it answered. Each cell is measured in rounds that
// alternate the targets (ours, raw, Go, ours, raw, Go, …) from a separate load process; the server's
// CPU time (/proc/<pid>/stat) is sampled around exactly the measured requests. Prints medians and
// the ratios, and writes everything to bench/results/latest.json.
// With FABRIC_OPS_BENCH_FABRIC (lib/fabric.mjs), Fabric's own operations server joins the peer's
// cells it serves (/version, /logspec, /healthz, /metrics; it answers with its own bytes) and the
// RSS readings; without it its columns say "not given".
//   node bench/suite.bench.mjs [--quick]
// Needs the built packages (pnpm build), openssl and podman (scripts/test-deps.sh); Go is optional
// (scripts/bench-deps.sh installs golang-go; without it the Go columns stay empty).
import './lib/fail.mjs';
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fabricReference, fabricTlsEnv, startFabric } from './lib/fabric.mjs';
import { buildGoHello } from './lib/go-hello.mjs';
import { fetchOnce } from './lib/fetch-once.mjs';
import { writePeerConfig } from './lib/peer.mjs';
import { createBenchPki } from './lib/pki.mjs';
import { startPodmanService } from './lib/podman.mjs';
import { median, rssMiB } from './lib/proc.mjs';
import { runServerLoad } from './lib/server-load.mjs';

const QUICK = process.argv.includes('--quick') || process.env.BENCH_QUICK === '1';
const SECONDS = Number(process.env.BENCH_SECONDS ?? (QUICK ? 0.5 : 5));
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const RSS_REQUESTS = Number(process.env.BENCH_RSS_REQUESTS ?? (QUICK ? 20_000 : 100_000));
// Each target serves the cell unmeasured for this long before its first round: a route's first
// requests run cold code (our handlers are JIT-compiled then), which made the first round of
// ours an outlier of up to 3× in short rounds.
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? (QUICK ? 0.3 : 1));
// Only the cells whose label contains one of these (comma-separated) texts, e.g. "/livez,PUT /logspec".
const ONLY = (process.env.BENCH_ONLY ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter((s) => s !== '');
// With BENCH_ONLY, still take the RSS readings (idle and after RSS_REQUESTS keep-alive requests).
const KEEP_RSS = process.env.BENCH_RSS === '1';
const KEEPALIVE_CONNECTIONS = 32;
// /metrics answers 503 beyond 4 scrapes in flight (the default `maxInFlight`); a slow scrape under 32
// connections would measure refusals. Prometheus itself scrapes a target one request at a time.
const METRICS_CONNECTIONS = 4;
const CONNECT_CONCURRENCY = 16;
// A run is "quiet" when the machine was idle before it and the raw baseline held steady in every cell.
const QUIET_LOAD_AVERAGE = 0.5;
const QUIET_RAW_SPREAD = 0.1;
const PUT_BODY = JSON.stringify({ spec: 'peer.operations=info:warn' });
const here = (f) => fileURLToPath(new URL(f, import.meta.url));
const fabric = fabricReference();
// The peer's cells Fabric's server has a route for (it has no /livez or /readyz).
const FABRIC_PATHS = new Set(['/version', '/logspec', '/healthz', '/metrics']);
const peerBin = here('../apps/peer/dist/bin.cjs');

const dir = mkdtempSync(join(tmpdir(), 'fabric-ops-bench-suite-'));
const children = [];
let runtime;
const cleanup = async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await runtime?.stop();
  rmSync(dir, { recursive: true, force: true });
};
process.on('SIGINT', () => cleanup().finally(() => process.exit(130)));

/**
 * Spawns a server and resolves it once its "listening on <address>" line arrives. Its stderr goes to
 * a file, as a peer's log would, not to this terminal.
 */
function startServer(name, command, args, env = {}) {
  const logFile = join(dir, `${name.replace(/\W+/g, '-')}.log`);
  const stderr = openSync(logFile, 'w');
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', stderr] });
  closeSync(stderr);
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
        resolve({ name, child, port: Number(address.slice(address.lastIndexOf(':') + 1)), logFile, peakRssMiB: 0 });
      }
    });
    child.once('exit', (code) => reject(new Error(`${name} exited ${code} before listening: ${out}${readFileSync(logFile, 'utf8').slice(-2_000)}`)));
  });
}

async function startFabricTarget(files) {
  const started = await startFabric(fabric.binary, fabricTlsEnv(files, false));
  children.push(started.child);
  return { name: 'fabric', child: started.child, port: started.port, logFile: null, peakRssMiB: 0 };
}

function stopServer(target) {
  if (!target || target.child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    target.child.once('exit', resolve);
    target.child.kill('SIGTERM');
    setTimeout(() => target.child.kill('SIGKILL'), 5_000).unref();
  });
}

const key = (cell) => `${cell.method} ${cell.path} ${cell.auth}`;

/**
 * Runs the load generator against `target` (lib/server-load.mjs: the server's CPU is sampled
 * around exactly the measured requests) and keeps the target's peak RSS.
 */
async function runLoad(target, options) {
  const result = await runServerLoad(target.child.pid, options);
  target.peakRssMiB = Math.max(target.peakRssMiB, result.peakRssMiB);
  return result;
}

function connectionsFor(cell) {
  if (cell.mode !== 'keepalive') return CONNECT_CONCURRENCY;
  return cell.path === '/metrics' ? METRICS_CONNECTIONS : KEEPALIVE_CONNECTIONS;
}

function loadOptions(target, cell, tls, extra = {}) {
  return {
    host: '127.0.0.1',
    port: target.port,
    path: cell.path,
    method: cell.method,
    body: cell.body ?? '',
    mode: cell.mode,
    seconds: SECONDS,
    tls: cell.auth === 'mtls' ? tls : { ca: tls.ca },
    connections: connectionsFor(cell),
    ...extra,
  };
}

function versionOf(command, args) {
  try {
    return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

function describeMachine(goVersion) {
  const osRelease = (() => {
    try {
      return /^PRETTY_NAME="?([^"\n]*)"?/m.exec(readFileSync('/etc/os-release', 'utf8'))?.[1];
    } catch {
      return undefined;
    }
  })();
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model?.trim() ?? 'cpu',
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    os: osRelease ?? 'unknown',
    kernel: release(),
    node: process.version,
    openssl: process.versions.openssl,
    go: goVersion ?? null,
    podman: versionOf('podman', ['--version'])?.replace(/^podman version /, '') ?? null,
  };
}

const cellLabel = (cell) =>
  `${cell.method} ${cell.path}${cell.group === 'peer' ? '' : ` (${cell.group})`} · ${cell.auth === 'mtls' ? 'mTLS' : 'TLS'} · ${cell.mode === 'keepalive' ? 'keep-alive' : 'new conn'}`;

try {
  const loadBefore = loadavg();
  const startedAt = new Date();
  const pki = createBenchPki(dir);
  const tls = pki.client;
  const files = pki.files;

  process.stdout.write('building the Go baseline (bench/go-hello)…\n');
  const go = await buildGoHello(dir);
  if (go.error) process.stdout.write(`no Go baseline: ${go.error}\n`);
  else process.stdout.write(`Go baseline built with ${go.version}\n`);

  runtime = await startPodmanService(dir);
  writePeerConfig(dir, { tls: files, runtimeEndpoint: runtime.endpoint });
  // The same peer with no runtime endpoint, so no docker checker: its /healthz answers from an empty
  // registry, which is what the raw twin's replayed bytes cost too. The peer group's /healthz pings a
  // real podman per run (coalesced across waiting requests), work raw never does; this line is the
  // request path's own cost, and the difference between the two lines is the checker's.
  const noCheckerDir = writePeerConfig(join(dir, 'no-checker'), { tls: files });

  const keepAliveCells = [
    ...['tls', 'mtls'].flatMap((auth) => ['/version', '/logspec', '/livez', '/readyz'].map((path) => ({ method: 'GET', path, auth, mode: 'keepalive' }))),
    { method: 'GET', path: '/metrics', auth: 'mtls', mode: 'keepalive' },
    { method: 'PUT', path: '/logspec', auth: 'mtls', mode: 'keepalive', body: PUT_BODY },
    { method: 'GET', path: '/healthz', auth: 'mtls', mode: 'keepalive' },
  ];
  const connectCells = QUICK ? [] : ['/version', '/logspec', '/healthz', '/metrics'].map((path) => ({ method: 'GET', path, auth: 'mtls', mode: 'connect' }));
  const groups = [
    {
      name: 'peer',
      start: () => startServer('peer', process.execPath, [peerBin], { FABRIC_CFG_PATH: dir, FABRIC_LOGGING_SPEC: 'peer.operations=info:warn' }),
      cells: [...keepAliveCells, ...connectCells],
      rss: true,
    },
    {
      name: 'no checker',
      start: () => startServer('peer, no checker', process.execPath, [peerBin], { FABRIC_CFG_PATH: noCheckerDir, FABRIC_LOGGING_SPEC: 'peer.operations=info:warn' }),
      cells: [{ method: 'GET', path: '/healthz', auth: 'mtls', mode: 'keepalive' }],
      rss: false,
    },
    ...(QUICK ? [] : [1_000, 10_000]).map((extraSeries) => ({
      name: `+${extraSeries} series`,
      start: () => startServer(`ops +${extraSeries}`, process.execPath, [here('./lib/ops-target.mjs'), JSON.stringify({ ...files, runtimeEndpoint: runtime.endpoint, extraSeries })]),
      cells: [{ method: 'GET', path: '/metrics', auth: 'mtls', mode: 'keepalive' }],
      rss: false,
    })),
  ];

  if (ONLY.length > 0) {
    for (const group of groups) {
      group.cells = group.cells.filter((cell) => ONLY.some((text) => cellLabel({ ...cell, group: group.name }).includes(text)));
      // The RSS readings are no cell: a filtered run measures only what it names, unless
      // BENCH_RSS=1 asks for them too (the peer group's idle and after-load readings).
      group.rss &&= KEEP_RSS;
    }
    process.stdout.write(`only the cells matching ${ONLY.map((t) => JSON.stringify(t)).join(', ')} (BENCH_ONLY)\n`);
  }
  const cells = [];
  const rss = [];
  for (const group of groups.filter((g) => g.cells.length > 0)) {
    const ours = await group.start();
    await new Promise((r) => setTimeout(r, 1_000));
    const responses = {};
    for (const cell of group.cells) responses[key(cell)] ??= await fetchOnce(ours.port, cell, cell.auth === 'mtls' ? tls : { ca: tls.ca });
    const responsesFile = join(dir, `responses-${cells.length}.json`);
    writeFileSync(responsesFile, JSON.stringify(responses));
    const twinOptions = JSON.stringify({ ...files, responsesFile, clientAuthRequired: false });
    const targets = [
      ours,
      await startServer(`raw ${group.name}`, process.execPath, [here('./lib/raw-target.mjs'), twinOptions]),
      ...(go.binary ? [await startServer(`go ${group.name}`, go.binary, [twinOptions])] : []),
    ];
    ours.name = 'ours';
    targets[1].name = 'raw';
    if (targets[2]) targets[2].name = 'go';
    const fabricTarget = group.name === 'peer' && fabric.binary ? await startFabricTarget(files) : undefined;
    if (fabricTarget) targets.push(fabricTarget);
    const fabricServes = (cell) => fabricTarget !== undefined && FABRIC_PATHS.has(cell.path) && cell.method === 'GET';
    // Fabric answers with its own bytes: its status is the one each of its rounds is checked against.
    const fabricStatus = {};
    if (fabricTarget) for (const cell of group.cells.filter(fabricServes)) fabricStatus[key(cell)] ??= (await fetchOnce(fabricTarget.port, cell, cell.auth === 'mtls' ? tls : { ca: tls.ca })).status;
    await new Promise((r) => setTimeout(r, 500));

    if (group.rss) {
      // RSS idle, then after a fixed number of keep-alive requests (GET /version over mutual TLS).
      const rssCell = { method: 'GET', path: '/version', auth: 'mtls', mode: 'keepalive' };
      for (const target of targets) {
        const idleMiB = rssMiB(target.child.pid);
        const result = await runLoad(target, loadOptions(target, rssCell, tls, { seconds: 600, requests: RSS_REQUESTS }));
        rss.push({ target: target.name, idleMiB, afterMiB: rssMiB(target.child.pid), requests: result.completed, failed: result.failed });
        process.stdout.write(`  RSS ${target.name}: ${idleMiB.toFixed(0)} MiB idle, ${rss.at(-1).afterMiB.toFixed(0)} MiB after ${result.completed} requests\n`);
      }
    }

    for (const cell of group.cells) {
      const expected = responses[key(cell)];
      const entry = {
        group: group.name,
        label: cellLabel({ ...cell, group: group.name }),
        ...cell,
        connections: connectionsFor(cell),
        status: expected.status,
        bytes: Buffer.from(expected.body, 'base64').length,
        rounds: {},
      };
      const cellTargets = targets.filter((target) => target !== fabricTarget || fabricServes(cell));
      for (const target of cellTargets) entry.rounds[target.name] = [];
      if (WARMUP_SECONDS > 0) for (const target of cellTargets) await runLoad(target, loadOptions(target, cell, tls, { seconds: WARMUP_SECONDS }));
      for (let round = 0; round < ROUNDS; round++) {
        // Every other round runs the targets in reverse, so ours and raw take turns at running first
        // (next to each other either way) and a load that rises or falls through a round favours neither.
        for (const target of round % 2 === 0 ? cellTargets : [...cellTargets].reverse()) {
          const r = await runLoad(target, loadOptions(target, cell, tls));
          const wanted = target === fabricTarget ? fabricStatus[key(cell)] : expected.status;
          const wrong = Object.entries(r.statuses).reduce((n, [status, count]) => (Number(status) === wanted ? n : n + count), 0);
          entry.rounds[target.name].push({ rps: r.rps, p50ms: r.p50ms, p99ms: r.p99ms, cpuUsPerRequest: r.cpuUsPerRequest, completed: r.completed, errors: r.failed + wrong, statuses: r.statuses });
        }
      }
      entry.median = Object.fromEntries(
        Object.entries(entry.rounds).map(([name, rounds]) => [
          name,
          {
            rps: median(rounds.map((r) => r.rps)),
            p50ms: median(rounds.map((r) => r.p50ms)),
            p99ms: median(rounds.map((r) => r.p99ms)),
            cpuUsPerRequest: median(rounds.map((r) => r.cpuUsPerRequest)),
            errors: rounds.reduce((n, r) => n + r.errors, 0),
          },
        ]),
      );
      const m = entry.median;
      entry.ratios = {
        rpsOursToRaw: m.ours.rps / m.raw.rps,
        rpsOursToGo: m.go ? m.ours.rps / m.go.rps : null,
        cpuOursToRaw: m.ours.cpuUsPerRequest / m.raw.cpuUsPerRequest,
        cpuOursToGo: m.go ? m.ours.cpuUsPerRequest / m.go.cpuUsPerRequest : null,
        cpuOursToFabric: m.fabric ? m.ours.cpuUsPerRequest / m.fabric.cpuUsPerRequest : null,
      };
      entry.rawSpread = Math.max(...entry.rounds.raw.map((r) => Math.abs(r.rps / m.raw.rps - 1)));
      // Efficiency from each round's own pair (raw's CPU per request ÷ ours, measured back to back),
      // then the median: on a shared machine the load moves between rounds, and a ratio of two
      // medians can pair a quiet round of one target with a busy round of the other.
      const paired = entry.rounds.ours.map((r, i) => entry.rounds.raw[i].cpuUsPerRequest / r.cpuUsPerRequest);
      entry.pairedEfficiencyVsRaw = { median: median(paired), min: Math.min(...paired), max: Math.max(...paired) };
      cells.push(entry);
      process.stdout.write(`  ${entry.label}: ${cellTargets.map((t) => `${t.name} ${Math.round(m[t.name].rps)} req/s ${m[t.name].cpuUsPerRequest.toFixed(1)} µs`).join(', ')}\n`);
    }
    if (group.rss) {
      for (const target of targets) {
        const entry = rss.find((r) => r.target === target.name);
        if (entry) entry.peakMiB = target.peakRssMiB;
      }
    }
    await Promise.all(targets.map(stopServer));
  }

  const loadAfter = loadavg();
  const maxRawSpread = Math.max(...cells.map((c) => c.rawSpread));
  const reasons = [];
  if (!(loadBefore[0] < QUIET_LOAD_AVERAGE)) reasons.push(`load average ${loadBefore[0].toFixed(2)} before the run (quiet: < ${QUIET_LOAD_AVERAGE})`);
  if (!(maxRawSpread <= QUIET_RAW_SPREAD)) {
    const worst = cells.reduce((a, b) => (b.rawSpread > a.rawSpread ? b : a));
    reasons.push(`raw node:https req/s varied ±${(maxRawSpread * 100).toFixed(0)} % from its median across rounds (${worst.label}; quiet: ±${QUIET_RAW_SPREAD * 100} %)`);
  }
  const quiet = { quiet: reasons.length === 0, loadAverageBefore: loadBefore[0], maxRawSpread, reasons };
  const machine = describeMachine(go.version);

  const fmt = (n, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : '–');
  const ratio = (n) => (Number.isFinite(n) ? `${n.toFixed(2)}×` : '–');
  const notGiven = fabric.missing ?? 'no route';
  const header =
    '| cell | status | bytes | ours req/s | ours p50 / p99 ms | ours µs CPU/req | raw req/s | raw µs CPU/req | Go req/s | Go µs CPU/req | Fabric req/s | Fabric µs CPU/req | req/s ours/raw | req/s ours/Go | CPU ours/raw | CPU ours/Go | CPU ours/Fabric | ours errors |';
  const lines = [header, '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|'];
  for (const c of cells) {
    const { ours, raw } = c.median;
    const goM = c.median.go ?? {};
    const fab = c.median.fabric;
    lines.push(
      `| ${c.label} | ${c.status} | ${c.bytes} | ${fmt(ours.rps)} | ${fmt(ours.p50ms, 2)} / ${fmt(ours.p99ms, 2)} | ${fmt(ours.cpuUsPerRequest, 1)} | ${fmt(raw.rps)} | ${fmt(raw.cpuUsPerRequest, 1)} | ${fmt(goM.rps)} | ${fmt(goM.cpuUsPerRequest, 1)} | ${fab ? fmt(fab.rps) : notGiven} | ${fab ? fmt(fab.cpuUsPerRequest, 1) : notGiven} | ${ratio(c.ratios.rpsOursToRaw)} | ${ratio(c.ratios.rpsOursToGo)} | ${ratio(c.ratios.cpuOursToRaw)} | ${ratio(c.ratios.cpuOursToGo)} | ${fab ? ratio(c.ratios.cpuOursToFabric) : notGiven} | ${ours.errors} |`,
    );
  }
  // The keep-alive goals: CPU efficiency (raw's CPU per request / ours) ≥ 0.95 on the same
  // bytes; against Fabric's (its own bytes) as the stretch; /metrics against Fabric.
  const goalLines = ['| cell | efficiency vs raw (goal ≥ 0.95) | round by round: median (range) | efficiency vs Fabric (stretch ≥ 1.00) |', '|---|---|---|---|'];
  const goalCell = (cell) =>
    cell.mode === 'keepalive' && cell.auth === 'mtls' && cell.method === 'GET' && ((cell.group === 'peer' && FABRIC_PATHS.has(cell.path)) || (cell.group === 'no checker' && cell.path === '/healthz'));
  for (const c of cells.filter(goalCell)) {
    const { ours, raw, fabric: fab } = c.median;
    const vsRaw = raw.cpuUsPerRequest / ours.cpuUsPerRequest;
    const vsFabric = fab ? fab.cpuUsPerRequest / ours.cpuUsPerRequest : Number.NaN;
    const verdict = (value, goal) => (!Number.isFinite(value) ? notGiven : value >= goal ? `${value.toFixed(2)}, met` : `${value.toFixed(2)}, missed by ${(goal - value).toFixed(2)}`);
    // With the docker checker, /healthz also pings podman (raw replays the bytes): the goal is the no-checker line's.
    const pinged = c.path === '/healthz' && c.group === 'peer';
    const vsRawText =
      c.path === '/metrics' ? `${ratio(vsRaw)} (raw replays the page: no goal)` : pinged ? `${vsRaw.toFixed(2)} (pings podman, raw replays: no goal; see the no-checker line)` : verdict(vsRaw, 0.95);
    const pairs = c.pairedEfficiencyVsRaw;
    goalLines.push(`| ${c.label} | ${vsRawText} | ${pairs.median.toFixed(2)} (${pairs.min.toFixed(2)}–${pairs.max.toFixed(2)}) | ${verdict(vsFabric, 1)} |`);
  }
  const rssLines = ['| server | RSS idle MiB | RSS after keep-alive requests MiB | requests | peak during the cells MiB |', '|---|---:|---:|---:|---:|'];
  for (const r of rss) rssLines.push(`| ${r.target} | ${fmt(r.idleMiB)} | ${fmt(r.afterMiB)} | ${r.requests} | ${fmt(r.peakMiB)} |`);
  const machineLine = `${machine.cpus} × ${machine.cpuModel}, ${machine.memoryGiB} GiB, ${machine.os}, Linux ${machine.kernel}, Node ${machine.node} (OpenSSL ${machine.openssl}), ${machine.go ?? 'no Go'}`;
  process.stdout.write(
    [
      '',
      `Operations server (ours) vs raw node:https vs Go net/http, same bytes, same certificates${QUICK ? ' — QUICK MODE' : ''}`,
      `Medians of ${ROUNDS} rounds × ${SECONDS} s per target after ${WARMUP_SECONDS} s of unmeasured warm-up, targets alternated round by round; ${KEEPALIVE_CONNECTIONS} keep-alive connections (${METRICS_CONNECTIONS} for /metrics) or ${CONNECT_CONCURRENCY} concurrent new connections; CPU is the server process's user+system time over the measured requests.`,
      `Machine: ${machineLine}`,
      `Load average (1 min) before ${loadBefore[0].toFixed(2)}, after ${loadAfter[0].toFixed(2)}. Quiet: ${quiet.quiet ? 'yes' : `no — ${reasons.join('; ')}`}`,
      '',
      ...lines,
      '',
      "Keep-alive goals (mutual TLS; efficiency = the other server's CPU per request / ours, so > 1 is cheaper than it):",
      ...goalLines,
      '',
      ...rssLines,
      '',
    ].join('\n'),
  );

  const results = here('./results/');
  mkdirSync(results, { recursive: true });
  const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
  const json = JSON.stringify(
    {
      date: startedAt.toISOString(),
      quick: QUICK,
      seconds: SECONDS,
      rounds: ROUNDS,
      warmupSeconds: WARMUP_SECONDS,
      only: ONLY,
      keepAliveConnections: KEEPALIVE_CONNECTIONS,
      metricsConnections: METRICS_CONNECTIONS,
      connectConcurrency: CONNECT_CONCURRENCY,
      machine,
      loadAverageBefore: loadBefore,
      loadAverageAfter: loadAfter,
      quiet,
      rss,
      cells,
    },
    null,
    2,
  );
  writeFileSync(join(results, `suite-${stamp}.json`), `${json}\n`);
  // latest.json is the whole suite's; a filtered run leaves it alone.
  if (ONLY.length === 0) writeFileSync(join(results, 'latest.json'), `${json}\n`);
  process.stdout.write(`\nwritten: bench/results/suite-${stamp}.json${ONLY.length === 0 ? ' and bench/results/latest.json' : ''}\n`);
} finally {
  await cleanup();
}
