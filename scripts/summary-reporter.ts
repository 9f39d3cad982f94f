import { appendFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/** How many of the slowest test files the closing block names. */
const SLOWEST_SHOWN = 15;

/**
 * Prints one plain `tests: N passed, N failed, N skipped` line that any CI can read, and before it
 * where the run's time went: the slowest files and each project's total (a file's time is its
 * import plus its tests and hooks, as vitest measured it). With FABRIC_OPS_TEST_TIMINGS set to a
 * path, every file's time is also appended there as `ms<TAB>project<TAB>file`, so runs on
 * several Node lines can be compared.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    const files: { ms: number; project: string; file: string }[] = [];
    for (const mod of testModules) {
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
      const diagnostic = mod.diagnostic();
      files.push({ ms: Math.round(diagnostic.collectDuration + diagnostic.duration), project: mod.project.name, file: relative(process.cwd(), mod.moduleId) });
    }
    process.stdout.write(timingBlock(files));
    const timingsFile = process.env.FABRIC_OPS_TEST_TIMINGS;
    if (timingsFile) appendFileSync(timingsFile, files.map((f) => `${f.ms}\t${f.project}\t${f.file}\n`).join(''));
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}

function timingBlock(files: readonly { ms: number; project: string; file: string }[]): string {
  if (files.length === 0) return '';
  const byProject = new Map<string, number>();
  for (const f of files) byProject.set(f.project, (byProject.get(f.project) ?? 0) + f.ms);
  const seconds = (ms: number): string => (ms / 1000).toFixed(1).padStart(6);
  const lines = ['', `slowest test files (of ${files.length}; import + tests, s):`];
  for (const f of [...files].sort((a, b) => b.ms - a.ms).slice(0, SLOWEST_SHOWN)) lines.push(`${seconds(f.ms)}  ${f.file}`);
  lines.push('per project (s, summed over files that may run in parallel):');
  for (const [project, ms] of [...byProject].sort((a, b) => b[1] - a[1])) lines.push(`${seconds(ms)}  ${project}`);
  return lines.join('\n') + '\n';
}
