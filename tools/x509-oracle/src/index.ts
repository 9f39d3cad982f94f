export { buildOracle, countByClass, generateCorpus, readCorpus, runOracle, toPem } from './corpus.ts';
export type { CorpusCase, GoVerdict, LoadedCorpus } from './corpus.ts';
export { useOracle } from './use-oracle.ts';
export type { OracleRun } from './use-oracle.ts';
