import { formatHostPort, goErrnoText } from '@fabric-ops/ops-http/go';
import type { DockerEndpoint } from './endpoint.ts';

export function describeAddress(endpoint: DockerEndpoint): { network: string; address: string; url: string } {
  if (endpoint.kind === 'unix') return { network: 'unix', address: endpoint.socketPath, url: 'http://unix.sock/_ping' };
  const address = formatHostPort(endpoint.host, endpoint.port);
  return { network: 'tcp', address, url: `http://${address}/_ping` };
}

/**
 * Node's network error as a line in the shape Go's HTTP client writes it, which is what
 * Fabric operators grep for: `Get "http://unix.sock/_ping": dial unix /var/run/docker.sock:
 * connect: no such file or directory`.
 */
export function describePingError(endpoint: DockerEndpoint, error: unknown): string {
  const { network, address, url } = describeAddress(endpoint);
  const err = error as NodeJS.ErrnoException & { hostname?: string };
  const text = goErrnoText(err);
  let cause: string;
  if (err.syscall === 'connect') cause = `dial ${network} ${address}: connect: ${text}`;
  else if (err.syscall === 'getaddrinfo') cause = `dial ${network}: lookup ${err.hostname ?? address}: no such host`;
  else if (err.syscall !== undefined) cause = `${err.syscall} ${network} ${address}: ${text}`;
  else if (err.code === 'ECONNRESET') cause = 'connection closed before a response arrived';
  else cause = err.message || String(error);
  return `Get "${url}": ${cause}`;
}
