import { isIP } from 'node:net';
import { splitHostPort, type HostPort } from '@fabric-ops/ops-http/go';
import { OpsctlError } from './errors.ts';

const HOST_NAME = /^[A-Za-z0-9_]([A-Za-z0-9_-]{0,62})(\.[A-Za-z0-9_]([A-Za-z0-9_-]{0,62}))*\.?$/;

/**
 * Parses `host:port` with Go's grammar into ops-http's `HostPort` (`splitHostPort`, the one
 * owner of both), then checks what a dial target needs on top: a port from 1 to 65535 in at most five digits, a
 * DNS name or an IP literal, an IPv6 literal only in brackets; an empty host means this
 * machine, as in the servers' listen addresses. Throws a USAGE OpsctlError naming `what` for
 * anything else, so a typo never turns into a connection to port NaN.
 */
export function parseDialAddress(text: string, what = '--address'): HostPort {
  const fail = (why: string): never => {
    throw new OpsctlError('USAGE', `${what}: expected host:port (e.g. 127.0.0.1:9443), got '${text}'${why ? ` (${why})` : ''}`);
  };
  const split = splitHostPort(text);
  if ('problem' in split) return fail(!text.startsWith('[') && split.problem.endsWith('too many colons in address') ? 'an IPv6 address goes in brackets: [::1]:9443' : '');
  const { host, port } = split;
  if (!/^\d{1,5}$/.test(text.slice(text.lastIndexOf(':') + 1)) || port === 0) fail('');
  if (text.startsWith('[') ? isIP(host) !== 6 : host !== '' && isIP(host) === 0 && !HOST_NAME.test(host)) fail('');
  return { host, port };
}

/** The address to dial: an empty or wildcard host means this machine. */
export function dialHost(host: string): string {
  return host === '' || host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
}
