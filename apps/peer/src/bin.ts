#!/usr/bin/env node
import { allowYoungGenerationToCap, collectStartupGarbage, deferOptimizingCompiler, holdHeapGrowth } from '@fabric-ops/ops-server/heap';

// Before anything else loads: start-up allocation would otherwise grow the heap for good.
const heapHeld = holdHeapGrowth();
const optimizingCompiler = deferOptimizingCompiler();
const { runPeer } = await import('./main.ts');

// Once listening: start-up's garbage collected (before the young generation may grow), then
// the young generation allowed its one doubling.
const onReady = (): void => {
  collectStartupGarbage();
  if (heapHeld) allowYoungGenerationToCap();
  optimizingCompiler.resume();
};

runPeer({ onReady }).then(
  (code) => {
    process.exitCode = code;
    // Anything still holding the loop open after a graceful stop must not keep the process alive.
    setTimeout(() => process.exit(code), 1_000).unref();
  },
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
