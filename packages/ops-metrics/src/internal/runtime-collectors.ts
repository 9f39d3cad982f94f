import fs from 'node:fs';
import { constants as perfConstants, monitorEventLoopDelay, PerformanceObserver, type IntervalHistogram } from 'node:perf_hooks';
import v8 from 'node:v8';
import type { Instrument } from './family.ts';

/** How the collectors declare their families (internal: counters are set, not added to). */
export interface RuntimeInstruments {
  counter(name: string, help: string): Instrument;
  gauge(name: string, help: string, labelNames?: readonly string[]): Instrument;
  histogram(name: string, help: string, labelNames: readonly string[], buckets: readonly number[]): Instrument;
}

export interface RuntimeCollectors {
  /** Reads the sources that cost a microsecond or two; the only runtime work a scrape does. */
  beforeScrape(): void;
  /** Takes one background sample now (tests; start-up). */
  sample(): Promise<void>;
  stop(): void;
}

export const DEFAULT_RUNTIME_SAMPLE_INTERVAL_MS = 5_000;

const GC_BUCKETS: readonly number[] = [0.001, 0.01, 0.1, 1, 2, 5];
const GC_KINDS = new Map<number, string>([
  [perfConstants.NODE_PERFORMANCE_GC_MAJOR, 'major'],
  [perfConstants.NODE_PERFORMANCE_GC_MINOR, 'minor'],
  [perfConstants.NODE_PERFORMANCE_GC_INCREMENTAL, 'incremental'],
  [perfConstants.NODE_PERFORMANCE_GC_WEAKCB, 'weakcb'],
]);

/** `Max open files  1024  4096  files` → 1024 (the soft limit, what open() is held to). */
function softLimitOfOpenFiles(limits: string): number | undefined {
  for (const line of limits.split('\n')) {
    if (!line.startsWith('Max open files')) continue;
    const soft = Number(line.slice('Max open files'.length).trim().split(/\s+/)[0]);
    return Number.isFinite(soft) ? soft : undefined;
  }
  return undefined;
}

/** `VmSize:   123 kB` → bytes. */
function statusBytes(status: string, key: string): number | undefined {
  const at = status.indexOf(`\n${key}:`);
  if (at < 0) return undefined;
  const kb = Number.parseInt(status.slice(at + key.length + 2).trimStart(), 10);
  return Number.isFinite(kb) ? kb * 1024 : undefined;
}

/**
 * `InOctets` and `OutOctets` of the `IpExt:` lines of /proc/self/net/netstat (a header line
 * of names, then one of values), where client_golang 1.20's process collector reads its
 * process_network_* pair (through procfs' Netstat).
 */
export function ipExtOctets(netstat: string): { readonly received: number; readonly sent: number } | undefined {
  const lines = netstat.split('\n').filter((line) => line.startsWith('IpExt:'));
  if (lines.length < 2) return undefined;
  const names = lines[0]!.split(/\s+/);
  const values = lines[1]!.split(/\s+/);
  const received = Number(values[names.indexOf('InOctets')]);
  const sent = Number(values[names.indexOf('OutOctets')]);
  return Number.isFinite(received) && Number.isFinite(sent) ? { received, sent } : undefined;
}

/**
 * The `nodejs_*` and `process_*` series prom-client's default collectors give, with
 * the same names, types and HELP, but at a price a scrape can pay: a scrape reads
 * only `process.cpuUsage()`, `process.memoryUsage.rss()` and V8's heap statistics
 * (fixed cost, a few microseconds). Everything whose cost grows with the process
 * (open descriptors, active resources) or that is costly to read (the event-loop
 * histogram's percentiles and stddev, `/proc/self/status`) is sampled on an unref'd
 * timer, with file reads done asynchronously, so a scrape never touches the file
 * system and never does work proportional to open connections. Those series are at
 * most one sample interval old.
 */
