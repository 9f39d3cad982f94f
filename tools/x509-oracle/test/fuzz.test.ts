import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientCertificateMessageProblem, createClientTrustPool, verifyClientChain } from '@fabric-ops/go-x509';
import { buildFuzzTools, disagreementClass, makeBatch, reasonShape, runFuzz, type Batch, type Disagreement, type FuzzTools, type FuzzTotals, type Verifier } from '../fuzz/driver.mjs';

// A structure-aware DER mutation fuzzer (../fuzz: Fabric-shaped seed chains, mutated in their
// names, constraints, extensions, keys, algorithms, versions, times, string types and encodings,
// re-signed) with every case decided by our verifier and by Go 1.26 itself (the oracle, built
// from ../*.go with the Go on PATH). Fixed seeds, a fixed budget; bench/x509-fuzz.bench.mjs runs
// the same fuzzer for millions of cases and shrinks what it finds.

/** The budget: fixed seeds and case counts, so that a failure here reproduces anywhere. */
const RUNS = [
  { seed: 1, cases: 10_000 },
  { seed: 2, cases: 10_000 },
] as const;

/**
 * Refusals Go does not make that are allowed here, by the shape of both reasons (see
 * reasonShape), each a difference the README's "How it differs from Fabric" or go-x509's README
 * lists. Empty: none of the fuzzer's cases needs one today.
 */
const KNOWN_REFUSALS: Readonly<Record<string, string>> = {};

/**
 * Same verdict, other text: each known class with why, matched on both reasons. Any other text
 * difference fails the test (go-x509 promises Go's text for every refusal).
 */
const KNOWN_TEXTS: readonly { why: string; matches: (d: Disagreement) => boolean }[] = [];

const verifier: Verifier = { createClientTrustPool, verifyClientChain: verifyClientChain as Verifier['verifyClientChain'], clientCertificateMessageProblem };

let tools: FuzzTools;
const totals: FuzzTotals[] = [];
let elapsedMs = 0;
/** How often each operator ran (a generator change that drops one fails here). */
const operatorCounts = new Map<string, number>();
const OPERATORS = [
  'san-dns',
  'san-email',
  'san-uri',
  'san-ip',
  'san-shape',
  'nc',
  'ku',
  'eku',
  'bc',
  'ext',
  'policy',
  'key',
  'sigalg',
  'version',
  'validity',
  'string',
  'serial',
  'uid',
  'length',
  'tag',
  'bytes',
  'sig',
  'shape',
  'unmutated',
];

beforeAll(async () => {
  const began = performance.now();
  tools = await buildFuzzTools();
  for (const run of RUNS) {
    const onBatch = (_: unknown, batch: Batch) => {
      for (const c of batch.cases) for (const op of c.ops ?? ['unmutated']) operatorCounts.set(op.replace(/[.@].*$/, ''), (operatorCounts.get(op.replace(/[.@].*$/, '')) ?? 0) + 1);
    };
    totals.push(await runFuzz(tools, verifier, { ...run, batch: 2500, onBatch }));
  }
  elapsedMs = performance.now() - began;
}, 600_000);
afterAll(() => {
  if (tools !== undefined) rmSync(tools.dir, { recursive: true, force: true });
});

function byClass(list: readonly Disagreement[]): Map<string, Disagreement[]> {
  const classes = new Map<string, Disagreement[]>();
  for (const d of list) {
    const cls = disagreementClass(d);
    classes.set(cls, [...(classes.get(cls) ?? []), d]);
  }
  return classes;
}

