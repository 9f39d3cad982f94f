import { isIP } from 'node:net';
import { formatHostPort } from '@fabric-ops/ops-http/go';
import { OpsctlError } from './errors.ts';

export interface HostPort {
  /** Host to connect to: a name or an IP literal without brackets. */
  readonly host: string;
  readonly port: number;
  /** `host:port` as written back, with an IPv6 literal bracketed (`[::1]:9443`). */
  readonly address: string;
}

const HOST_NAME = /^[A-Za-z0-9_]([A-Za-z0-9_-]{0,62})(\.[A-Za-z0-9_]([A-Za-z0-9_-]{0,62}))*\.?$/;

/**
 * Parses `host:port` (a DNS name, an IPv4 literal, or a bracketed IPv6 literal; an empty host
 * means this machine, as in the servers' listen addresses). Throws a USAGE OpsctlError naming
 * `what` for anything else, so a typo never turns into a connection to port NaN.
 */
export function parseHostPort(text: string, what = '--address'): HostPort {
  const fail = (why: string): never => {
    throw new OpsctlError('USAGE', `${what}: expected host:port (e.g. 127.0.0.1:9443), got '${text}'${why ? ` (${why})` : ''}`);
  };
  const colon = text.lastIndexOf(':');
  if (colon < 0) fail('');
  const rawHost = text.slice(0, colon);
  const portText = text.slice(colon + 1);
  if (!/^\d{1,5}$/.test(portText) || Number(portText) === 0 || Number(portText) > 65_535) fail('');
  const port = Number(portText);
  let host: string;
  if (rawHost.startsWith('[')) {
    if (!rawHost.endsWith(']') || isIP(rawHost.slice(1, -1)) !== 6) fail('');
    host = rawHost.slice(1, -1);
  } else if (rawHost.includes(':')) {
    return fail('an IPv6 address goes in brackets: [::1]:9443');
  } else {
    if (rawHost !== '' && isIP(rawHost) === 0 && !HOST_NAME.test(rawHost)) fail('');
    host = rawHost;
  }
  return { host, port, address: formatHostPort(host, port) };
}

/** The address to dial: an empty or wildcard host means this machine. */
export function dialHost(host: string): string {
  return host === '' || host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
}
