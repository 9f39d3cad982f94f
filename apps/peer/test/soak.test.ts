import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configDir, send, signalledReport, spawnApp, type RunningApp } from '@fabric-ops/test-kit';

// About a minute of mixed load on every endpoint, with PUT /logspec from several clients,
// against the real peer bin. Bounded in time; loopback only.

const bin = fileURLToPath(new URL('../dist/bin.cjs', import.meta.url));
const WARMUP_MS = 10_000;
const SOAK_MS = Number(process.env['FABRIC_OPS_SOAK_MS'] ?? 45_000);
let app: RunningApp;
let probeDir: string;

// Loaded with --expose-gc and --import ahead of the bin: on SIGUSR2, two full collections, then
// the live heap. A leak shows as live heap that grows; RSS alone also moves with V8's sizing of
// its heap, which the bin leaves to V8 (the young generation may still grow after warm-up, to
// two 16 MiB semi-spaces on every supported line).
const PROBE = `import { getHeapStatistics } from 'node:v8';
process.on('SIGUSR2', () => {
  globalThis.gc();
  globalThis.gc();
  process.stderr.write('live-heap ' + getHeapStatistics().used_heap_size + '\\n');
});
`;
// What RSS may grow by with a flat live heap: V8's young generation (up to 32 MiB committed on
// Node 22-26 under this load) plus the allocator arenas TLS buffers leave behind. Measured with
// the live heap flat (+0.1 MiB): RSS +18.5 MiB on Node 22, +32.1 on 24, +43.1 on 26. The leak
// check is the live heap above; this bound only catches memory growing outside V8's heap.
const RSS_GROWTH_ALLOWANCE_BYTES = 64 * 2 ** 20;

/** Asks the bin for its live heap after a full collection (the probe above). */
async function liveHeapBytes(): Promise<number> {
  return Number(await signalledReport(app, 'live-heap '));
}

function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+) kB/.exec(status);
  return Number(kb?.[1] ?? 0) * 1024;
}

beforeAll(async () => {
  const dir = configDir('core.yaml', 'vm:\n  endpoint: ""\noperations:\n  listenAddress: 127.0.0.1:0\nmetrics:\n  provider: prometheus\n');
  probeDir = mkdtempSync(join(tmpdir(), 'fabric-ops-soak-'));
  const probe = join(probeDir, 'probe.mjs');
  writeFileSync(probe, PROBE);
  app = await spawnApp(bin, { env: { FABRIC_CFG_PATH: dir, FABRIC_LOGGING_SPEC: 'peer.operations=info:warn', NODE_OPTIONS: `--expose-gc --import ${probe}` } });
});
afterAll(() => {
  app?.kill();
  rmSync(probeDir, { recursive: true, force: true });
});

interface Tally {
  requests: number;
  failures: string[];
  serverErrors: number;
}

describe('soak', () => {
  it('serves mixed load with no failures, keeps the last acknowledged spec, and holds its memory', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 16 });
    const tally: Tally = { requests: 0, failures: [], serverErrors: 0 };
    let lastAcked = '';
    let putSeq = 0;
    // PUTs from different clients go one at a time, so "last acknowledged" is unambiguous.
    let putChain: Promise<void> = Promise.resolve();

    const hit = async (path: string, init: { method?: string; body?: string } = {}) => {
      try {
        const reply = await send(app.address, path, { agent, ...init });
        tally.requests++;
        if (reply.status >= 500) tally.serverErrors++;
        return reply;
      } catch (error) {
        tally.failures.push(`${init.method ?? 'GET'} ${path}: ${(error as Error).message}`);
        return undefined;
      }
    };

    const reader = async (until: number) => {
      const paths = ['/version', '/healthz', '/logspec', '/metrics', '/livez', '/readyz'];
      let i = 0;
      while (Date.now() < until) await hit(paths[i++ % paths.length]!);
    };
    const writer = async (client: number, until: number) => {
      while (Date.now() < until) {
        const spec = `info:client${client}=debug:seq${putSeq++}=warn`;
        putChain = putChain.then(async () => {
          const reply = await hit('/logspec', { method: 'PUT', body: JSON.stringify({ spec }) });
          if (reply?.status === 204) lastAcked = spec;
          else tally.failures.push(`PUT ${spec}: ${reply?.status}`);
        });
        await putChain;
      }
    };
    const phase = (ms: number) => {
      const until = Date.now() + ms;
      return Promise.all([...Array.from({ length: 6 }, () => reader(until)), ...[1, 2, 3].map((c) => writer(c, until))]);
    };

    await phase(WARMUP_MS);
    const warmLive = await liveHeapBytes();
    const warmRss = rssBytes(app.child.pid!);
    await phase(SOAK_MS);
    await new Promise((r) => setTimeout(r, 500));
    const endLive = await liveHeapBytes();
    const endRss = rssBytes(app.child.pid!);

    const final = await send(app.address, '/logspec');
    agent.destroy();

    expect(tally.failures).toEqual([]);
    expect(tally.serverErrors).toBe(0);
    expect(tally.requests).toBeGreaterThan(1_000);
    // Specs are normalised on read: byte-wise sorted entries, then the default.
    const [, client, seq] = /^info:(client\d+)=debug:(seq\d+)=warn$/.exec(lastAcked) ?? [];
    expect(JSON.parse(final.body)).toEqual({ spec: `${client}=debug:${seq}=warn:info` });
    process.stderr.write(
      `soak live heap warm=${(warmLive / 2 ** 20).toFixed(1)}MiB end=${(endLive / 2 ** 20).toFixed(1)}MiB, rss warm=${(warmRss / 2 ** 20).toFixed(1)}MiB end=${(endRss / 2 ** 20).toFixed(1)}MiB, requests=${tally.requests}\n`,
    );
    // Nothing kept per request: the live heap after a full collection holds its warm-up level…
    expect(endLive).toBeLessThanOrEqual(warmLive * 1.1);
    // …and RSS grows by no more than V8's young generation and the allocator's arenas.
    expect(endRss).toBeLessThanOrEqual(warmRss * 1.1 + RSS_GROWTH_ALLOWANCE_BYTES);
  }, 120_000);
});
