import { readdirSync, readlinkSync } from 'node:fs';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { udpLinesOnLoopback } from '@fabric-ops/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { createStatsdProvider, type StatsdProvider } from './statsd.ts';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function waitFor(check: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const udpListener = () => udpLinesOnLoopback((cleanup) => void cleanups.push(cleanup));

function tcpListener(port = 0): Promise<{ server: Server; port: number; lines: string[]; close(): Promise<void> }> {
  const lines: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    let rest = '';
    socket.on('data', (data) => {
      const parts = (rest + data.toString()).split('\n');
      rest = parts.pop()!;
      lines.push(...parts.filter(Boolean));
    });
    socket.on('close', () => sockets.delete(socket));
  });
  return new Promise((resolve) =>
    server.listen(port, '127.0.0.1', () => {
      const close = () =>
        new Promise<void>((done) => {
          for (const s of sockets) s.destroy();
          server.close(() => done());
        });
      cleanups.push(close);
      resolve({ server, port: (server.address() as AddressInfo).port, lines, close });
    }),
  );
}

function provider(network: 'udp' | 'tcp', port: number, extra: Partial<Parameters<typeof createStatsdProvider>[1]> = {}, prefix = '') {
  const warnings: string[] = [];
  const created: StatsdProvider = createStatsdProvider(
    { network, host: '127.0.0.1', port, writeIntervalMs: 100, prefix },
    { runtimeMetrics: false, logger: { warn: (m) => warnings.push(m) }, ...extra },
  );
  cleanups.push(() => created.stop());
  return { created, warnings };
}