export function createRuntimeCollectors(instruments: RuntimeInstruments, sampleIntervalMs: number): RuntimeCollectors {
  const { counter, gauge, histogram } = instruments;
  const cpuUser = counter('process_cpu_user_seconds_total', 'Total user CPU time spent in seconds.');
  const cpuSystem = counter('process_cpu_system_seconds_total', 'Total system CPU time spent in seconds.');
  const cpuTotal = counter('process_cpu_seconds_total', 'Total user and system CPU time spent in seconds.');
  const startTime = gauge('process_start_time_seconds', 'Start time of the process since unix epoch in seconds.');
  const resident = gauge('process_resident_memory_bytes', 'Resident memory size in bytes.');
  const virtual = gauge('process_virtual_memory_bytes', 'Virtual memory size in bytes.');
  const processHeap = gauge('process_heap_bytes', 'Process heap size in bytes.');
  const openFds = gauge('process_open_fds', 'Number of open file descriptors.');
  // client_golang 1.20's names and HELP. Like Go's, they count the network namespace's IP
  // traffic (the kernel keeps no per-process count), so in a container they are the container's.
  const networkReceived = counter('process_network_receive_bytes_total', 'Number of bytes received by the process over the network.');
  const networkSent = counter('process_network_transmit_bytes_total', 'Number of bytes sent by the process over the network.');
  const maxFds = gauge('process_max_fds', 'Maximum number of open file descriptors.');
  const lag = gauge('nodejs_eventloop_lag_seconds', 'Lag of event loop in seconds.');
  const lagMin = gauge('nodejs_eventloop_lag_min_seconds', 'The minimum recorded event loop delay.');
  const lagMax = gauge('nodejs_eventloop_lag_max_seconds', 'The maximum recorded event loop delay.');
  const lagMean = gauge('nodejs_eventloop_lag_mean_seconds', 'The mean of the recorded event loop delays.');
  const lagStddev = gauge('nodejs_eventloop_lag_stddev_seconds', 'The standard deviation of the recorded event loop delays.');
  const lagP50 = gauge('nodejs_eventloop_lag_p50_seconds', 'The 50th percentile of the recorded event loop delays.');
  const lagP90 = gauge('nodejs_eventloop_lag_p90_seconds', 'The 90th percentile of the recorded event loop delays.');
  const lagP99 = gauge('nodejs_eventloop_lag_p99_seconds', 'The 99th percentile of the recorded event loop delays.');
  const resources = gauge('nodejs_active_resources', 'Number of active resources that are currently keeping the event loop alive, grouped by async resource type.', ['type']);
  const heapTotal = gauge('nodejs_heap_size_total_bytes', 'Process heap size from Node.js in bytes.');
  const heapUsed = gauge('nodejs_heap_size_used_bytes', 'Process heap size used from Node.js in bytes.');
  // The counterpart of Go's go_gc_gomemlimit_bytes: the heap size V8 will not grow past
  // (--max-old-space-size), the figure to compare nodejs_heap_size_used_bytes with.
  const heapLimit = gauge('nodejs_heap_size_limit_bytes', 'Limit of the Node.js heap (V8 heap_size_limit, set by --max-old-space-size) in bytes.');
  const external = gauge('nodejs_external_memory_bytes', 'Node.js external memory size in bytes.');
  const spaceTotal = gauge('nodejs_heap_space_size_total_bytes', 'Process heap space size total from Node.js in bytes.', ['space']);
  const spaceUsed = gauge('nodejs_heap_space_size_used_bytes', 'Process heap space size used from Node.js in bytes.', ['space']);
  const spaceAvailable = gauge('nodejs_heap_space_size_available_bytes', 'Process heap space size available from Node.js in bytes.', ['space']);
  const versionInfo = gauge('nodejs_version_info', 'Node.js version info.', ['version', 'major', 'minor', 'patch']);
  const gcDuration = histogram('nodejs_gc_duration_seconds', 'Garbage collection duration by kind, one of major, minor, incremental or weakcb.', ['kind'], GC_BUCKETS);

  // Served from the first scrape on (a scraper that starts with the process must not see the
  // event-loop series appear only after the first sample): zero until a sample has delays.
  for (const gauge of [lag, lagMin, lagMax, lagMean, lagStddev, lagP50, lagP90, lagP99]) gauge.set(0);
  startTime.set(Math.round(Date.now() / 1000 - process.uptime()));
  const [major = '', minor = '', patch = ''] = process.version.slice(1).split('.');
  versionInfo.with('version', process.version, 'major', major, 'minor', minor, 'patch', patch).set(1);

  const spaces = new Map<string, { total: Instrument; used: Instrument; available: Instrument }>();
  const spaceChildren = (spaceName: string) => {
    let children = spaces.get(spaceName);
    if (children === undefined) {
      const label = spaceName.endsWith('_space') ? spaceName.slice(0, -'_space'.length) : spaceName;
      children = { total: spaceTotal.with('space', label), used: spaceUsed.with('space', label), available: spaceAvailable.with('space', label) };
      spaces.set(spaceName, children);
    }
    return children;
  };

  const gcByKind = new Map<string, Instrument>();
  let gcObserver: PerformanceObserver | undefined = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const detail: unknown = 'detail' in entry ? entry.detail : undefined;
      const code = typeof detail === 'object' && detail !== null && 'kind' in detail ? detail.kind : undefined;
      const kind = (typeof code === 'number' ? GC_KINDS.get(code) : undefined) ?? 'unknown';
      let child = gcByKind.get(kind);
      if (child === undefined) gcByKind.set(kind, (child = gcDuration.with('kind', kind)));
      child.observe(entry.duration / 1000);
    }
  });
  gcObserver.observe({ entryTypes: ['gc'] });

  let delay: IntervalHistogram | undefined = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();

  const resourceChildren = new Map<string, Instrument>();
  const sampleResources = () => {
    const counts = new Map<string, number>();
    for (const type of process.getActiveResourcesInfo()) counts.set(type, (counts.get(type) ?? 0) + 1);
    for (const [type, child] of resourceChildren) if (!counts.has(type)) child.set(0);
    for (const [type, count] of counts) {
      let child = resourceChildren.get(type);
      // Resource types are Node's own class names, a short list; bound it anyway.
      if (child === undefined && resourceChildren.size < 100) resourceChildren.set(type, (child = resources.with('type', type)));
      child?.set(count);
    }
  };

  const sampleEventLoop = () => {
    if (delay === undefined || delay.count === 0) return;
    lagMin.set(delay.min / 1e9);
    lagMax.set(delay.max / 1e9);
    lagMean.set(delay.mean / 1e9);
    lagStddev.set(delay.stddev / 1e9);
    lagP50.set(delay.percentile(50) / 1e9);
    lagP90.set(delay.percentile(90) / 1e9);
    lagP99.set(delay.percentile(99) / 1e9);
    delay.reset();
  };

  const measureLag = () =>
    new Promise<void>((resolve) => {
      const started = process.hrtime.bigint();
      setImmediate(() => {
        lag.set(Number(process.hrtime.bigint() - started) / 1e9);
        resolve();
      });
    });

  // Linux only, like prom-client's; elsewhere these series are simply absent.
  const sampleProcFiles = async () => {
    try {
      // The directory handle readdir holds is not one of ours.
      openFds.set((await fs.promises.readdir('/proc/self/fd')).length - 1);
    } catch {
      // not Linux, or /proc not mounted
    }
    try {
      const status = await fs.promises.readFile('/proc/self/status', 'utf8');
      const size = statusBytes(status, 'VmSize');
      const data = statusBytes(status, 'VmData');
      if (size !== undefined) virtual.set(size);
      if (data !== undefined) processHeap.set(data);
    } catch {
      // as above
    }
    try {
      // ~0.3 ms of CPU asynchronously (the kernel formats every counter of the file): a
      // sample's cost, not a scrape's.
      const octets = ipExtOctets(await fs.promises.readFile('/proc/self/net/netstat', 'utf8'));
      if (octets !== undefined) {
        networkReceived.set(octets.received);
        networkSent.set(octets.sent);
      }
    } catch {
      // as above
    }
  };

  let maxFdsRead = false;
  const readMaxFdsOnce = async () => {
    if (maxFdsRead) return;
    maxFdsRead = true;
    try {
      const limit = softLimitOfOpenFiles(await fs.promises.readFile('/proc/self/limits', 'utf8'));
      if (limit !== undefined) maxFds.set(limit);
    } catch {
      // as above
    }
  };

  let sampling: Promise<void> | undefined;
  const sample = (): Promise<void> => {
    // A slow file system must not pile samples up.
    sampling ??= (async () => {
      try {
        sampleEventLoop();
        sampleResources();
        await Promise.all([measureLag(), sampleProcFiles(), readMaxFdsOnce()]);
      } finally {
        sampling = undefined;
      }
    })();
    return sampling;
  };

  let timer: NodeJS.Timeout | undefined = setInterval(() => void sample(), sampleIntervalMs);
  timer.unref();
  void sample();

  return {
    beforeScrape() {
      const cpu = process.cpuUsage();
      cpuUser.set(cpu.user / 1e6);
      cpuSystem.set(cpu.system / 1e6);
      cpuTotal.set((cpu.user + cpu.system) / 1e6);
      resident.set(process.memoryUsage.rss());
      const heap = v8.getHeapStatistics();
      heapTotal.set(heap.total_heap_size);
      heapUsed.set(heap.used_heap_size);
      heapLimit.set(heap.heap_size_limit);
      external.set(heap.external_memory);
      for (const space of v8.getHeapSpaceStatistics()) {
        const children = spaceChildren(space.space_name);
        children.total.set(space.space_size);
        children.used.set(space.space_used_size);
        children.available.set(space.space_available_size);
      }
    },
    sample,
    stop() {
      clearInterval(timer);
      timer = undefined;
      gcObserver?.disconnect();
      gcObserver = undefined;
      delay?.disable();
      delay = undefined;
    },
  };
}
