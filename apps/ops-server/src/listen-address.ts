import { formatHostPort, goErrnoText, splitHostPort, type HostPort } from '@fabric-ops/ops-http/go';
import { OpsServerError } from './errors.ts';

/** Where to listen: ops-config's parsed `listenAddress`, or an embedder's own. */
export interface ListenTarget extends HostPort {}

const MAX_PORT = 65_535;

/**
 * The address to listen on, from `host:port` text (ops-http's splitHostPort, Go's error texts:
 * `listen tcp: address 127.0.0.1: missing port in address`) or an already parsed target.
 * '' listens on every interface at a free port; `localhost` listens on 127.0.0.1, as Go does.
 */
export function parseListenAddress(address: string | ListenTarget): ListenTarget {
  let target: HostPort;
  if (typeof address !== 'string') {
    if (!Number.isInteger(address.port) || address.port < 0 || address.port > MAX_PORT) {
      throw new OpsServerError('INVALID_LISTEN_ADDRESS', `listen tcp: address ${String(address.port)}: invalid port`);
    }
    target = address;
  } else if (address === '') {
    target = { host: '', port: 0 };
  } else {
    const split = splitHostPort(address);
    if ('problem' in split) throw new OpsServerError('INVALID_LISTEN_ADDRESS', `listen tcp: ${split.problem}`);
    target = split;
  }
  return { host: target.host === 'localhost' ? '127.0.0.1' : target.host, port: target.port };
}

/** A Node listen error in Go's words: `listen tcp 127.0.0.1:9443: bind: address already in use`. */
export function listenError(address: string | ListenTarget, error: NodeJS.ErrnoException): OpsServerError {
  const code = error.code ?? '';
  const target = parseListenAddress(address);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new OpsServerError('LISTEN_FAILED', `listen tcp: lookup ${target.host}: no such host`, { cause: error });
  }
  const written = typeof address === 'string' ? address : formatHostPort(address.host, address.port);
  return new OpsServerError('LISTEN_FAILED', `listen tcp ${written}: bind: ${goErrnoText(error)}`, { cause: error });
}
