export { buildOracle, countByClass, generateCorpus, readCorpus, runOracle, toPem } from './corpus.ts';
export type { CorpusCase, GoVerdict, LoadedCorpus } from './corpus.ts';
