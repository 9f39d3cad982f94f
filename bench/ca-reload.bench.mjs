// What a client CA reload costs the event loop that serves requests: an ops-tls-auth server
// (createTlsServer, stand-ins on, as the peer runs it) and its credential reloader, in this
// process, with a client CA file of BENCH_CAS (301 and 2,001) small self-signed P-256 CAs; the
// file is rewritten in turn with two sets of as many CAs (every reload's CAs are new: the
// dearest case, a stand-in made for each). Per case, ROUNDS reloads each way:
//   - "file change": what a rotation does now (the reloader's poll sees the change; the CA
//     certificates are parsed on a thread of their own; the Go-rules pool for inline checks is
//     built in slices),
//   - "reload() on the loop": the synchronous `reload()` (the CA parse on the event loop, as a
//     file change did before), for comparison in the same run,
// printed: the longest single block of the event loop (the largest gap between 1 ms timers,
// less 1 ms) and the event loop's busy time (eventLoopUtilization) from the write to the
// credentials being applied; and, alone, the parts that stay on the loop: setSecureContext with
// the stand-ins (OpenSSL's parse of the CA list, which Node does only synchronously), the
// stand-ins themselves, and the Go-rules pool built in one stretch (what the inline pool cost
// each reload before it was sliced; only trust of at most 256 KiB gets one).
// Run after a build (it loads dist/): node bench/ca-reload.bench.mjs, or
// `node bench/run.mjs ca-reload --lines 20,24`.
//   BENCH_CAS ("301,2001"), BENCH_ROUNDS (3)
import './lib/fail.mjs';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createSecureContext } from 'node:tls';
import { createClientTrustPool } from '@fabric-ops/go-x509';
import { createCredentialReloader, createTlsServer, loadTlsCredentials } from '../packages/ops-tls-auth/dist/index.js';
import { createBenchPki } from './lib/pki.mjs';
import { tinyChain } from './lib/tiny-chain.mjs';

const COUNTS = (process.env.BENCH_CAS ?? '301,2001').split(',').map(Number);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const dir = mkdtempSync(join(tmpdir(), 'ca-reload-'));
const pki = createBenchPki(dir);

/** `count` CAs: tinyChain's list without its leaf. */
const cas = (count) =>
  tinyChain(count + 1, 300)
    .cert.split(/(?=-----BEGIN CERTIFICATE-----)/)
    .slice(1)
    .join('');

/** The longest gap between 1 ms timers and the loop's busy time while `run` (which resolves when the reload is applied) runs. */
async function watchLoop(run) {
  let longest = 0;
  let last = performance.now();
  let ticking = true;
  const tick = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last - 1);
    last = now;
    if (ticking) setTimeout(tick, 1);
  };
  setTimeout(tick, 1);
  await new Promise((r) => setTimeout(r, 20));
  longest = 0;
  const started = performance.eventLoopUtilization();
  await run();
  const busy = performance.eventLoopUtilization(started).active;
  // the timer after a block is what measures it
  await new Promise((r) => setTimeout(r, 30));
  ticking = false;
  return { longest, busy };
}

const ms = (value) => `${value.toFixed(0).padStart(5)} ms`;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

console.log(
  `node ${process.version} (OpenSSL ${process.versions.openssl}), load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
try {
  for (const count of COUNTS) {
    const sets = [cas(count), cas(count)];
    const caFile = join(dir, `cas-${count}.pem`);
    writeFileSync(caFile, sets[1]);
    const settings = { certFile: pki.files.certFile, keyFile: pki.files.keyFile, clientRootCAs: [caFile] };
    const credentials = loadTlsCredentials(settings);
    const tls = createTlsServer({ credentials });
    let applied = () => {};
    let applies = 0;
    const reloaderWith = (watchFiles) =>
      createCredentialReloader({
        settings,
        apply: (next) => {
          tls.setCredentials(next);
          applies += 1;
          applied();
        },
        onReloadFailed: (error) => {
          throw error;
        },
        watchFiles,
        pollIntervalMs: 20,
        debounceMs: 0,
        reloadOnSighup: false,
      });
    const reloader = reloaderWith(true);
    const direct = reloaderWith(false);
    const rows = { change: [], sync: [] };
    for (let round = 0; round < ROUNDS * 2; round++) {
      const text = sets[round % 2];
      if (round % 2 === 0) {
        // the poll sees the write: the reload runs on a timer, as in the peer
        rows.change.push(
          await watchLoop(() => {
            const done = new Promise((resolve) => (applied = resolve));
            writeFileSync(caFile, text);
            return done;
          }),
        );
      } else {
        const before = applies;
        rows.sync.push(
          await watchLoop(async () => {
            writeFileSync(caFile, text);
            direct.reload();
          }),
        );
        // the watching reloader sees this write too: its reload ends before the next round
        while (applies < before + 2) await new Promise((r) => setTimeout(r, 10));
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    reloader.close();
    direct.close();
    tls.server.close();
    const parts = {};
    const time = (label, run) => {
      const started = performance.now();
      run();
      parts[label] = performance.now() - started;
    };
    const next = loadTlsCredentials({ ...settings });
    time('setSecureContext', () => createSecureContext({ cert: next.cert, key: next.key, ca: next.ca }));
    time('pool in one stretch', () => createClientTrustPool(next.clientCaFiles));
    for (const [name, list] of [
      ['file change', rows.change],
      ['reload() on the loop', rows.sync],
    ]) {
      console.log(
        `${String(count).padStart(5)} CAs  ${name.padEnd(21)} longest block ${ms(median(list.map((r) => r.longest)))} (max ${ms(Math.max(...list.map((r) => r.longest)))})  loop busy ${ms(median(list.map((r) => r.busy)))}`,
      );
    }
    console.log(`${String(count).padStart(5)} CAs  alone: createSecureContext with the real CAs ${ms(parts.setSecureContext)}, the Go-rules pool in one stretch ${ms(parts['pool in one stretch'])}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(
  `load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
