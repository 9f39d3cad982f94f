// Plain JavaScript so that the benches, which run on plain node over built packages, share these
// with podman.ts.
import { join } from 'node:path';

/**
 * `podman system service` on `socketPath`, configured to need nothing from the host: storage,
 * run state and events under `dir` (vfs storage, cgroupfs, file events), so it runs as root in a
 * bare container and beside other services without sharing state.
 */
export function podmanServiceArgs(dir, socketPath) {
  return [
    '--root',
    join(dir, 'root'),
    '--runroot',
    join(dir, 'run'),
    '--tmpdir',
    join(dir, 'tmp'),
    '--storage-driver',
    'vfs',
    '--cgroup-manager',
    'cgroupfs',
    '--events-backend',
    'file',
    'system',
    'service',
    '--time=0',
    `unix://${socketPath}`,
  ];
}

/**
 * Tracks a proxied connection (`client` forwarded to `upstream`) in `sockets` and destroys both
 * ends together. The client's side decides when the pair is done; upstream's end reaches the
 * client through the proxy's forwarding.
 */
export function tieSocketPair(sockets, client, upstream) {
  sockets.add(client);
  sockets.add(upstream);
  const drop = () => {
    client.destroy();
    upstream.destroy();
    sockets.delete(client);
    sockets.delete(upstream);
  };
  client.on('error', drop).on('close', drop);
  upstream.on('error', drop);
}
