// The handshake figures, in one run:
//  1. server CPU per request when every request opens a new mutual-TLS connection (one GET
//     /version, then close; 16 concurrent loops) for the peer bin, raw node:https with
//     requestCert + ca, Fabric's own operations server (FABRIC_OPS_BENCH_FABRIC, lib/fabric.mjs)
//     and the Go net/http hello; with one client certificate (what a reconnecting client costs: the
//     peer's verdict cache may answer) and with a fleet of certificates (each connection the next
//     one: what a fleet of clients costs). Medians of alternating rounds; the TLS version each
//     negotiated is printed.
//  2. handshake latency from TCP dial to verdict (the first response byte of one GET on a new
//     connection, each with a certificate of its own) for the peer, raw node:https mTLS (Node's
//     floor: OpenSSL verifying with the same file) and Fabric, with a control
//     client-CA file and with files holding 60 and 110 same-name decoy CAs before the real one
//     (the differential corpus's `decoys` class, lib/pki.mjs decoyCaFiles).
// Goals: new-connection CPU ≤ 1.5× Fabric's and never above raw node mTLS; handshake
// latency within 1.5× Fabric's. Every verdict is printed with its distance.
//   BENCH_SECONDS (5) one round of one target; BENCH_ROUNDS (3); BENCH_HANDSHAKES (40) sequential
//   handshakes per server and client-CA file; BENCH_FLEET (100) client certificates.
// Needs the built bin (node scripts/build.mjs) and openssl; Go is optional (its column says why not).
import './lib/fail.mjs';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect, createSecureContext } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { fabricReference, fabricTlsEnv, startFabric } from './lib/fabric.mjs';
import { fetchOnce } from './lib/fetch-once.mjs';
import { buildGoHello } from './lib/go-hello.mjs';
import { startListening, startPeer, stopProcess, writePeerConfig } from './lib/peer.mjs';
import { createBenchPki, decoyCaFiles, issueClientFleet } from './lib/pki.mjs';
import { median } from './lib/proc.mjs';
import { runServerLoad } from './lib/server-load.mjs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const HANDSHAKES = Math.max(1, Number(process.env.BENCH_HANDSHAKES ?? 40));
const FLEET = Math.max(HANDSHAKES + 3, Number(process.env.BENCH_FLEET ?? 100));
const CONNECT_CONCURRENCY = 16;
/** The peer bin with FABRIC_OPS_TLS_CA_STAND_INS=off: OpenSSL gets the real client CAs (ops-tls-auth's stand-ins off). */
const REAL_CAS = 'peer, real CAs';
const DECOY_COUNTS = [60, 110];
const here = (f) => fileURLToPath(new URL(f, import.meta.url));

const dir = mkdtempSync(join(tmpdir(), 'fabric-ops-bench-handshake-'));
const running = new Set();
async function cleanup() {
  await Promise.all([...running].map(stopProcess));
  rmSync(dir, { recursive: true, force: true });
}
process.on('SIGINT', () => cleanup().finally(() => process.exit(130)));
const track = (server) => (running.add(server.child), server);
const stop = async (server) => {
  await stopProcess(server.child);
  running.delete(server.child);
};

const fabric = fabricReference();
const fmt = (n, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : '–');

/** The TLS version and cipher a target negotiates with a client certificate. */
function negotiated(port, client) {
  return new Promise((resolve) => {
    const socket = tlsConnect({ host: '127.0.0.1', port, ...client, servername: 'localhost' }, () => {
      resolve(`${socket.getProtocol()} ${socket.getCipher()?.name ?? ''}`.trim());
      socket.destroy();
    });
    socket.once('error', (error) => resolve(`no handshake: ${error.message}`));
  });
}

/**
 * Time from TCP dial to the first byte of the answer to one GET /version on a new mutual-TLS
 * connection: with TLS 1.3 the server judges the client's chain after its own Finished, so the
 * answer's first byte is the verdict's moment.
 */
function handshakeOnce(port, secureContext) {
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = tlsConnect({ host: '127.0.0.1', port, secureContext, servername: 'localhost' });
    let settled = false;
    const settle = (result) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(15_000, () => settle({ error: 'no answer within 15 s' }));
    socket.once('secureConnect', () => socket.write(`GET /version HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`));
    socket.once('data', (chunk) => settle({ ms: performance.now() - started, status: Number(chunk.toString('latin1', 9, 12)) }));
    socket.once('error', (error) => settle({ error: error.code ?? error.message }));
    socket.once('close', () => settle({ error: 'closed without an answer' }));
  });
}

const at = (sorted, q) => (sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]);

