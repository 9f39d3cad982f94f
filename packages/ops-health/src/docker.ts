import { Agent, request, type ClientRequest, type IncomingMessage } from 'node:http';
import { HealthError, isHealthError } from './errors.ts';
import { DOCKER_ENDPOINT_FORMS, readDockerEndpoint, type DockerEndpoint } from './internal/endpoint.ts';
import { describeAddress, describePingError } from './internal/ping-error.ts';
import type { Checker } from './registry.ts';

export interface DockerCheckerOptions {
  /** Most bytes of a /_ping answer read (kept for the failure reason); the rest is discarded. Default 4096. */
  readonly maxResponseBytes?: number;
  /**
   * How long the connection to the runtime is kept open between pings, for the next one to reuse
   * (as Go's Docker client does). 0 opens a connection per ping. Default 15 s.
   */
  readonly keepAliveMs?: number;
}

/** The component name Fabric's peer registers the container-runtime checker under. */
export const DOCKER_COMPONENT = 'docker';
export const DEFAULT_MAX_PING_RESPONSE_BYTES = 4_096;
export const DEFAULT_PING_KEEP_ALIVE_MS = 15_000;
const REASON_PREFIX = 'failed to ping to Docker daemon: ';

/**
 * `vm.endpoint` text to a `DockerEndpoint`, by the one grammar ops-config also reads it with
 * (`readDockerEndpoint`, the `./endpoint` entry); throws an `INVALID_ENDPOINT` HealthError
 * naming the text, what is wrong with it and the forms expected.
 */
export function parseDockerEndpoint(endpoint: string): DockerEndpoint {
  const reading = readDockerEndpoint(endpoint);
  if (reading.ok) return reading.endpoint;
  throw new HealthError('INVALID_ENDPOINT', `invalid Docker endpoint '${endpoint}': ${reading.reason}; expected ${DOCKER_ENDPOINT_FORMS}`);
}

function abortText(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (isHealthError(reason)) return reason.message;
  return reason instanceof Error && reason.message !== '' ? reason.message : 'request aborted';
}

/** An endpoint object from a caller that parsed the setting itself (ops-config), checked for shape only. */
function checkedEndpoint(endpoint: DockerEndpoint): DockerEndpoint {
  const invalid = (why: string) => new HealthError('INVALID_ENDPOINT', `invalid Docker endpoint ${JSON.stringify(endpoint)}: ${why}`);
  if (endpoint.kind === 'unix') {
    if (typeof endpoint.socketPath !== 'string' || !endpoint.socketPath.startsWith('/')) throw invalid('socketPath must be an absolute path');
    return { kind: 'unix', socketPath: endpoint.socketPath };
  }
  if (endpoint.kind === 'tcp') {
    if (typeof endpoint.host !== 'string' || endpoint.host === '') throw invalid('host must be a non-empty string');
    if (!Number.isInteger(endpoint.port) || endpoint.port < 1 || endpoint.port > 65_535) throw invalid('port must be a whole number from 1 to 65535');
    return { kind: 'tcp', host: endpoint.host.replace(/^\[|\]$/g, ''), port: endpoint.port };
  }
  throw invalid("kind must be 'unix' or 'tcp'");
}

/**
 * A reused connection the runtime closed while it sat idle fails the next request before any
 * answer; that request never reached the runtime, so it is sent again once on a new connection
 * (Go's http.Transport does the same for a GET).
 */
function closedWhileIdle(req: ClientRequest, error: NodeJS.ErrnoException, answered: boolean): boolean {
  return req.reusedSocket && !answered && (error.code === 'ECONNRESET' || error.code === 'EPIPE');
}

/**
 * The `docker` health checker: `GET /_ping` on the Docker Engine API (podman's
 * compatible service answers too). Anything but a 200 fails with
 * `failed to ping to Docker daemon: <cause>`; the request dies with the signal.
 * `endpoint` is Fabric's `vm.endpoint` text, or the object `parseDockerEndpoint` (or ops-config) made of it.
 * One idle connection is kept for the next ping (`keepAliveMs`); it never holds the process open.
 */
export function dockerChecker(endpoint: string | DockerEndpoint, options: DockerCheckerOptions = {}): Checker {
  const target = typeof endpoint === 'string' ? parseDockerEndpoint(endpoint) : checkedEndpoint(endpoint);
  const { url } = describeAddress(target);
  const limit = options.maxResponseBytes ?? DEFAULT_MAX_PING_RESPONSE_BYTES;
  if (!Number.isInteger(limit) || limit < 0) {
    throw new HealthError('INVALID_OPTION', `invalid docker checker option maxResponseBytes: expected a whole number of bytes, got ${String(limit)}`);
  }
  const keepAliveMs = options.keepAliveMs ?? DEFAULT_PING_KEEP_ALIVE_MS;
  if (!Number.isInteger(keepAliveMs) || keepAliveMs < 0) {
    throw new HealthError('INVALID_OPTION', `invalid docker checker option keepAliveMs: expected a whole number of milliseconds, got ${String(keepAliveMs)}`);
  }
  const location = target.kind === 'unix' ? { socketPath: target.socketPath } : { host: target.host, port: target.port };
  // A new connection per ping was most of a ping's CPU (connect, then the request on a fresh
  // socket). The agent keeps at most one idle socket, unref'd, closed after keepAliveMs idle.
  const agent = keepAliveMs === 0 ? false : new Agent({ keepAlive: true, maxFreeSockets: 1, timeout: keepAliveMs });

  return (signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal.aborted) {
        reject(new Error(`${REASON_PREFIX}Get "${url}": ${abortText(signal)}`));
        return;
      }
      let settled = false;
      let req!: ClientRequest;
      const finish = (failure?: string, reusable = false) => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', onAbort);
        // Only a connection whose answer was read to its end goes back to the agent.
        if (!reusable) req.destroy();
        if (failure === undefined) resolve();
        else reject(new Error(REASON_PREFIX + failure));
      };
      const onAbort = () => finish(`Get "${url}": ${abortText(signal)}`);
      const send = (retried: boolean) => {
        let answered = false;
        req = request({ ...location, path: '/_ping', method: 'GET', agent, headers: { Accept: '*/*' } }, (res: IncomingMessage) => {
          answered = true;
          const status = res.statusCode ?? 0;
          const chunks: Buffer[] = [];
          let kept = 0;
          const conclude = (complete: boolean) => {
            if (status === 200) finish(undefined, complete);
            else {
              const body = Buffer.concat(chunks).toString('utf8').trim().replace(/\s+/g, ' ');
              finish(`API error (${status})${body === '' ? '' : `: ${body}`}`, complete);
            }
          };
          res.on('data', (chunk: Buffer) => {
            if (kept < limit) {
              const part = chunk.subarray(0, limit - kept);
              chunks.push(part);
              kept += part.length;
            }
            // The status already decides; a runaway body is not worth reading to its end.
            if (kept >= limit) conclude(false);
          });
          res.on('end', () => conclude(true));
          res.on('error', (error) => finish(describePingError(target, error)));
        });
        req.on('error', (error: NodeJS.ErrnoException) => {
          if (!settled && !retried && closedWhileIdle(req, error, answered)) send(true);
          else finish(describePingError(target, error));
        });
        req.end();
      };
      signal.addEventListener('abort', onAbort, { once: true });
      send(false);
    });
}
