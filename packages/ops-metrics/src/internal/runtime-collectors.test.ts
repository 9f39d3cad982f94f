import fs from 'node:fs';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TEXT_FORMAT } from './negotiate.ts';
import { connect, createServer, type AddressInfo } from 'node:net';
import { getHeapStatistics } from 'node:v8';
import { createPrometheusProvider, renderBody, type PrometheusProvider } from './prometheus.ts';
import { ipExtOctets } from './runtime-collectors.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function provider(): PrometheusProvider {
  const created = createPrometheusProvider({ runtimeSampleIntervalMs: 20 });
  cleanups.push(() => created.stop());
  return created;
}

async function scrape(p: PrometheusProvider): Promise<string> {
  return (await renderBody(p, TEXT_FORMAT)).toString();
}

/** Every file-system entry point a collector could use, sync or async, spied. */
function spyOnFileSystem() {
  const names = ['readdirSync', 'readFileSync', 'openSync', 'readSync', 'statSync', 'opendirSync', 'readdir', 'readFile', 'open', 'opendir'] as const;
  const spies = names.map((name) => vi.spyOn(fs, name));
  const promiseNames = ['readdir', 'readFile', 'open', 'opendir', 'stat'] as const;
  const promiseSpies = promiseNames.map((name) => vi.spyOn(fs.promises, name));
  return {
    calls: () => [...spies, ...promiseSpies].reduce((sum, spy) => sum + spy.mock.calls.length, 0),
    readdirSync: spies[0]!,
    readdir: promiseSpies[0]!,
  };
}

/** Until every series the background sampler and the GC observer feed has appeared. */
async function waitForSamples(p: PrometheusProvider): Promise<void> {
  let garbage: unknown[] = [];
  await waitFor(async () => {
    // Enough short-lived allocation for a minor collection, so nodejs_gc_duration_seconds has a series.
    for (let i = 0; i < 10_000; i++) garbage.push({ i });
    garbage = garbage.length > 100_000 ? [] : garbage;
    const text = await scrape(p);
    return ['process_open_fds ', 'process_max_fds ', 'process_network_receive_bytes_total ', 'nodejs_eventloop_lag_p99_seconds ', 'nodejs_gc_duration_seconds_count'].every((s) => text.includes(s));
  });
}

// Generous: a busy machine (a parallel suite, a shared CI host) can hold the sampler's timer and
// its readdir of thousands of descriptors back for seconds. Each test waits only as long as its
// condition needs; the deadline is for a condition that never comes.
const WAIT_MS = 50_000;
const TEST_TIMEOUT_MS = 60_000;

