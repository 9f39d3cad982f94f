import { splitHostPort } from '@fabric-ops/ops-http/go';

/** Where the Docker Engine API listens, from Fabric's `vm.endpoint`. */
export type DockerEndpoint = { readonly kind: 'unix'; readonly socketPath: string } | { readonly kind: 'tcp'; readonly host: string; readonly port: number };

/** The forms `vm.endpoint` takes, as a message names them. */
export const DOCKER_ENDPOINT_FORMS = 'unix:///path/to/docker.sock or tcp://host:port';

export type DockerEndpointReading = { readonly ok: true; readonly endpoint: DockerEndpoint } | { readonly ok: false; readonly reason: string };

/**
 * `vm.endpoint`'s grammar, owned here: `unix:///var/run/docker.sock`, `tcp://host:port` or
 * `http://host:port` (the forms Docker's own clients accept for an engine without TLS), host and
 * port by Go's `net.SplitHostPort` rules. Returns the endpoint, or why the text is not one of
 * them (no exception: a config checker collects every problem of a file).
 */
export function readDockerEndpoint(text: string): DockerEndpointReading {
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
    const split = splitHostPort(address);
    // Go's text is `address <a>: <why>`; the caller's message already shows the address
    if ('problem' in split) return { ok: false, reason: split.problem.replace(/^address .*: /, '') };
    if (split.host === '') return { ok: false, reason: 'the host is missing' };
    if (split.port === 0) return { ok: false, reason: 'the port is missing' };
    return { ok: true, endpoint: { kind: 'tcp', host: split.host, port: split.port } };
  }
  return { ok: false, reason: scheme === undefined ? 'no scheme' : `unsupported scheme '${scheme}'` };
}
