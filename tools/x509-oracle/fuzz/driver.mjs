// The fuzzer's driver, shared by tools/x509-oracle/test/fuzz.test.ts (a fixed budget in CI) and
// bench/x509-fuzz.bench.mjs (long runs that shrink what they find). Plain JavaScript so that the
// bench runs on every Node line without a TypeScript loader; the verifier is passed in (the test
// gives the source, the bench the built package).
//
// Pipeline: the Go generator (./*.go here, `x509-fuzz`) writes a batch of mutated chains as an
// x509-oracle corpus; the oracle (`x509-oracle oracle`, Go 1.26's crypto/tls decision) decides
// it; our verifier decides each case again here. The next batch is generated and decided while
// this one is compared, so the Go side and Node use both cores.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { readPools } from '../src/pools.mjs';

const run = promisify(execFile);
const oracleDir = fileURLToPath(new URL('..', import.meta.url));

/** Builds the oracle and the fuzzer with the Go on PATH (1.26 or newer) into a fresh temp directory. */
export async function buildFuzzTools() {
  const dir = mkdtempSync(join(tmpdir(), 'x509-fuzz-bin-'));
  let goVersion;
  try {
    goVersion = (await run('go', ['version'], { cwd: oracleDir })).stdout.trim();
  } catch (error) {
    throw new Error(`x509-fuzz: the Go toolchain is missing (\`go version\` failed: ${error.message}); install Go 1.26 or newer`);
  }
  const release = /go(\d+)\.(\d+)/.exec(goVersion);
  if (release === null || Number(release[1]) < 1 || (Number(release[1]) === 1 && Number(release[2]) < 26)) {
    throw new Error(`x509-fuzz: ${goVersion} is older than Go 1.26; the oracle decides as Go 1.26.4 does and needs Go 1.26 or newer`);
  }
  const env = { ...process.env, GOPROXY: 'off', CGO_ENABLED: '0' };
  const oracle = join(dir, 'x509-oracle');
  const fuzzer = join(dir, 'x509-fuzz');
  await run('go', ['build', '-o', oracle, '.'], { cwd: oracleDir, env, maxBuffer: 16 << 20 });
  await run('go', ['build', '-o', fuzzer, './fuzz'], { cwd: oracleDir, env, maxBuffer: 16 << 20 });
  return { dir, oracle, fuzzer, goVersion };
}

/** Generates cases [start, start + count) of `seed` and has the oracle decide them; resolves the batch. */
export async function makeBatch(tools, { seed, start, count, time, keep }) {
  const dir = mkdtempSync(join(tmpdir(), 'x509-fuzz-'));
  const args = ['-out', dir, '-seed', String(seed), '-start', String(start), '-count', String(count)];
  if (time !== undefined) args.push('-time', time);
  if (keep !== undefined) args.push('-keep', keep.length === 0 ? 'none' : keep.join(','));
  const gen = JSON.parse((await run(tools.fuzzer, args, { maxBuffer: 16 << 20 })).stdout);
  const { stdout } = await run(tools.oracle, ['oracle', '-corpus', dir], { maxBuffer: 256 << 20 });
  const verdicts = new Map();
  for (const line of stdout.split('\n')) {
    if (line === '') continue;
    const v = JSON.parse(line);
    verdicts.set(v.id, v);
  }
  const cases = [];
  for (const line of readFileSync(join(dir, 'cases.jsonl'), 'utf8').split('\n')) {
    if (line !== '') cases.push(JSON.parse(line));
  }
  const pools = readPools(dir);
  rmSync(dir, { recursive: true, force: true });
  return { seed, start, count, cases, verdicts, pools, generatorMs: gen.ms };
}

/**
 * Decides every case of a batch with our verifier (`x509`: createClientTrustPool,
 * verifyClientChain, clientCertificateMessageProblem) and sorts each into one of: agree (same
 * verdict, same text), text (same verdict, another text), admits (we admit, Go refuses) or
 * refuses (we refuse, Go admits).
 */
