export { runOrderer, SAMPLE_ORDERER_YAML } from './main.ts';
export type { OrdererRunOptions } from './main.ts';
