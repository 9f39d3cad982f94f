// The DER mutation fuzzer of client-certificate chains for long runs (tools/x509-oracle/fuzz):
// BENCH_FUZZ_CASES mutated Fabric-shaped chains of seed BENCH_FUZZ_SEED, each decided by the
// built @fabric-ops/go-x509 and by Go 1.26 itself (the x509-oracle, built with the Go on PATH),
// in batches: the Go side generates and decides the next batch while Node compares this one.
// What disagrees is sorted into classes (kind: admitted by us and refused by Go / refused by us
// and admitted by Go / same verdict, other text; then both reasons with the varying parts
// blanked); each class is shrunk to one reproducer (the fewest of its case's mutation operators
// that keep the class) and printed with both verdicts, the chain and the CA file as PEM, and the
// command that regenerates it. CI runs the same fuzzer with a fixed budget
// (tools/x509-oracle/test/fuzz.test.ts).
// Run: node bench/x509-fuzz.bench.mjs (after `pnpm build`), or `node bench/run.mjs x509-fuzz`.
//   BENCH_FUZZ_CASES (1000000)  cases
//   BENCH_FUZZ_SEED (1)         the seed of the case list; case i of seed s is the same chain on every machine
//   BENCH_FUZZ_START (0)        the index of the first case
//   BENCH_FUZZ_BATCH (5000)     cases per batch
//   BENCH_FUZZ_SHRINK (50)      classes shrunk and printed at most
//   BENCH_FUZZ_VERIFIER         another module exporting go-x509's entry points (e.g. an older build), to
//                               show what the fuzzer finds in it
// Exits 1 when it finds a chain we admit and Go refuses, or one we refuse and Go admits.
import './lib/fail.mjs';
import { loadavg } from 'node:os';
import { rmSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { buildFuzzTools, disagreementClass, pem, runFuzz, shrink } from '../tools/x509-oracle/fuzz/driver.mjs';

const CASES = Number(process.env.BENCH_FUZZ_CASES ?? 1_000_000);
const SEED = Number(process.env.BENCH_FUZZ_SEED ?? 1);
const START = Number(process.env.BENCH_FUZZ_START ?? 0);
const BATCH = Number(process.env.BENCH_FUZZ_BATCH ?? 5000);
const SHRINK = Number(process.env.BENCH_FUZZ_SHRINK ?? 50);
for (const [name, value] of Object.entries({ BENCH_FUZZ_CASES: CASES, BENCH_FUZZ_SEED: SEED, BENCH_FUZZ_START: START, BENCH_FUZZ_BATCH: BATCH, BENCH_FUZZ_SHRINK: SHRINK })) {
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${name} must be a whole number ≥ 0 (got ${process.env[name]})`);
}
const verifierModule = process.env.BENCH_FUZZ_VERIFIER;
const x509 = verifierModule === undefined ? await import('@fabric-ops/go-x509') : await import(pathToFileURL(verifierModule).href);
const load = () => loadavg()[0].toFixed(2);

const tools = await buildFuzzTools();
console.log(`x509 fuzz: ${tools.goVersion}, verifier ${verifierModule ?? '@fabric-ops/go-x509 (built)'}, seed ${SEED}, cases ${START}..${START + CASES - 1}, batches of ${BATCH}, load ${load()}`);

/** Per class: the count and the disagreement with the fewest operators seen (the shrink's start). */
const classes = new Map();
const began = performance.now();
let done = 0;
let lastReport = began;
const totals = await runFuzz(tools, x509, {
  seed: SEED,
  cases: CASES,
  start: START,
  batch: BATCH,
  collect: false,
  onBatch(result) {
    done += result.cases;
    for (const d of result.disagreements) {
      const cls = disagreementClass(d);
      const entry = classes.get(cls);
      if (entry === undefined) classes.set(cls, { count: 1, example: d });
      else {
        entry.count++;
        if (d.ops.length < entry.example.ops.length) entry.example = d;
      }
    }
    const now = performance.now();
    if (now - lastReport > 30_000 || done === CASES) {
      lastReport = now;
      console.log(`  ${done} cases, ${(done / ((now - began) / 1000)).toFixed(0)} cases/s, ${classes.size} classes so far, load ${load()}`);
    }
  },
});

const seconds = (performance.now() - began) / 1000;
console.log(
  [
    `\n${totals.cases} cases in ${seconds.toFixed(0)} s (${(totals.cases / seconds).toFixed(0)} cases/s; Go generator ${(totals.generatorMs / 1000).toFixed(0)} s), load ${load()}`,
    `  Go admits ${totals.goAdmits}; agree (verdict and text) ${totals.agree}`,
    `  admitted by us, refused by Go: ${totals.byKind.admits}`,
    `  refused by us, admitted by Go: ${totals.byKind.refuses}`,
    `  same verdict, other text: ${totals.byKind.text}`,
    `  ${classes.size} classes`,
  ].join('\n'),
);
const order = { admits: 0, refuses: 1, text: 2 };
const sorted = [...classes].sort(([, a], [, b]) => order[a.example.kind] - order[b.example.kind] || b.count - a.count);
for (const [n, [cls, { count, example }]] of sorted.entries()) {
  console.log(`\n[${n + 1}] ${count} × ${cls}`);
  if (n >= SHRINK) continue;
  const small = await shrink(tools, x509, example);
  const keep = small.keep.length === 0 ? 'none' : small.keep.join(',');
  console.log(
    [
      `  reproducer: seed ${small.seed}, case ${small.index}, ${small.keep.length} of its ${example.ops.length} operators kept (positions ${keep}): ${small.ops.join(' + ') || '(none: the seed chain itself)'}`,
      `  regenerate: cd tools/x509-oracle && go run ./fuzz -out DIR -seed ${small.seed} -start ${small.index} -count 1 -keep ${keep}`,
      `  ours: ${small.ours}`,
      `  go:   ${small.go}`,
      `  sent chain (leaf first):`,
      ...small.chain.map((b64) => pem(b64).trimEnd()),
      `  CA file:`,
      ...small.pool.map((text) => text.trimEnd()),
    ].join('\n'),
  );
}
rmSync(tools.dir, { recursive: true, force: true });
if (totals.byKind.admits > 0 || totals.byKind.refuses > 0) process.exitCode = 1;