describe('StatsD provider', () => {
  it('pushes Fabric-format lines over UDP every writeInterval', async () => {
    const daemon = await udpListener();
    const { created } = provider('udp', daemon.port, {}, 'org1_peer0');
    created
      .newGauge({ name: 'fabric_version', help: 'The active version of Fabric.', labelNames: ['version'], statsdFormat: '%{#fqname}.%{version}' })
      .with('version', '2.5.0')
      .set(1);
    const counter = created.newCounter({ namespace: 'logging', name: 'entries_checked', help: 'h', labelNames: ['level'], statsdFormat: '%{#fqname}.%{level}' });
    counter.with('level', 'info').add(1);
    counter.with('level', 'info').add(2);
    created.newHistogram({ namespace: 'x', name: 'duration', help: 'h' }).observe(0.5);
    await created.start();
    await waitFor(() => daemon.lines.length >= 3);
    expect(daemon.lines).toEqual(expect.arrayContaining(['org1_peer0.fabric_version.2_5_0:1.000000|g', 'org1_peer0.logging.entries_checked.info:3.000000|c', 'org1_peer0.x.duration:0.500000|ms']));
    const seen = daemon.lines.length;
    await new Promise((r) => setTimeout(r, 350));
    expect(daemon.lines.length).toBe(seen);
  });

  it('pushes runtime gauges under nodejs.', async () => {
    const daemon = await udpListener();
    const { created } = provider('udp', daemon.port, { runtimeMetrics: true });
    await created.start();
    await waitFor(() => daemon.lines.some((l) => l.startsWith('nodejs.mem.heap_used_bytes:')));
    expect(daemon.lines.some((l) => /^nodejs\.gc\.completed_count:\d+\.\d{6}\|g$/.test(l))).toBe(true);
    expect(daemon.lines.some((l) => l.startsWith('nodejs.handles.active_count:'))).toBe(true);
  });

  it('starts while the TCP daemon is down, queues, and delivers once it appears', async () => {
    const probe = await tcpListener();
    const port = probe.port;
    await probe.close();
    const { created, warnings } = provider('tcp', port, { initialBackoffMs: 50, maxBackoffMs: 200 });
    await created.start();
    created.newCounter({ name: 'early', help: 'h' }).add(5);
    await waitFor(() => warnings.some((w) => w.includes(`cannot reach tcp 127.0.0.1:${port}`)));
    const daemon = await tcpListener(port);
    await waitFor(() => daemon.lines.includes('early:5.000000|c'));
    expect(created.stats().connected).toBe(true);
  });

  it('survives the TCP daemon going away and coming back, and drops only beyond the bound', async () => {
    const first = await tcpListener();
    const port = first.port;
    const { created, warnings } = provider('tcp', port, { initialBackoffMs: 50, maxBackoffMs: 100, maxPendingLines: 5 });
    await created.start();
    const counter = created.newCounter({ name: 'ticks', help: 'h', labelNames: ['n'], statsdFormat: '%{#fqname}.%{n}' });
    counter.with('n', 'a').add(1);
    await waitFor(() => first.lines.includes('ticks.a:1.000000|c'));
    await first.close();
    await waitFor(() => !created.stats().connected);
    for (let i = 0; i < 20; i++) counter.with('n', `x${i}`).add(1);
    await waitFor(() => created.stats().droppedLines > 0);
    expect(created.stats().pendingLines).toBeLessThanOrEqual(5);
    expect(warnings.some((w) => w.includes('lost'))).toBe(true);
    const second = await tcpListener(port);
    await waitFor(() => second.lines.some((l) => l.startsWith('ticks.x19:')));
    counter.with('n', 'after').add(1);
    await waitFor(() => second.lines.includes('ticks.after:1.000000|c'));
    await waitFor(() => second.lines.some((l) => /^metrics\.statsd\.lines_dropped:\d+\.000000\|c$/.test(l)));
  });

  it.runIf(process.platform === 'linux')('closes a TCP connection the daemon reset before dialling again, and carries on over the next', async () => {
    // The sockets this process holds open (Linux): a failed connection left open would add one per reset.
    const isSocket = (fd: string) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`).startsWith('socket:');
      } catch {
        return false; // closed between the listing and the look
      }
    };
    const openSockets = () => readdirSync('/proc/self/fd').filter(isSocket).length;
    const RESETS = 3;
    const socketsAtAccept: number[] = [];
    const kept: string[] = [];
    let accepted = 0;
    const server = createServer((socket) => {
      accepted++;
      socketsAtAccept.push(openSockets());
      const resetThis = accepted <= RESETS;
      let rest = '';
      socket.on('error', () => {});
      socket.on('data', (data) => {
        // A daemon that fails mid-stream: the connection is reset (RST) on its first bytes.
        if (resetThis) return void socket.resetAndDestroy();
        const parts = (rest + data.toString()).split('\n');
        rest = parts.pop()!;
        kept.push(...parts.filter(Boolean));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((done) => server.close(() => done())));
    const baseline = openSockets();
    const { created, warnings } = provider('tcp', (server.address() as AddressInfo).port, { initialBackoffMs: 20, maxBackoffMs: 40 });
    await created.start();
    const counter = created.newCounter({ name: 'resets', help: 'h' });
    const ticker = setInterval(() => counter.add(1), 50);
    cleanups.push(() => clearInterval(ticker));
    await waitFor(() => kept.some((line) => line.startsWith('resets:')));
    expect(accepted).toBe(RESETS + 1);
    // At each new connection this process holds the listener, the new connection's two ends and
    // nothing of the connections reset before it.
    for (const count of socketsAtAccept) expect(count).toBeLessThanOrEqual(baseline + 2);
    expect(warnings.filter((w) => w.includes('lost')).length).toBeGreaterThanOrEqual(1);
  });

  it('bounds what waits in the socket for a TCP daemon that accepts and never reads, and counts the drops', async () => {
    const accepted: Socket[] = [];
    const server = createServer((socket) => {
      // Accept, then never read: the kernel buffers fill, then Node's write queue would.
      socket.pause();
      accepted.push(socket);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          for (const socket of accepted) socket.destroy();
          server.close(() => resolve());
        }),
    );
    const maxSocketBufferBytes = 64 * 1024;
    const { created, warnings } = provider('tcp', (server.address() as AddressInfo).port, { maxPendingLines: 2_000, maxSocketBufferBytes });
    await created.start();
    await waitFor(() => created.stats().connected);
    const gauge = created.newGauge({ name: 'flood', help: 'h', labelNames: ['i'], statsdFormat: '%{#fqname}.%{i}' });
    let highest = 0;
    // ~100 bytes a line, 2 000 lines a flush: far more than loopback's socket buffers hold.
    for (let round = 0; round < 200 && created.stats().droppedLines < 10_000; round++) {
      for (let i = 0; i < 2_000; i++) gauge.with('i', `${round}_${i}_${'x'.repeat(70)}`).set(i);
      created.flush();
      highest = Math.max(highest, created.stats().socketBufferedBytes);
      await new Promise((r) => setImmediate(r));
    }
    const stats = created.stats();
    expect(stats.droppedLines).toBeGreaterThanOrEqual(10_000);
    expect(stats.pendingLines).toBeLessThanOrEqual(2_000);
    // One write of at most 64 KiB may go past the bound.
    expect(highest).toBeLessThanOrEqual(maxSocketBufferBytes + 64 * 1024);
    expect(highest).toBeGreaterThan(0);
    const dropWarnings = warnings.filter((w) => w.includes('is not reading'));
    expect(dropWarnings).toHaveLength(1);
    expect(dropWarnings[0]).toMatch(/^statsd: tcp 127\.0\.0\.1:\d+ is not reading \(\d+ bytes wait in the socket\); dropped \d+ lines beyond the 2000-line queue$/);
  });

  it('drops a line too long for any datagram instead of retrying it forever', async () => {
    const daemon = await udpListener();
    const { created } = provider('udp', daemon.port);
    await created.start();
    const gauge = created.newGauge({ name: 'g', help: 'h', labelNames: ['v'], statsdFormat: '%{#fqname}.%{v}' });
    gauge.with('v', 'x'.repeat(20_000)).set(1);
    gauge.with('v', 'short').set(2);
    await waitFor(() => daemon.lines.includes('g.short:2.000000|g'));
    await waitFor(() => created.stats().droppedLines === 1);
    expect(created.stats().pendingLines).toBe(0);
  });

  it('never throws when the daemon host does not resolve', async () => {
    const warnings: string[] = [];
    for (const network of ['udp', 'tcp'] as const) {
      const created = createStatsdProvider(
        { network, host: 'no-such-host.invalid', port: 8125, writeIntervalMs: 50, prefix: '' },
        { runtimeMetrics: false, initialBackoffMs: 50, logger: { warn: (m) => warnings.push(m) } },
      );
      cleanups.push(() => created.stop());
      await created.start();
      created.newCounter({ name: 'c', help: 'h' }).add(1);
    }
    await waitFor(() => warnings.filter((w) => /ENOTFOUND|EAI_AGAIN/.test(w)).length >= 2);
  });
});

describe('StatsD provider: capture mode and aggregate (multi-process)', () => {
  it('capture mode sends nothing and drain() hands over the interval without the prefix, then starts afresh', async () => {
    const { createMetricsProvider } = await import('./provider.ts');
    const capture = createMetricsProvider({ provider: 'statsd', capture: true, runtimeMetrics: false });
    await capture.start();
    cleanups.push(() => capture.stop());
    capture.newCounter({ namespace: 'example', name: 'work_total', help: 'w' }).add(3);
    capture
      .newGauge({ namespace: 'pool', name: 'size', help: 'g', labelNames: ['ch'], statsdFormat: '%{#fqname}.%{ch}' })
      .with('ch', 'a')
      .set(7);
    capture.newHistogram({ name: 'took', help: 'h' }).observe(0.5);
    expect(capture.drain()).toEqual({
      counters: [['example.work_total', 3]],
      gauges: [['pool.size.a', 7, 'pool_size']],
      timings: [['took', [0.5]]],
    });
    expect(capture.drain()).toEqual({ counters: [], gauges: [], timings: [] });
    expect(capture.stats().sentLines).toBe(0);
  });

  it('capture mode refuses a target, and a pushing provider refuses drain()', async () => {
    const { createMetricsProvider } = await import('./provider.ts');
    expect(() => createMetricsProvider({ provider: 'statsd', capture: true, statsd: { network: 'udp', host: '127.0.0.1', port: 8125, writeIntervalMs: 10, prefix: '' } } as never)).toThrow(
      /capture: true takes no target/,
    );
    const daemon = await udpListener();
    const { created } = provider('udp', daemon.port);
    expect(() => created.drain()).toThrow(/capture: true/);
  });

  it('pushes what aggregate returns, once per flush, with the prefix; a flush during a slow aggregate is skipped and loses nothing', async () => {
    const daemon = await udpListener();
    let release: (() => void) | undefined;
    let calls = 0;
    // A long writeInterval: this test flushes by hand.
    const created = createStatsdProvider(
      { network: 'udp', host: '127.0.0.1', port: daemon.port, writeIntervalMs: 600_000, prefix: 'org1' },
      {
        runtimeMetrics: false,
        aggregate: async (own) => {
          calls++;
          if (calls === 1) await new Promise<void>((resolve) => (release = resolve));
          return { counters: [...own.counters, ['from_worker', 2]], gauges: own.gauges, timings: own.timings };
        },
      },
    );
    cleanups.push(() => created.stop());
    await created.start();
    const counter = created.newCounter({ name: 'c', help: 'c' });
    counter.add(1);
    created.flush();
    counter.add(10);
    created.flush(); // skipped: the first is still combining
    await waitFor(() => release !== undefined);
    expect(calls).toBe(1);
    release!();
    await waitFor(() => daemon.lines.length >= 2);
    expect(daemon.lines.sort()).toEqual(['org1.c:1.000000|c', 'org1.from_worker:2.000000|c']);
    daemon.lines.length = 0;
    created.flush();
    await waitFor(() => daemon.lines.length >= 2);
    expect(daemon.lines.sort()).toEqual(['org1.c:10.000000|c', 'org1.from_worker:2.000000|c']);
  });
});

describe('StatsD provider: a failing aggregate', () => {
  it('pushes this process’s own interval and warns when aggregate throws', async () => {
    const daemon = await udpListener();
    const warnings: string[] = [];
    const created = createStatsdProvider(
      { network: 'udp', host: '127.0.0.1', port: daemon.port, writeIntervalMs: 600_000, prefix: '' },
      {
        runtimeMetrics: false,
        logger: { warn: (m) => warnings.push(m) },
        aggregate: () => {
          throw new Error('workers unreachable');
        },
      },
    );
    cleanups.push(() => created.stop());
    await created.start();
    created.newCounter({ name: 'c', help: 'c' }).add(2);
    created.flush();
    await waitFor(() => daemon.lines.length >= 1);
    expect(daemon.lines).toEqual(['c:2.000000|c']);
    expect(warnings.join('\n')).toMatch(/workers unreachable/);
  });
});
