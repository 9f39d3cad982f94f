import { OpsServerError } from './errors.ts';

export interface ListenTarget {
  /** '' means every interface. */
  readonly host: string;
  /** 0 means a random free port. */
  readonly port: number;
}

function addressError(addr: string, reason: string): OpsServerError {
  return new OpsServerError('INVALID_LISTEN_ADDRESS', `listen tcp: address ${addr}: ${reason}`);
}

/**
 * Go's `net.SplitHostPort` plus port parsing, with Go's error texts, so that a bad
 * `listenAddress` reads the same as it does from a Fabric node. `localhost` listens on
 * 127.0.0.1, as Go does.
 */
export function parseListenAddress(address: string): ListenTarget {
  if (address === '') return { host: '', port: 0 };
  let host: string;
  let portText: string;
  if (address.startsWith('[')) {
    const end = address.indexOf(']');
    if (end === -1) throw addressError(address, "missing ']' in address");
    host = address.slice(1, end);
    const rest = address.slice(end + 1);
    if (rest === '') throw addressError(address, 'missing port in address');
    if (!rest.startsWith(':')) throw addressError(address, `unexpected '${rest[0]}' after address`);
    portText = rest.slice(1);
    if (portText.includes(':')) throw addressError(address, 'too many colons in address');
  } else {
    const colon = address.lastIndexOf(':');
    if (colon === -1) throw addressError(address, 'missing port in address');
    host = address.slice(0, colon);
    if (host.includes(':')) throw addressError(address, 'too many colons in address');
    if (host.includes('[') || host.includes(']')) throw addressError(address, "unexpected '[' in address");
    portText = address.slice(colon + 1);
  }
  let port = 0;
  if (portText !== '') {
    if (!/^[0-9]+$/.test(portText)) throw addressError(`tcp/${portText}`, 'unknown port');
    port = Number(portText);
    if (port > 65_535) throw addressError(portText, 'invalid port');
  }
  return { host: host === 'localhost' ? '127.0.0.1' : host, port };
}

/** `host:port` as Go prints a listener's address (`[::]:9443` for every interface). */
export function formatAddress(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

const BIND_ERRORS: Record<string, string> = {
  EADDRINUSE: 'bind: address already in use',
  EACCES: 'bind: permission denied',
  EADDRNOTAVAIL: 'bind: cannot assign requested address',
};

/** A Node listen error in Go's words: `listen tcp 127.0.0.1:9443: bind: address already in use`. */
export function listenError(address: string, error: NodeJS.ErrnoException): OpsServerError {
  const code = error.code ?? '';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    const host = parseListenAddress(address).host;
    return new OpsServerError('LISTEN_FAILED', `listen tcp: lookup ${host}: no such host`, { cause: error });
  }
  const reason = BIND_ERRORS[code] ?? error.message;
  return new OpsServerError('LISTEN_FAILED', `listen tcp ${address}: ${reason}`, { cause: error });
}