async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = WAIT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('runtime series', () => {
  it(
    "keeps prom-client's default series names, types and HELP (less the documented drops)",
    async () => {
      const registry = new Registry();
      collectDefaultMetrics({ register: registry });
      const theirs = (await registry.metrics()).split('\n').filter((l) => l.startsWith('# '));
      const p = provider();
      await waitForSamples(p);
      const ours = new Set((await scrape(p)).split('\n').filter((l) => l.startsWith('# ')));
      const dropped = /^# (HELP|TYPE) nodejs_active_(handles|requests)(_total)? |^# (HELP|TYPE) nodejs_active_resources_total /;
      const missing = theirs.filter((line) => !dropped.test(line) && !ours.has(line));
      expect(missing).toEqual([]);
      // Beyond prom-client: client_golang 1.20's network pair and the heap limit (Go's memory limit's counterpart).
      const added = ['# TYPE nodejs_heap_size_limit_bytes gauge', '# TYPE process_network_receive_bytes_total counter', '# TYPE process_network_transmit_bytes_total counter'];
      for (const line of added) expect(ours).toContain(line);
      expect([...ours].filter((l) => l.startsWith('# TYPE nodejs_') || l.startsWith('# TYPE process_'))).toHaveLength(
        theirs.filter((l) => l.startsWith('# TYPE') && !dropped.test(l)).length + added.length,
      );
    },
    TEST_TIMEOUT_MS,
  );

  it('serves the event-loop series from the very first scrape, before any background sample', async () => {
    const created = createPrometheusProvider({ runtimeSampleIntervalMs: 60_000 });
    cleanups.push(() => created.stop());
    const text = await scrape(created);
    for (const name of ['nodejs_eventloop_lag_seconds', 'nodejs_eventloop_lag_p99_seconds', 'nodejs_eventloop_lag_mean_seconds']) {
      expect(text).toMatch(new RegExp(`^${name} \\d`, 'm'));
    }
  });

  it(
    'reports values from the cheap sources',
    async () => {
      const p = provider();
      await waitForSamples(p);
      const text = await scrape(p);
      const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
      expect(value('process_cpu_seconds_total')).toBeGreaterThan(0);
      expect(value('process_resident_memory_bytes')).toBeGreaterThan(1e6);
      expect(value('nodejs_heap_size_used_bytes')).toBeGreaterThan(1e5);
      expect(value('process_open_fds')).toBeGreaterThan(2);
      expect(value('process_max_fds')).toBeGreaterThanOrEqual(value('process_open_fds'));
      expect(text).toMatch(new RegExp(`^nodejs_version_info\\{version="${process.version}",major="\\d+",minor="\\d+",patch="\\d+"\\} 1$`, 'm'));
      expect(text).toMatch(/^nodejs_heap_space_size_used_bytes\{space="old"\} \d+$/m);
      expect(text).toMatch(/^nodejs_eventloop_lag_p99_seconds \d/m);
    },
    TEST_TIMEOUT_MS,
  );

  it.runIf(process.platform === 'linux')(
    "serves client_golang's process_network_* pair from IpExt of /proc/self/net/netstat, sampled in the background",
    async () => {
      const p = provider();
      const value = async (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(await scrape(p))?.[1]);
      await waitFor(async () => (await value('process_network_receive_bytes_total')) > 0);
      const before = await value('process_network_receive_bytes_total');
      const sentBefore = await value('process_network_transmit_bytes_total');
      // 4 MiB over loopback: the namespace's IP counters move by at least that much, each way.
      const server = createServer((socket) => socket.resume().on('end', () => socket.end()));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
      const client = connect((server.address() as AddressInfo).port, '127.0.0.1');
      client.end(Buffer.alloc(4 * 1024 * 1024));
      await new Promise((resolve) => client.resume().once('close', resolve));
      // Both at once: the counters are the namespace's, so other traffic may move one of them first.
      await waitFor(
        async () => (await value('process_network_receive_bytes_total')) >= before + 4 * 1024 * 1024 && (await value('process_network_transmit_bytes_total')) >= sentBefore + 4 * 1024 * 1024,
      );
      expect(await value('nodejs_heap_size_limit_bytes')).toBe(getHeapStatistics().heap_size_limit);
    },
    TEST_TIMEOUT_MS,
  );

  it('reads IpExt InOctets and OutOctets by their column names', () => {
    const netstat = 'TcpExt: SyncookiesSent\nTcpExt: 0\nIpExt: InNoRoutes InOctets OutOctets\nIpExt: 0 8910089590 8027029795\n';
    expect(ipExtOctets(netstat)).toEqual({ received: 8910089590, sent: 8027029795 });
    expect(ipExtOctets('IpExt: InOctets\n')).toBeUndefined();
  });

  it(
    'never touches the file system at scrape time (prom-client calls readdirSync on every scrape)',
    async () => {
      const fsCalls = spyOnFileSystem();
      const registry = new Registry();
      collectDefaultMetrics({ register: registry });
      await registry.metrics();
      expect(fsCalls.readdirSync).toHaveBeenCalled();
      vi.restoreAllMocks();

      const p = provider();
      await waitFor(async () => (await scrape(p)).includes('process_open_fds '));
      await p.stop();
      // With the sampler stopped, whatever fs work remains would be the scrape's own.
      const spies = spyOnFileSystem();
      for (let i = 0; i < 20; i++) await scrape(p);
      expect(spies.readdirSync).not.toHaveBeenCalled();
      expect(spies.calls()).toBe(0);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'counts thousands of open descriptors in the background, not in the scrape',
    async () => {
      const p = provider();
      await waitFor(async () => (await scrape(p)).includes('process_open_fds '));
      const before = Number(/^process_open_fds (\d+)$/m.exec(await scrape(p))?.[1]);
      const opened: number[] = [];
      cleanups.push(() => opened.forEach((fd) => fs.closeSync(fd)));
      for (let i = 0; i < 3_000; i++) opened.push(fs.openSync('/dev/null', 'r'));

      const spies = spyOnFileSystem();
      const scrapeCallsBefore = spies.calls();
      await scrape(p);
      expect(spies.calls()).toBe(scrapeCallsBefore);
      // The unref'd timer samples asynchronously (fs.promises.readdir), and the next scrape shows it.
      // A few descriptors of slack: `before` may have counted one a sample still in flight held
      // open (a /proc read of the previous test's sampler, or this one's /proc/self/limits).
      await waitFor(async () => Number(/^process_open_fds (\d+)$/m.exec(await scrape(p))?.[1]) >= before + 3_000 - 8);
      expect(spies.readdir).toHaveBeenCalledWith('/proc/self/fd');
      expect(spies.readdirSync).not.toHaveBeenCalled();
    },
    TEST_TIMEOUT_MS,
  );

  it("serves one family per name next to an app registry's prom-client defaults, and can leave the runtime series to it", async () => {
    const registry = new Registry();
    collectDefaultMetrics({ register: registry });
    const p = createPrometheusProvider({ registry, runtimeMetrics: false });
    const text = await scrape(p);
    const types = text.split('\n').filter((l) => l.startsWith('# TYPE '));
    expect(new Set(types).size).toBe(types.length);
    expect(types).toContain('# TYPE nodejs_active_handles gauge');
  });
});
