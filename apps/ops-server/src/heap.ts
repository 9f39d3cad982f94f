import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

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
