import { ConfigError } from './errors.ts';

/** A TCP address as `host:port` names it. `host` is bare (no IPv6 brackets); '' means every interface. */
export interface HostPort {
  readonly host: string;
  /** 0 asks the system for a free port (when listening). */
  readonly port: number;
}

const MAX_PORT = 65_535;

function invalid(address: string, reason: string): ConfigError {
  return new ConfigError('CONFIG_INVALID', [`address ${address}: ${reason}`]);
}

/**
 * Go's `net.SplitHostPort` plus the port rules of `net.Listen` and `net.Dial`, with Go's
 * error texts (`address 127.0.0.1: missing port in address`), because operators search for
 * those words. IPv6 hosts are written in brackets (`[::1]:9443`); an empty port is 0.
 * Throws a ConfigError whose one problem is Go's text.
 */
export function parseHostPort(address: string): HostPort {
  let host: string;
  let portText: string;
  if (address.startsWith('[')) {
    const end = address.indexOf(']');
    if (end === -1) throw invalid(address, "missing ']' in address");
    host = address.slice(1, end);
    const rest = address.slice(end + 1);
    if (rest === '') throw invalid(address, 'missing port in address');
    if (!rest.startsWith(':')) throw invalid(address, `unexpected '${rest[0]}' after address`);
    portText = rest.slice(1);
    if (portText.includes(':')) throw invalid(address, 'too many colons in address');
  } else {
    const colon = address.lastIndexOf(':');
    if (colon === -1) throw invalid(address, 'missing port in address');
    host = address.slice(0, colon);
    if (host.includes(':')) throw invalid(address, 'too many colons in address');
    if (host.includes('[') || host.includes(']')) throw invalid(address, "unexpected '[' in address");
    portText = address.slice(colon + 1);
  }
  if (portText === '') return { host, port: 0 };
  if (!/^[0-9]+$/.test(portText)) throw invalid(`tcp/${portText}`, 'unknown port');
  const port = Number(portText);
  if (port > MAX_PORT) throw invalid(portText, 'invalid port');
  return { host, port };
}
