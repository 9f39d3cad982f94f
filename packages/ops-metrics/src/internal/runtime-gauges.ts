import { monitorEventLoopDelay, PerformanceObserver, type IntervalHistogram } from 'node:perf_hooks';
import type { Gauge, MetricsFactory } from './types.ts';

/** Node's counterpart of Fabric's `go.` StatsD collector: gauges under `nodejs.`. */
export interface RuntimeGauges {
  /** Reads the runtime and sets every gauge. */
  collect(): void;
  stop(): void;
}

export function createRuntimeGauges(factory: MetricsFactory): RuntimeGauges {
  const gauge = (subsystem: string, name: string, help: string): Gauge => factory.newGauge({ namespace: 'nodejs', subsystem, name, help });
  const heapUsed = gauge('mem', 'heap_used_bytes', 'V8 heap in use.');
  const heapTotal = gauge('mem', 'heap_total_bytes', 'V8 heap reserved.');
  const rss = gauge('mem', 'rss_bytes', 'Resident set size of the process.');
  const external = gauge('mem', 'external_bytes', 'Memory of C++ objects bound to JavaScript objects.');
  const arrayBuffers = gauge('mem', 'array_buffers_bytes', 'Memory of ArrayBuffers and SharedArrayBuffers.');
  const delayMin = gauge('eventloop', 'delay_min_seconds', 'Shortest event-loop delay since the last collection.');
  const delayMax = gauge('eventloop', 'delay_max_seconds', 'Longest event-loop delay since the last collection.');
  const delayMean = gauge('eventloop', 'delay_mean_seconds', 'Mean event-loop delay since the last collection.');
  const delayP50 = gauge('eventloop', 'delay_p50_seconds', 'Median event-loop delay since the last collection.');
  const delayP99 = gauge('eventloop', 'delay_p99_seconds', '99th percentile event-loop delay since the last collection.');
  const gcCount = gauge('gc', 'completed_count', 'Garbage collections since start.');
  const gcPauseTotal = gauge('gc', 'pause_total_seconds', 'Time spent in garbage collection since start.');
  const gcPauseLast = gauge('gc', 'pause_last_seconds', 'Duration of the latest garbage collection.');
  const handles = gauge('handles', 'active_count', 'Active libuv handles and requests keeping the event loop alive.');

  let collections = 0;
  let pauseTotalMs = 0;
  let pauseLastMs = 0;
  let observer: PerformanceObserver | undefined;
  try {
    observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        collections++;
        pauseTotalMs += entry.duration;
        pauseLastMs = entry.duration;
      }
    });
    observer.observe({ entryTypes: ['gc'] });
  } catch {
    observer = undefined;
  }
  let delay: IntervalHistogram | undefined = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();

  return {
    collect() {
      const memory = process.memoryUsage();
      heapUsed.set(memory.heapUsed);
      heapTotal.set(memory.heapTotal);
      rss.set(memory.rss);
      external.set(memory.external);
      arrayBuffers.set(memory.arrayBuffers);
      if (delay !== undefined && delay.count > 0) {
        delayMin.set(delay.min / 1e9);
        delayMax.set(delay.max / 1e9);
        delayMean.set(delay.mean / 1e9);
        delayP50.set(delay.percentile(50) / 1e9);
        delayP99.set(delay.percentile(99) / 1e9);
        delay.reset();
      }
      gcCount.set(collections);
      gcPauseTotal.set(pauseTotalMs / 1e3);
      gcPauseLast.set(pauseLastMs / 1e3);
      handles.set(process.getActiveResourcesInfo().length);
    },
    stop() {
      observer?.disconnect();
      observer = undefined;
      delay?.disable();
      delay = undefined;
    },
  };
}
