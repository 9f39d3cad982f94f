// What the chain benches (chain-latency, chain-memory) share: their targets, and the handshaking
// clients (lib/tls-client-loops.mjs) that send each target certificate lists.
import { fork } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fabricTlsEnv, startFabric } from './fabric.mjs';
import { startListening, startPeer, writePeerConfig } from './peer.mjs';

const RAW_SERVER = fileURLToPath(new URL('./raw-version-server.mjs', import.meta.url));
const CLIENT_LOOPS = fileURLToPath(new URL('./tls-client-loops.mjs', import.meta.url));

/**
 * The targets, one after the other, same certificates, each `[name, start]`: the peer bin
 * (clientAuthRequired false, the bench CA as its client root CA; `peerOptions` go to startPeer),
 * raw node:https with requestCert and the same CA file (reads nothing from the client's list),
 * and Fabric's own operations server when `fabric` (lib/fabric.mjs' fabricReference) names it.
 */
export function chainTargets(dir, pki, fabric, peerOptions = {}) {
  const targets = [
    ['peer', () => startPeer(writePeerConfig(join(dir, 'peer'), { tls: pki.files }), peerOptions)],
    ['raw node:https', () => startListening('raw node:https', process.execPath, [RAW_SERVER, pki.files.certFile, pki.files.keyFile, pki.files.caFile])],
  ];
  if (fabric.binary !== undefined) targets.push(['Fabric', () => startFabric(fabric.binary, fabricTlsEnv(pki.files, false))]);
  return targets;
}

/**
 * Runs lib/tls-client-loops.mjs with these options ({ port, connections, count?, seconds?, cert,
 * key, ca? }) and resolves with its `{ made, failed }` when it exits.
 */
export async function runTlsClients(options) {
  const child = fork(CLIENT_LOOPS, [JSON.stringify(options)], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'], execArgv: [] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => (out += chunk));
  await new Promise((resolve) => child.once('exit', resolve));
  return JSON.parse(out || '{"made":0,"failed":0}');
}
