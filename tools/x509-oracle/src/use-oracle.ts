import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { buildOracle, readCorpus, runOracle, type GoVerdict, type LoadedCorpus } from './corpus.ts';

/** A built oracle, the corpus it was given and Go's verdict on each of its cases. */
export interface OracleRun {
  readonly bin: string;
  readonly goVersion: string;
  readonly corpus: LoadedCorpus;
  readonly verdicts: Map<string, GoVerdict>;
}

/**
 * For a test file: before its tests, builds the oracle, lets `writeCorpus` make the corpus (every
 * directory it makes goes through `scratch`, which returns it) and has Go decide each case; after
 * them, removes the oracle's directory and those. The returned function gives the run inside tests.
 */
export function useOracle(writeCorpus: (bin: string, scratch: (dir: string) => string) => Promise<string>, timeout: number): () => OracleRun {
  let run: OracleRun | undefined;
  const temp: string[] = [];
  const scratch = (dir: string): string => {
    temp.push(dir);
    return dir;
  };
  beforeAll(async () => {
    const built = await buildOracle();
    scratch(dirname(built.bin));
    const dir = await writeCorpus(built.bin, scratch);
    run = { ...built, corpus: readCorpus(dir), verdicts: await runOracle(built.bin, dir) };
  }, timeout);
  afterAll(() => {
    for (const dir of temp) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    if (run === undefined) throw new Error('useOracle: the oracle exists only inside tests');
    return run;
  };
}