async function handshakeLatency(port, contexts) {
  for (const context of contexts.slice(-3)) await handshakeOnce(port, context); // warm-up: code paths, not verdicts
  const times = [];
  const errors = {};
  for (const context of contexts.slice(0, HANDSHAKES)) {
    const r = await handshakeOnce(port, context);
    if (r.status === 200) times.push(r.ms);
    else errors[r.error ?? `status ${r.status}`] = (errors[r.error ?? `status ${r.status}`] ?? 0) + 1;
  }
  times.sort((a, b) => a - b);
  return { p50: at(times, 0.5), p90: at(times, 0.9), admitted: times.length, errors };
}

const ratioVerdict = (ratio, limit) => (!Number.isFinite(ratio) ? 'no figure' : ratio <= limit ? `met (${ratio.toFixed(2)}×)` : `missed by ${(ratio - limit).toFixed(2)}× (${ratio.toFixed(2)}×)`);

try {
  console.log(`node ${process.version}, load average ${loadavg()[0].toFixed(2)} at the start; Fabric reference: ${fabric.binary ?? fabric.missing}`);
  const pki = createBenchPki(dir);
  const files = pki.files;
  console.log(`making ${FLEET} client certificates and ${DECOY_COUNTS.join(' and ')} decoy CAs (openssl, once per run)…`);
  const fleet = issueClientFleet(pki, FLEET);
  const decoys = decoyCaFiles(pki, DECOY_COUNTS);
  const go = await buildGoHello(dir);

  // ---- 1. CPU per request, a new mutual-TLS connection each
  const peer = track(await startPeer(writePeerConfig(join(dir, 'peer-control'), { tls: files })));
  const answer = await fetchOnce(peer.port, { method: 'GET', path: '/version' }, pki.client);
  const responsesFile = join(dir, 'responses.json');
  writeFileSync(responsesFile, JSON.stringify({ 'GET /version mtls': answer, 'GET /version tls': answer }));
  const twinOptions = JSON.stringify({ ...files, responsesFile, clientAuthRequired: false });
  const targets = [
    { name: 'peer', server: peer },
    // the same bin with the real client CAs handed to OpenSSL: the stand-ins' before/after in one run
    { name: REAL_CAS, server: track(await startPeer(writePeerConfig(join(dir, 'peer-real-cas'), { tls: files }), { env: { FABRIC_OPS_TLS_CA_STAND_INS: 'off' } })) },
    { name: 'raw node mTLS', server: track(await startListening('raw-target.mjs', process.execPath, [here('./lib/raw-target.mjs'), twinOptions])) },
    ...(fabric.binary ? [{ name: 'Fabric', server: track(await startFabric(fabric.binary, fabricTlsEnv(files, false))) }] : []),
    ...(go.binary ? [{ name: 'Go hello', server: track(await startListening('go-hello', go.binary, [twinOptions])) }] : []),
  ];
  console.log('\nTLS negotiated (client with a certificate):');
  for (const t of targets) console.log(`  ${t.name}: ${await negotiated(t.server.port, pki.client)}`);
  if (!fabric.binary) console.log(`  Fabric: ${fabric.missing}`);
  if (!go.binary) console.log(`  Go hello: ${go.error}`);

  const variants = [
    { name: 'one certificate', tls: pki.client },
    { name: `fleet of ${FLEET}`, tls: { ca: pki.client.ca, fleet: fleet.map(({ cert, key }) => ({ cert, key })) } },
  ];
  const cpu = {};
  for (const variant of variants) {
    const options = (port, seconds) => ({ host: '127.0.0.1', port, path: '/version', mode: 'connect', connections: CONNECT_CONCURRENCY, seconds, tls: variant.tls });
    for (const t of targets) await runServerLoad(t.server.child.pid, options(t.server.port, Math.min(1, SECONDS)));
    const rounds = Object.fromEntries(targets.map((t) => [t.name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const t of targets) rounds[t.name].push(await runServerLoad(t.server.child.pid, options(t.server.port, SECONDS)));
    }
    cpu[variant.name] = Object.fromEntries(
      Object.entries(rounds).map(([name, rs]) => [
        name,
        { us: median(rs.map((r) => r.cpuUsPerRequest)), rps: median(rs.map((r) => r.rps)), failed: rs.reduce((n, r) => n + r.failed, 0), completed: rs.reduce((n, r) => n + r.completed, 0) },
      ]),
    );
  }
  for (const t of targets) await stop(t.server);

  const names = ['peer', REAL_CAS, 'raw node mTLS', 'Fabric', 'Go hello'];
  console.log(
    `\nNew mutual-TLS connection per request (GET /version, ${CONNECT_CONCURRENCY} concurrent loops), server CPU µs/request, medians of ${ROUNDS} × ${SECONDS} s alternating; load average ${loadavg()[0].toFixed(2)}`,
  );
  console.log(`| client certificates | ${names.join(' | ')} | peer/Fabric (goal ≤ 1.5×) | peer/raw (goal ≤ 1.00×) | stand-ins on/off | connections completed (failed) |`);
  console.log(`|---|${names.map(() => '---:').join('|')}|---|---|---|---|`);
  for (const variant of variants) {
    const c = cpu[variant.name];
    const us = (name) => (c[name] ? fmt(c[name].us) : name === 'Fabric' ? fabric.missing : 'not run');
    const toFabric = c.Fabric ? c.peer.us / c.Fabric.us : Number.NaN;
    const toRaw = c.peer.us / c['raw node mTLS'].us;
    const counts = Object.entries(c)
      .map(([name, v]) => `${name} ${v.completed} (${v.failed})`)
      .join(', ');
    const onOff = `${fmt(c.peer.us / c[REAL_CAS].us, 2)}×`;
    console.log(`| ${variant.name} | ${names.map(us).join(' | ')} | ${c.Fabric ? ratioVerdict(toFabric, 1.5) : fabric.missing} | ${ratioVerdict(toRaw, 1)} | ${onOff} | ${counts} |`);
  }
  console.log(`(the fleet is cache-free only while a server sees at most ${FLEET} connections per verdict-cache lifetime; the counts above say how many it saw)`);

  // ---- 2. Handshake latency, dial to verdict
  const contexts = fleet.map((client) => createSecureContext(client));
  const caFiles = [['control (the CA alone)', files.caFile], ...DECOY_COUNTS.map((n) => [`${n} same-name decoys`, decoys[n]])];
  const latency = [];
  for (const [label, caFile] of caFiles) {
    const tls = { ...files, caFiles: [caFile] };
    const row = { label };
    const p = track(await startPeer(writePeerConfig(join(dir, `peer-${latency.length}`), { tls })));
    row.peer = await handshakeLatency(p.port, contexts);
    await stop(p);
    const real = track(await startPeer(writePeerConfig(join(dir, `peer-real-${latency.length}`), { tls }), { env: { FABRIC_OPS_TLS_CA_STAND_INS: 'off' } }));
    row.real = await handshakeLatency(real.port, contexts);
    await stop(real);
    // Node's floor: raw node:https with the same client-CA file (OpenSSL verifies, nothing else runs).
    const raw = track(await startListening('raw-target.mjs', process.execPath, [here('./lib/raw-target.mjs'), JSON.stringify({ ...files, caFile, responsesFile, clientAuthRequired: false })]));
    row.raw = await handshakeLatency(raw.port, contexts);
    await stop(raw);
    if (fabric.binary) {
      const f = track(await startFabric(fabric.binary, fabricTlsEnv(tls, false)));
      row.fabric = await handshakeLatency(f.port, contexts);
      await stop(f);
    }
    latency.push(row);
  }
  const cell = (r) =>
    r === undefined
      ? fabric.missing
      : `${fmt(r.p50, 1)} / ${fmt(r.p90, 1)} ms, ${r.admitted}/${HANDSHAKES}${
          Object.keys(r.errors).length > 0
            ? ` (${Object.entries(r.errors)
                .map(([e, n]) => `${n}× ${e}`)
                .join(', ')})`
            : ''
        }`;
  console.log(
    `\nHandshake latency, TCP dial to the first response byte of GET /version on a new connection, ${HANDSHAKES} in a row, each with its own certificate; load average ${loadavg()[0].toFixed(2)}`,
  );
  console.log(
    `| client-CA file | peer p50 / p90, admitted | ${REAL_CAS} p50 / p90, admitted | raw node mTLS p50 / p90, admitted | Fabric p50 / p90, admitted | peer/Fabric p50 (goal ≤ 1.5×) | peer/Fabric p90 | raw node/Fabric p50 (Node's floor) | peer/raw p50 |`,
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const row of latency) {
    const p50 = row.fabric ? row.peer.p50 / row.fabric.p50 : Number.NaN;
    const p90 = row.fabric ? row.peer.p90 / row.fabric.p90 : Number.NaN;
    console.log(
      `| ${row.label} | ${cell(row.peer)} | ${cell(row.real)} | ${cell(row.raw)} | ${cell(row.fabric)} | ${row.fabric ? ratioVerdict(p50, 1.5) : fabric.missing} | ${row.fabric ? fmt(p90, 2) + '×' : fabric.missing} | ${row.fabric ? fmt(row.raw.p50 / row.fabric.p50, 2) + '×' : fabric.missing} | ${fmt(row.peer.p50 / row.raw.p50, 2)}× |`,
    );
  }
} finally {
  await cleanup();
}
