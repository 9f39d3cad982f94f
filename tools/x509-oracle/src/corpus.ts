import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { readPools } from './pools.mjs';

const run = promisify(execFile);
const sourceDir = fileURLToPath(new URL('..', import.meta.url));

/** One client chain of the corpus (see tools/x509-oracle/README.md for the file format). */
export interface CorpusCase {
  readonly id: string;
  readonly class: string;
  readonly pool: string;
  /** The verification time the verdict applies to. */
  readonly time: Date;
  /** Every certificate the client sends, leaf first, exactly as sent. */
  readonly chain: readonly Uint8Array[];
  /** The leaf's private key (PKCS#8 PEM) when the leaf key can sign a TLS handshake. */
  readonly key: string | undefined;
}

export interface LoadedCorpus {
  readonly dir: string;
  readonly cases: readonly CorpusCase[];
  /** Pool id → the text of each of its CA files, in file-name order. */
  readonly pools: ReadonlyMap<string, readonly string[]>;
}

/** What Go's crypto/tls server decides for one case. */
export interface GoVerdict {
  readonly id: string;
  readonly class: string;
  readonly admit: boolean;
  readonly reason: string;
  readonly bytes12: number;
  readonly bytes13: number;
}

/** `go build`s the generator/oracle into a fresh temp directory; resolves the binary's path and `go version`. */
export async function buildOracle(): Promise<{ bin: string; goVersion: string }> {
  const out = mkdtempSync(join(tmpdir(), 'x509-oracle-'));
  const bin = join(out, 'x509-oracle');
  let goVersion: string;
  try {
    goVersion = (await run('go', ['version'], { cwd: sourceDir })).stdout.trim();
  } catch (error) {
    throw new Error(`x509-oracle: the Go toolchain is missing (\`go version\` failed: ${(error as Error).message}); install Go 1.26 or newer`);
  }
  // The verdicts must be Go 1.26's (Fabric v2.5.16 and v3.1.5 are built with Go 1.26.4): an older
  // Go would test against the wrong rules, so it is refused here rather than trusted.
  const release = /go(\d+)\.(\d+)/.exec(goVersion);
  if (release === null || Number(release[1]) < 1 || (Number(release[1]) === 1 && Number(release[2]) < 26)) {
    throw new Error(`x509-oracle: ${goVersion} is older than Go 1.26; the oracle decides as Go 1.26.4 does and needs Go 1.26 or newer`);
  }
  // No network and no module downloads: the programs use the standard library only.
  const env = { ...process.env, GOPROXY: 'off', CGO_ENABLED: '0' };
  await run('go', ['build', '-o', bin, '.'], { cwd: sourceDir, env, maxBuffer: 16 << 20 });
  return { bin, goVersion };
}

/** Writes a corpus with `seed` into a fresh temp directory; `time` 'now' makes validity relative to the real clock. */
export async function generateCorpus(bin: string, options: { seed: number; time?: string }): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'x509-corpus-'));
  const args = ['generate', '-out', dir, '-seed', String(options.seed)];
  if (options.time !== undefined) args.push('-time', options.time);
  await run(bin, args, { maxBuffer: 16 << 20 });
  return dir;
}

/** Go's verdict for every case of the corpus in `dir`, by case id. */
export async function runOracle(bin: string, dir: string): Promise<Map<string, GoVerdict>> {
  const { stdout } = await run(bin, ['oracle', '-corpus', dir], { maxBuffer: 64 << 20 });
  const verdicts = new Map<string, GoVerdict>();
  for (const line of stdout.split('\n')) {
    if (line === '') continue;
    const v = JSON.parse(line) as GoVerdict;
    verdicts.set(v.id, v);
  }
  return verdicts;
}

interface CaseLine {
  id: string;
  class: string;
  pool: string;
  time: string;
  chain: string[];
  key?: string;
}

export function readCorpus(dir: string): LoadedCorpus {
  const cases: CorpusCase[] = [];
  for (const line of readFileSync(join(dir, 'cases.jsonl'), 'utf8').split('\n')) {
    if (line === '') continue;
    const c = JSON.parse(line) as CaseLine;
    cases.push({
      id: c.id,
      class: c.class,
      pool: c.pool,
      time: new Date(c.time),
      chain: c.chain.map((b) => new Uint8Array(Buffer.from(b, 'base64'))),
      key: c.key,
    });
  }
  const pools = readPools(dir);
  return { dir, cases, pools };
}

/** One certificate as a PEM block, 64 columns. */
export function toPem(der: Uint8Array): string {
  const b64 = Buffer.from(der).toString('base64');
  return `-----BEGIN CERTIFICATE-----\n${b64.replace(/.{1,64}/g, '$&\n')}-----END CERTIFICATE-----\n`;
}

/** `<id> ...` lines → [class, count], the class read back from the id (`<index>-<class>`). */
export function countByClass(lines: readonly string[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const line of lines) {
    const cls = /^\d+-([^ :]+)/.exec(line)?.[1] ?? line;
    counts.set(cls, (counts.get(cls) ?? 0) + 1);
  }
  return [...counts].sort(([a], [b]) => a.localeCompare(b));
}
