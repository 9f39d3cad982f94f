import { createRequire } from 'node:module';
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// The bins' V8 heap settings. This entry imports nothing but node builtins, so a bin can apply
// them before the server's modules load.
//
// Why these settings (measured with bench/footprint.bench.mjs; see the peer README's "Memory"):
// V8's young generation starts at two 1 MiB semi-spaces and doubles under load up to two 16 MiB
// ones, so a busy operations server carries ~32 MiB of mostly empty young space; and the old
// generation is allowed to grow to several times its live size before a full collection.
// `--max-semi-space-size` only takes effect on the command line, which would be a flag the user
// must remember; V8 reads the growth factor each time it grows the young generation, and clamps
// it to at least 2 only when the heap is configured, so setting it to 1 here stops further growth.

/** Two 2 MiB semi-spaces: measured as cheap in CPU as the default under load; 1 MiB cost ~15 % more. */
const YOUNG_GENERATION_BYTES = 4 * 1024 * 1024;

/** Old generation may grow 20 % past what survived the last full collection (V8's default is up to 4×). */
const OLD_GENERATION_GROWING_PERCENT = 20;

/** V8 options an operator may give to size the heap themselves; any of them turns these settings off. */
const OPERATOR_HEAP_OPTIONS = /--(max-semi-space-size|min-semi-space-size|semi-space-growth-factor|heap-growing-percent|optimize-for-size)\b/;

function operatorSizesHeap(): boolean {
  // V8 accepts `_` for `-` in option names.
  return [...process.execArgv, process.env['NODE_OPTIONS'] ?? ''].some((arg) => OPERATOR_HEAP_OPTIONS.test(arg.replaceAll('_', '-')));
}

/**
 * Freezes the young generation at its initial size and caps old-generation growth, unless the
 * operator sized the heap with V8 options of their own; says whether it did. Call first, before the
 * server's modules load: loading them would otherwise grow the young generation.
 */
export function holdHeapGrowth(): boolean {
  if (operatorSizesHeap()) return false;
  setFlagsFromString('--semi-space-growth-factor=1');
  setFlagsFromString(`--heap-growing-percent=${OLD_GENERATION_GROWING_PERCENT}`);
  return true;
}

function youngGenerationBytes(): number {
  return getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;
}

/**
 * Lets the young generation double once (to YOUNG_GENERATION_BYTES) when load needs it, then
 * freezes it again; the garbage-collection observer is dropped once the cap is reached.
 */
export function allowYoungGenerationToCap(): void {
  if (youngGenerationBytes() >= YOUNG_GENERATION_BYTES) return;
  setFlagsFromString('--semi-space-growth-factor=2');
  const observer = new PerformanceObserver(() => {
    if (youngGenerationBytes() < YOUNG_GENERATION_BYTES) return;
    setFlagsFromString('--semi-space-growth-factor=1');
    observer.disconnect();
  });
  observer.observe({ entryTypes: ['gc'] });
}

/**
 * Runs `use` with a CommonJS module that only start-up needs, then drops from require's cache
 * every module that loading it added, so a full collection can free their code and data. The bins
 * read their configuration this way: ops-config with zod and yaml is ~3.5 MiB of live heap that an
 * ES module import would keep for the life of the process. What `use` returns must be plain data;
 * a function or class instance from the module would keep the whole module graph alive. Modules
 * that were cached before (an embedder's own copy of zod, say) stay cached.
 */
export function requireForStartup<M, R>(specifier: string, parentUrl: string, use: (loaded: M) => R): R {
  const load = createRequire(parentUrl);
  const cachedBefore = new Set(Object.keys(load.cache));
  try {
    return use(load(specifier) as M);
  } finally {
    for (const id of Object.keys(load.cache)) {
      if (!cachedBefore.has(id)) delete load.cache[id];
    }
  }
}

type GarbageCollect = () => void;

/** V8's `gc()`, made reachable without the user passing `--expose-gc`, and the flag put back after. */
function garbageCollector(): GarbageCollect {
  const exposed = (globalThis as { gc?: GarbageCollect }).gc;
  if (typeof exposed === 'function') return exposed;
  setFlagsFromString('--expose-gc');
  try {
    // The flag installs gc() only in contexts created after it is set.
    return runInNewContext('gc') as GarbageCollect;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}

/**
 * Two full, compacting collections once the server is listening: start-up leaves several MiB of
 * garbage in old space (the configuration step's modules once released, file and module source
 * buffers) that nothing would collect until load grows the heap, and the survivors are scattered
 * over pages that V8 keeps as long as anything lives on them. Compacting moves them together
 * (~1 MiB fewer old-space pages than V8's own heuristics leave), and the second collection
 * returns the pages the first emptied. A few milliseconds, once. Compaction is switched back off
 * afterwards: under load, compacting every full collection lowers the average old space but
 * raises the peak, since each live object is copied before its page is freed.
 */
export function collectStartupGarbage(): void {
  const gc = garbageCollector();
  const operatorCompacts = [...process.execArgv, process.env['NODE_OPTIONS'] ?? ''].some((arg) => /--compact-on-every-full-gc\b/.test(arg.replaceAll('_', '-')));
  setFlagsFromString('--compact-on-every-full-gc');
  try {
    gc();
    gc();
  } finally {
    if (!operatorCompacts) setFlagsFromString('--no-compact-on-every-full-gc');
  }
}

/** An operator's own choice about V8's optimizing compiler, which the bins then leave alone. */
const OPERATOR_COMPILER_OPTIONS = /--(no-)?(opt|turbofan|always-opt|always-turbofan|max-opt)\b/;

/**
 * Keeps V8's optimizing compiler (TurboFan) off until `resume` is called. What runs hot during
 * start-up (node's module resolution, the configuration step) never runs again, so optimizing it
 * only costs CPU, ~1.7 MiB of compiler zones in the compile threads' malloc arenas and ~3.5 MiB of
 * node's own machine code paged in, all of it before the first request. With the compiler back on,
 * the request path is optimized as soon as load makes it hot, as in any node process. Says whether
 * it deferred (not when the operator gave a compiler option of their own).
 */
export function deferOptimizingCompiler(): { readonly deferred: boolean; resume(): void } {
  const operatorChose = [...process.execArgv, process.env['NODE_OPTIONS'] ?? ''].some((arg) => OPERATOR_COMPILER_OPTIONS.test(arg.replaceAll('_', '-')));
  if (operatorChose) return { deferred: false, resume: () => {} };
  setFlagsFromString('--no-turbofan');
  let resumed = false;
  return {
    deferred: true,
    resume: () => {
      if (resumed) return;
      resumed = true;
      setFlagsFromString('--turbofan');
    },
  };
}
