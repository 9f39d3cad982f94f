export { runPeer, SAMPLE_CORE_YAML } from './main.ts';
export type { PeerRunOptions } from './main.ts';
