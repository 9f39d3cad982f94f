import { fileURLToPath } from 'node:url';
import { peerLauncher as launcherFor, type PeerLauncher } from '@fabric-ops/test-kit';

export const repoRoot: string = fileURLToPath(new URL('../../../', import.meta.url));
export const PEER_BIN: string = fileURLToPath(new URL('../../../apps/peer/dist/bin.cjs', import.meta.url));
export const ORDERER_BIN: string = fileURLToPath(new URL('../../../apps/orderer/dist/bin.cjs', import.meta.url));
export const OPSCTL_BIN: string = fileURLToPath(new URL('../../../apps/opsctl/dist/bin.js', import.meta.url));

/** Peers from the built peer bin, stopped by `stopAll()`. */
export const peerLauncher = (): PeerLauncher => launcherFor(PEER_BIN);
