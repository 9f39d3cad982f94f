import { formatHostPort } from '@fabric-ops/ops-http/go';
import { isConfigError } from './errors.ts';
import { parseHostPort } from './host-port.ts';

/** Where the Docker Engine API listens (the peer's `vm.endpoint`), parsed. */
export type DockerEndpoint =
  | { readonly kind: 'unix'; readonly socketPath: string }
  | { readonly kind: 'tcp'; readonly host: string; readonly port: number };

export const DOCKER_ENDPOINT_FORMS = 'unix:///path/to/docker.sock or tcp://host:port';

/**
 * `unix:///var/run/docker.sock`, `tcp://host:port` or `http://host:port`: the forms Docker's
 * own clients accept for an engine without TLS. Returns the endpoint, or why the text is
 * not one of them.
 */
export function parseDockerEndpoint(text: string): { readonly ok: true; readonly endpoint: DockerEndpoint } | { readonly ok: false; readonly reason: string } {
  const scheme = /^([a-z]+):\/\//i.exec(text)?.[1]?.toLowerCase();
  if (scheme === 'unix') {
    const socketPath = text.slice('unix://'.length);
    if (!socketPath.startsWith('/')) return { ok: false, reason: 'the socket path must be absolute' };
    return { ok: true, endpoint: { kind: 'unix', socketPath } };
  }
  if (scheme === 'tcp' || scheme === 'http') {
    // A trailing slash is harmless; anything else after the port (a path, a query, user info) is not an engine address.
    const address = text.slice(scheme.length + 3).replace(/\/$/, '');
    if (/[/?#@]/.test(address)) return { ok: false, reason: 'only host and port may be given' };
    try {
      const { host, port } = parseHostPort(address);
      if (host === '') return { ok: false, reason: 'the host is missing' };
      if (port === 0) return { ok: false, reason: 'the port is missing' };
      return { ok: true, endpoint: { kind: 'tcp', host, port } };
    } catch (error) {
      if (!isConfigError(error)) throw error;
      return { ok: false, reason: error.problems[0]!.replace(/^address .*: /, '') };
    }
  }
  return { ok: false, reason: scheme === undefined ? 'no scheme' : `unsupported scheme '${scheme}'` };
}

/** The endpoint as text Docker's clients accept (`unix:///…`, `tcp://host:port`). */
export function formatDockerEndpoint(endpoint: DockerEndpoint): string {
  if (endpoint.kind === 'unix') return `unix://${endpoint.socketPath}`;
  return `tcp://${formatHostPort(endpoint.host, endpoint.port)}`;
}