describe('the DER mutation fuzzer against Go itself', () => {
  it("admits no chain Go refuses, refuses none Go admits and gives Go's texts, over 20,000 mutated chains", () => {
    const all = totals.flatMap((t) => t.disagreements);
    const cases = totals.reduce((n, t) => n + t.cases, 0);
    const goAdmits = totals.reduce((n, t) => n + t.goAdmits, 0);
    const admits = all.filter((d) => d.kind === 'admits');
    const refuses = all.filter((d) => d.kind === 'refuses' && !(disagreementClass(d) in KNOWN_REFUSALS));
    const texts = all.filter((d) => d.kind === 'text');
    const documented = (d: Disagreement) => KNOWN_TEXTS.find((t) => t.matches(d));
    const unknownTexts = texts.filter((d) => documented(d) === undefined);
    const lines = [
      `x509 fuzz (${tools.goVersion}; seeds ${RUNS.map((r) => `${r.seed}×${r.cases}`).join(', ')}; ${(elapsedMs / 1000).toFixed(1)} s, generator ${(totals.reduce((n, t) => n + t.generatorMs, 0) / 1000).toFixed(1)} s):`,
      `  cases ${cases}, Go admits ${goAdmits}, agree (verdict and text) ${totals.reduce((n, t) => n + t.agree, 0)}`,
      `  admitted by us, refused by Go: ${admits.length}`,
      `  refused by us, admitted by Go: ${all.filter((d) => d.kind === 'refuses').length} (${refuses.length} not in KNOWN_REFUSALS)`,
      `  same verdict, other text: ${texts.length} (${unknownTexts.length} not in KNOWN_TEXTS)`,
    ];
    for (const [cls, ds] of byClass(all)) {
      const d = ds[0]!;
      const note = d.kind === 'text' ? (documented(d)?.why ?? 'NOT known') : d.kind === 'refuses' && cls in KNOWN_REFUSALS ? `known: ${KNOWN_REFUSALS[cls]}` : '';
      lines.push(
        `  ${ds.length} × ${cls}${note === '' ? '' : ` (${note})`}`,
        `      e.g. seed ${d.seed} case ${d.index}: ${d.ops.join(' + ') || 'unmutated'}`,
        `      ours: ${d.ours}`,
        `      go:   ${d.go}`,
      );
    }
    console.log(lines.join('\n'));
    expect(cases).toBe(RUNS.reduce((n, r) => n + r.cases, 0));
    expect(admits.map((d) => `${d.seed}/${d.index} ${d.id}: Go refuses (${d.go})`)).toEqual([]);
    expect(refuses.map((d) => `${d.seed}/${d.index} ${d.id}: we refuse (${d.ours}), Go admits`)).toEqual([]);
    expect(unknownTexts.map((d) => `${d.seed}/${d.index} ${d.id}: ours "${d.ours}", Go "${d.go}"`)).toEqual([]);
  });

  it('reaches the verifier: every operator runs, Go admits a fair share, and few refusals are bad signatures', () => {
    const cases = totals.reduce((n, t) => n + t.cases, 0);
    const goAdmits = totals.reduce((n, t) => n + t.goAdmits, 0);
    const reasons = new Map<string, number>();
    for (const t of totals) for (const [shape, n] of t.goReasons) reasons.set(shape, (reasons.get(shape) ?? 0) + n);
    const top = [...reasons].sort((a, b) => b[1] - a[1]);
    console.log(["Go's verdicts, by reason (top 25):", ...top.slice(0, 25).map(([shape, n]) => `  ${String(n).padStart(6)}  ${shape}`)].join('\n'));
    const share = (re: RegExp) => top.filter(([shape]) => re.test(shape)).reduce((n, [, k]) => n + k, 0) / cases;
    // Re-signing keeps signature failures a small part; parse errors are what a DER mutation
    // mostly makes, so they must leave room for the checks past the parser.
    expect(share(/verification error|signature/)).toBeLessThan(0.1);
    expect(share(/failed to parse/)).toBeLessThan(0.45);
    expect(goAdmits / cases).toBeGreaterThan(0.25);
    console.log(`operators applied: ${[...operatorCounts].map(([op, n]) => `${op} ${n}`).join(', ')}`);
    expect(OPERATORS.filter((op) => (operatorCounts.get(op) ?? 0) < 100)).toEqual([]);
    expect(goAdmits / cases).toBeLessThan(0.8);
    expect(reasonShape('x509: "a.b" 12 rfc822Name')).toBe('x509: "…" N rfc822Name');
  });

  it('is deterministic: a case regenerated alone is byte for byte the case of the run (what a reproducer relies on)', async () => {
    const run = await makeBatch(tools, { seed: 1, start: 40, count: 20 });
    const alone = await makeBatch(tools, { seed: 1, start: 53, count: 1 });
    expect(alone.cases[0]!.chain).toEqual(run.cases[13]!.chain);
    expect(alone.cases[0]!.id).toBe(run.cases[13]!.id);
    expect([...alone.pools.values()]).toEqual([run.pools.get(run.cases[13]!.pool)]);
  });

  it("passes the generator's own Go tests (go test ./...: cases it must still make, such as a key too small to sign with)", async () => {
    const { stdout } = await promisify(execFile)('go', ['test', '-count=1', './...'], { cwd: fileURLToPath(new URL('..', import.meta.url)) });
    expect(stdout).toMatch(/^ok\s+fabric-ops\/tools\/x509-oracle\/fuzz\b/m);
  }, 120_000);
});
