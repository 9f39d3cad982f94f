import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { clientCertificateMessageProblem, createClientTrustPool, verifyClientChain } from '@fabric-ops/go-x509';
import { useOracle } from '../src/index.ts';

// Go's own crypto/x509 tests, read from the installed Go at test time (never copied here): the
// tables of verify_test.go and name_constraints_test.go, each case built by those files' own
// helpers, and the questions Go's table-shaped tests of verify_test.go ask while they run
// (TestPathBuilding, TestEKUEnforcement, TestPoliciesValid, TestPathologicalChains, ...: the
// oracle's `gotables-overlay` routes their Verify and policiesValid calls through a recorder).
// ../gotables/_dump_test.go is compiled into the standard crypto/x509 test package with `go test
// -overlay` and writes every case as the server meets it (the leaf and the other certificates as
// sent, the case's roots as the CA files, the case's time); the oracle (crypto/tls + crypto/x509
// of the same Go) and go-x509's verifyClientChain then decide each one.

const run = promisify(execFile);
const dumpSource = fileURLToPath(new URL('../gotables/_dump_test.go', import.meta.url));

/**
 * Fewest cases each table or test must yield: a Go upgrade that renames, moves or empties one
 * fails here instead of passing with nothing checked. Go 1.26.8 gives 26, 98, 10, 8, 51, 4, 6, 1
 * and 1.
 */
const MINIMUM_READ: Readonly<Record<string, number>> = {
  verifyTests: 20,
  nameConstraintsTests: 80,
  TestPathBuilding: 8,
  TestEKUEnforcement: 6,
  TestPoliciesValid: 40,
  TestPathologicalChains: 4,
  TestVerifyEKURootAsLeaf: 4,
  TestInvalidPolicyWithAnyKeyUsage: 1,
  TestCertificateChainSignedByECDSA: 1,
};

/**
 * Cases go-x509 refuses although Go admits them, by table and name, each with why: a documented
 * difference, never a way to silence a failure. Empty: there are none.
 */
const KNOWN_REFUSALS: Readonly<Record<string, string>> = {};

interface TablesSummary {
  readonly read: Readonly<Record<string, number>>;
  readonly cases: readonly { id: string; table: string; name: string; mapped?: string[] }[];
  readonly skips: readonly { table: string; name: string; reason: string }[] | null;
}

let summary: TablesSummary;

const oracle = useOracle(async (bin, scratch) => {
  const goroot = (await run('go', ['env', 'GOROOT'])).stdout.trim();
  const x509Dir = join(goroot, 'src', 'crypto', 'x509');
  if (!existsSync(join(x509Dir, 'verify_test.go'))) throw new Error(`go-tables: ${x509Dir}/verify_test.go is missing; this Go installation has no crypto/x509 test files`);
  const dir = scratch(mkdtempSync(join(tmpdir(), 'x509-gotables-')));
  // verify_test.go with its Verify and policiesValid calls recorded, and the overlay that puts it
  // and the dump in place; how many calls were routed, by function.
  const routed = JSON.parse((await run(bin, ['gotables-overlay', '-goroot', goroot, '-dump', dumpSource, '-out', dir])).stdout) as Record<string, number>;
  console.log(`gotables-overlay: Verify/policiesValid calls routed in verify_test.go: ${JSON.stringify(routed)}`);
  const overlay = join(dir, 'overlay.json');
  const out = join(dir, 'corpus');
  // As the oracle is built (no network, no cgo), so the standard packages come from the same cache.
  const env = { ...process.env, GOPROXY: 'off', CGO_ENABLED: '0', GOFLAGS: '', FABRIC_OPS_GOTABLES_OUT: out };
  mkdirSync(out);
  await run('go', ['test', '-overlay', overlay, '-count=1', '-run', '^TestFabricOpsDumpGoTables$', 'crypto/x509'], { cwd: dir, env, maxBuffer: 16 << 20 });
  summary = JSON.parse(readFileSync(join(out, 'tables.json'), 'utf8')) as TablesSummary;
  return out;
}, 300_000);

describe("Go's own crypto/x509 test cases, decided as a server decides a client's chain", () => {
  it('reads every table it walks, with a plausible number of cases', () => {
    const { corpus, verdicts } = oracle();
    for (const [table, minimum] of Object.entries(MINIMUM_READ)) expect(summary.read[table] ?? 0, table).toBeGreaterThanOrEqual(minimum);
    expect(verdicts.size).toBe(corpus.cases.length);
    expect(summary.cases.length).toBe(corpus.cases.length);
  });

  it('admits no case Go refuses, refuses none Go admits, and gives Go its text', () => {
    const { corpus, verdicts, goVersion } = oracle();
    const names = new Map(summary.cases.map((c) => [c.id, c]));
    const stats = new Map<string, { decided: number; agreed: number; admitted: number; skipped: number }>();
    const statsOf = (table: string) => {
      let s = stats.get(table);
      if (s === undefined) stats.set(table, (s = { decided: 0, agreed: 0, admitted: 0, skipped: 0 }));
      return s;
    };
    for (const skip of summary.skips ?? []) statsOf(skip.table).skipped++;
    const admitsGoRefuses: string[] = [];
    const unexplainedRefusals: string[] = [];
    const textsDiffer: string[] = [];
    for (const c of corpus.cases) {
      const go = verdicts.get(c.id)!;
      const meta = names.get(c.id)!;
      const label = `${meta.table} ${JSON.stringify(meta.name)}`;
      const s = statsOf(meta.table);
      s.decided++;
      const oversize = clientCertificateMessageProblem(c.chain, 'TLSv1.3');
      const ours = oversize !== undefined ? { accept: false as const, reason: oversize } : verifyClientChain(c.chain, createClientTrustPool(corpus.pools.get(c.pool) ?? []), c.time);
      if (ours.accept === go.admit) {
        s.agreed++;
        if (ours.accept) s.admitted++;
        else if (ours.reason !== go.reason) textsDiffer.push(`${label}: ours ${JSON.stringify(ours.reason)}, Go ${JSON.stringify(go.reason)}`);
      } else if (ours.accept) admitsGoRefuses.push(`${label}: Go refuses (${go.reason})`);
      else if (!(`${meta.table} ${meta.name}` in KNOWN_REFUSALS)) unexplainedRefusals.push(`${label}: we refuse (${ours.reason}), Go admits`);
    }
    console.log(
      [
        `Go's crypto/x509 tables (${goVersion}), as a client-certificate decision:`,
        ...Object.keys(summary.read)
          .sort()
          .map((table) => {
            const s = statsOf(table);
            return `  ${table}: read ${summary.read[table]}, decided ${s.decided} (Go admits ${s.admitted}), agreed ${s.agreed}, skipped ${s.skipped}`;
          }),
        ...(summary.skips ?? []).map((k) => `  SKIPPED ${k.table} ${JSON.stringify(k.name)}: ${k.reason}`),
        ...admitsGoRefuses.map((l) => `  ADMITTED: ${l}`),
        ...unexplainedRefusals.map((l) => `  REFUSED: ${l}`),
        ...textsDiffer.map((l) => `  TEXT: ${l}`),
      ].join('\n'),
    );
    expect(admitsGoRefuses).toEqual([]);
    expect(unexplainedRefusals).toEqual([]);
    expect(textsDiffer).toEqual([]);
  });
});
