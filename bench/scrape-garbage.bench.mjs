// What one /metrics scrape leaves for the garbage collector: bytes allocated and bytes
// promoted to old space per scrape, with a small young generation (2 MiB semi-spaces, what
// `--max-semi-space-size=2` gives; V8's default grows larger and promotes less)
// and other requests' garbage in between scrapes, so scavenges land at arbitrary points of
// a scrape as they do in the bin. Reads V8's own accounting (--trace-gc-nvp: `allocated=`,
// `promoted=` per scavenge) and old space's used bytes after forced full collections.
// Run after a build (it loads dist/): node bench/scrape-garbage.bench.mjs
//   SCRAPES=20000       scrapes per run
//   FILLER_BYTES=24000  short-lived garbage made between two scrapes (the other requests)
//   CONCURRENT=1        scrapes started together each round (their bodies must all be complete)
//   RUNTIME=0           without the runtime series (to tell their share)
import './lib/fail.mjs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SCRAPES = Number(process.env.SCRAPES ?? 20_000);
const FILLER_BYTES = Number(process.env.FILLER_BYTES ?? 24_000);
const CONCURRENT = Number(process.env.CONCURRENT ?? 1);

if (process.argv[2] !== 'child') {
  const run = (mode) => {
    const result = spawnSync(process.execPath, ['--expose-gc', '--max-semi-space-size=2', '--min-semi-space-size=2', '--trace-gc-nvp', fileURLToPath(import.meta.url), 'child', mode], {
      encoding: 'utf8',
      maxBuffer: 1 << 30,
      env: { ...process.env },
    });
    if (result.status !== 0) throw new Error(`child failed: ${result.stderr}`);
    let inside = false;
    let promoted = 0;
    let allocated = 0;
    let scavenges = 0;
    let full = 0;
    let report;
    for (const line of result.stdout.split('\n')) {
      if (line.startsWith('MARK begin')) inside = true;
      else if (line.startsWith('MARK end')) inside = false;
      else if (line.startsWith('REPORT ')) report = JSON.parse(line.slice(7));
      else if (inside && line.includes(' gc=')) {
        const kind = / gc=(\w+)/.exec(line)[1];
        if (kind === 's') scavenges++;
        else full++;
        promoted += Number(/ promoted=(\d+)/.exec(line)?.[1] ?? 0);
        allocated += Number(/ allocated=(\d+)/.exec(line)?.[1] ?? 0);
      }
    }
    return { mode, scavenges, full, promoted, allocated, ...report };
  };
  const filler = run('filler');
  const scrape = run('scrape');
  const per = (value) => (value / SCRAPES).toFixed(0);
  console.log(`${SCRAPES} scrapes, ${FILLER_BYTES} B of other garbage between two, ${CONCURRENT} at a time; 2 MiB semi-spaces`);
  console.log(`body: ${scrape.bodyBytes} B; bodies checked complete: ${scrape.checked}`);
  console.log(`filler alone: ${filler.scavenges} scavenges, ${filler.full} full GCs, promoted ${per(filler.promoted)} B per round`);
  console.log(
    `with scrapes: ${scrape.scavenges} scavenges, ${scrape.full} full GCs, promoted ${per(scrape.promoted)} B per round, ` +
      `scrape garbage ≈ ${per(scrape.allocated - filler.allocated)} B allocated per scrape (V8's allocated= at scavenges)`,
  );
  console.log(`promoted by scrapes: ${per(scrape.promoted - filler.promoted)} B per scrape (V8's promoted= at scavenges)`);
  console.log(`old generation growth: filler alone ${per(filler.oldGrowth)} B per round, with scrapes ${per(scrape.oldGrowth)}: ${per(scrape.oldGrowth - filler.oldGrowth)} B per scrape`);
  console.log(`old space used after full GCs: ${scrape.oldBefore} → ${scrape.oldAfter} B (retained ${scrape.oldAfter - scrape.oldBefore})`);
} else {
  const { createMetricsProvider } = await import('@fabric-ops/ops-metrics');
  const v8 = await import('node:v8');
  const mode = process.argv[3];
  const provider = createMetricsProvider({ provider: 'prometheus', runtimeMetrics: process.env.RUNTIME !== '0' });
  // The families ops-server adds in the peer bin.
  provider
    .newGauge({ name: 'fabric_version', help: 'The active version of Fabric.', labelNames: ['version'] })
    .with('version', '3.1.0')
    .set(1);
  provider.newGauge({ namespace: 'health', name: 'check_status', help: 'Outcome of the latest run of a health checker: 1 passed, 0 failed.', labelNames: ['component'] });
  provider.newHistogram({ namespace: 'health', name: 'check_duration_seconds', help: 'How long each health checker run took, in seconds.', labelNames: ['component'] });
  for (const name of ['entries_checked', 'entries_written']) {
    const counter = provider.newCounter({ namespace: 'logging', name, help: 'Number of log entries', labelNames: ['level'] });
    for (const level of ['info', 'warn']) counter.with('level', level).add(3);
  }

  class FakeResponse {
    chunks = [];
    headersSent = false;
    destroyed = false;
    writableFinished = false;
    listeners = new Map();
    once(event, fn) {
      this.listeners.set(event, fn);
      return this;
    }
    on(event, fn) {
      return this.once(event, fn);
    }
    off(event) {
      this.listeners.delete(event);
      return this;
    }
    removeListener(event) {
      return this.off(event);
    }
    setHeader() {}
    writeHead(status, headers) {
      this.status = status;
      this.headers = headers;
      this.headersSent = true;
      return this;
    }
    end(body, cb) {
      this.body = body;
      this.writableFinished = true;
      if (typeof cb === 'function') queueMicrotask(cb);
      const close = this.listeners.get('close');
      if (close) queueMicrotask(close);
    }
  }
  const request = { method: 'GET', url: '/metrics', headers: { accept: 'text/plain', host: 'x' } };

  let sink;
  const filler = () => {
    // Short-lived objects and strings, as a keep-alive request's handling leaves; each dies at
    // once, so V8 never pretenures this allocation site (which would put the filler in old space).
    for (let made = 0; made < FILLER_BYTES; made += 64) sink = { a: made, b: `x${made}` };
  };

  const first = new FakeResponse();
  await provider.handler(request, first);
  const LINE = /^(# (HELP|TYPE) \w+ .+|\w+(\{\w+="[^"]*"(,\w+="[^"]*")*\})? [-+0-9.eInfa]+)$/;
  const bodyBytes = first.body.length;
  for (let i = 0; i < 200; i++) await provider.handler(request, new FakeResponse());

  globalThis.gc();
  globalThis.gc();
  const oldUsed = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space').space_used_size;
  const oldBefore = oldUsed();
  let checked = 0;
  // Old-generation growth, promoted or allocated there directly (pretenured sites): the sum of
  // increases of old space's used bytes from round to round (they only fall after full GCs).
  const oldGeneration = () => {
    let used = 0;
    for (const space of v8.getHeapSpaceStatistics()) if (space.space_name === 'old_space' || space.space_name === 'large_object_space') used += space.space_used_size;
    return used;
  };
  let oldGrowth = 0;
  let lastOld = oldGeneration();
  process.stdout.write('MARK begin\n');
  for (let i = 0; i < SCRAPES; i += CONCURRENT) {
    // Each round is its own turn of the event loop, as each request is in the bin.
    await new Promise((resolve) => setImmediate(resolve));
    const nowOld = oldGeneration();
    if (nowOld > lastOld) oldGrowth += nowOld - lastOld;
    lastOld = nowOld;
    filler();
    if (mode === 'scrape') {
      const responses = [];
      const pending = [];
      for (let c = 0; c < CONCURRENT; c++) {
        const res = new FakeResponse();
        responses.push(res);
        pending.push(provider.handler(request, res));
      }
      await Promise.all(pending);
      if (i % 1000 === 0) {
        for (const res of responses) {
          if (res.status !== 200 || res.body.length !== Number(res.headers['Content-Length'])) throw new Error('incomplete body');
          const text = res.body.toString('latin1');
          if (
            !text.endsWith('\n') ||
            !text
              .split('\n')
              .slice(0, -1)
              .every((line) => LINE.test(line))
          )
            throw new Error('malformed body');
          checked++;
        }
      }
    }
  }
  process.stdout.write('MARK end\n');
  globalThis.gc();
  globalThis.gc();
  const oldAfter = oldUsed();
  process.stdout.write(`REPORT ${JSON.stringify({ oldGrowth, oldBefore, oldAfter, bodyBytes, checked, sink })}\n`);
  await provider.stop();
  process.exit(0);
}