export function compareBatch(batch, x509) {
  const pools = new Map();
  const out = { cases: 0, agree: 0, goAdmits: 0, goReasons: new Map(), disagreements: [] };
  for (const c of batch.cases) {
    const go = batch.verdicts.get(c.id);
    if (go === undefined) throw new Error(`x509-fuzz: the oracle gave no verdict for case ${c.id}`);
    let pool = pools.get(c.pool);
    if (pool === undefined) {
      try {
        pool = x509.createClientTrustPool(batch.pools.get(c.pool) ?? []);
      } catch (error) {
        pool = error;
      }
      pools.set(c.pool, pool);
    }
    const chain = (c.chain ?? []).map((b) => new Uint8Array(Buffer.from(b, 'base64')));
    const at = new Date(c.time);
    const oversize = chain.length > 0 ? x509.clientCertificateMessageProblem(chain, 'TLSv1.3') : undefined;
    const ours =
      oversize !== undefined ? { accept: false, reason: oversize } : pool instanceof Error ? { accept: false, reason: `trust pool: ${pool.message}` } : x509.verifyClientChain(chain, pool, at);
    const oursReason = ours.accept ? 'admitted' : ours.reason;
    out.cases++;
    if (go.admit) out.goAdmits++;
    const shape = reasonShape(go.reason);
    out.goReasons.set(shape, (out.goReasons.get(shape) ?? 0) + 1);
    if (ours.accept === go.admit && oursReason === go.reason) {
      out.agree++;
      continue;
    }
    const kind = ours.accept === go.admit ? 'text' : ours.accept ? 'admits' : 'refuses';
    out.disagreements.push({
      kind,
      index: c.index,
      seed: batch.seed,
      id: c.id,
      chainSeed: c.seed,
      ops: c.ops ?? [],
      ours: oursReason,
      go: go.reason,
      chain: c.chain ?? [],
      pool: batch.pools.get(c.pool) ?? [],
    });
  }
  return out;
}

/** A reason with the parts that vary between cases of one cause (numbers, quoted values, types) blanked. */
export function reasonShape(reason) {
  return reason
    .replace(/"(?:[^"\\]|\\.)*"/g, '"…"')
    .replace(/(?<![A-Za-z0-9])\d+/g, 'N')
    .replace(/x509: certificate is valid for .*$/, 'x509: certificate is valid for …')
    .slice(0, 160);
}

/** The class of a disagreement: its kind and what each side said, shaped. */
export function disagreementClass(d) {
  return `${d.kind} | ours: ${reasonShape(d.ours)} | go: ${reasonShape(d.go)}`;
}

/**
 * Runs cases [start, start + cases) of `seed` in batches, generating the next batch while comparing this one.
 * `onBatch(result, batch)` sees each comparison; resolves the totals (with every disagreement
 * unless `collect` is false: a long run keeps its own bounded record through onBatch).
 */
export async function runFuzz(tools, x509, { seed, cases, start = 0, batch = 2500, time, onBatch, collect = true }) {
  const totals = { cases: 0, agree: 0, goAdmits: 0, goReasons: new Map(), byKind: { admits: 0, refuses: 0, text: 0 }, disagreements: [], generatorMs: 0 };
  const next = (done) => (done < cases ? makeBatch(tools, { seed, start: start + done, count: Math.min(batch, cases - done), time }) : undefined);
  let pending = next(0);
  for (let done = 0; pending !== undefined; done += batch) {
    const b = await pending;
    pending = next(done + batch);
    const r = compareBatch(b, x509);
    totals.cases += r.cases;
    totals.agree += r.agree;
    totals.goAdmits += r.goAdmits;
    totals.generatorMs += b.generatorMs;
    for (const [shape, n] of r.goReasons) totals.goReasons.set(shape, (totals.goReasons.get(shape) ?? 0) + n);
    for (const d of r.disagreements) {
      totals.byKind[d.kind]++;
      if (collect) totals.disagreements.push(d);
    }
    onBatch?.(r, b);
  }
  return totals;
}

/**
 * Shrinks one disagreement: drops the case's operators one at a time while the same class
 * remains, and resolves the smallest case found (its disagreement, with the kept operator positions).
 */
export async function shrink(tools, x509, d, { time } = {}) {
  const cls = disagreementClass(d);
  let keep = d.ops.map((_, i) => i);
  let best = d;
  for (let progress = true; progress && keep.length > 0;) {
    progress = false;
    for (const drop of keep) {
      const tryKeep = keep.filter((k) => k !== drop);
      const b = await makeBatch(tools, { seed: d.seed, start: d.index, count: 1, time, keep: tryKeep });
      const got = compareBatch(b, x509).disagreements[0];
      if (got !== undefined && disagreementClass(got) === cls) {
        keep = tryKeep;
        best = { ...got, keep };
        progress = true;
        break;
      }
    }
  }
  return { ...best, keep };
}

/** One certificate as a PEM block. */
export function pem(b64) {
  return `-----BEGIN CERTIFICATE-----\n${b64.replace(/.{1,64}/g, '$&\n')}-----END CERTIFICATE-----\n`;
}
