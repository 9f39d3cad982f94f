import { getSystemErrorMap } from 'node:util';

// Fabric's operators read and grep Go's wording: durations, addresses and system errors are
// written here once, as Go writes them, for every package that prints one.

function withFraction(value: bigint, digits: number, unit: string): string {
  const scale = 10n ** BigInt(digits);
  const fraction = (value % scale).toString().padStart(digits, '0').replace(/0+$/, '');
  return `${value / scale}${fraction === '' ? '' : `.${fraction}`}${unit}`;
}

/**
 * Go's `time.Duration.String()` for a count of nanoseconds (`10s`, `1m30s`, `250ms`,
 * `1h0m0s`, `1.5µs`); a fractional count is truncated, as Go's int64 would hold it.
 */
export function formatGoDuration(nanos: number): string {
  if (!Number.isFinite(nanos)) return String(nanos);
  const whole = BigInt(Math.trunc(nanos));
  if (whole === 0n) return '0s';
  const sign = whole < 0n ? '-' : '';
  const left = whole < 0n ? -whole : whole;
  if (left < 1_000n) return `${sign}${left}ns`;
  if (left < 1_000_000n) return `${sign}${withFraction(left, 3, '\u00b5s')}`;
  if (left < 1_000_000_000n) return `${sign}${withFraction(left, 6, 'ms')}`;
  const hours = left / 3_600_000_000_000n;
  const minutes = (left / 60_000_000_000n) % 60n;
  const seconds = withFraction(left % 60_000_000_000n, 9, 's');
  if (hours > 0n) return `${sign}${hours}h${minutes}m${seconds}`;
  if (minutes > 0n) return `${sign}${minutes}m${seconds}`;
  return `${sign}${seconds}`;
}

/** Go's `net.JoinHostPort`: `host:port`, an IPv6 host in brackets (`[::1]:9443`). */
export function formatHostPort(host: string, port: number | string): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * A peer's address as Go's `RemoteAddr` prints it: IPv6 in brackets, and an IPv4 client of a
 * dual-stack listener as plain IPv4 (Node reports `::ffff:1.2.3.4`, Go `1.2.3.4`).
 */
export function formatRemoteAddress(address: string | undefined, port: number | undefined): string {
  const host = address ?? '';
  const plain = host.startsWith('::ffff:') && host.includes('.') ? host.slice('::ffff:'.length) : host;
  return formatHostPort(plain, port ?? 0);
}

// Where libuv's text (Node's) differs from Go's syscall.Errno text on Linux.
const GO_ERRNO_TEXT: Readonly<Record<string, string>> = {
  EADDRNOTAVAIL: 'cannot assign requested address',
  EHOSTUNREACH: 'no route to host',
  EISDIR: 'is a directory',
  ELOOP: 'too many levels of symbolic links',
  ENAMETOOLONG: 'file name too long',
  EAI_AGAIN: 'temporary failure in name resolution',
};

/**
 * A system error's text as Go's `syscall.Errno` writes it (`no such file or directory`,
 * `address already in use`); an error without an errno code gives its own first line.
 */
export function goErrnoText(error: unknown): string {
  const err = error as Partial<NodeJS.ErrnoException> | undefined;
  const code = typeof err?.code === 'string' ? err.code : '';
  const known = GO_ERRNO_TEXT[code];
  if (known !== undefined) return known;
  if (typeof err?.errno === 'number') {
    const system = getSystemErrorMap().get(err.errno);
    if (system !== undefined && system[0] === code) return system[1];
  }
  for (const [name, text] of getSystemErrorMap().values()) if (name === code && code !== '') return text;
  const message = err instanceof Error ? err.message : String(error);
  return message.split('\n')[0] ?? '';
}

/** A TCP address as `host:port` names it. `host` is bare (no IPv6 brackets); '' means every interface. */
export interface HostPort {
  readonly host: string;
  /** 0 asks the system for a free port (when listening). */
  readonly port: number;
}

/** What `splitHostPort` found wrong, in Go's words (`address 127.0.0.1: missing port in address`). */
export interface HostPortProblem {
  readonly problem: string;
}

const MAX_PORT = 65_535;

/**
 * Go's `net.SplitHostPort` plus the port rules of `net.Listen` and `net.Dial`, with Go's error
 * texts, because operators search for those words. IPv6 hosts are written in brackets
 * (`[::1]:9443`); an empty port is 0. Returns the problem instead of throwing, so each caller
 * raises it as its own package's error.
 */
export function splitHostPort(address: string): HostPort | HostPortProblem {
  const invalid = (subject: string, reason: string): HostPortProblem => ({ problem: `address ${subject}: ${reason}` });
  let host: string;
  let portText: string;
  if (address.startsWith('[')) {
    const end = address.indexOf(']');
    if (end === -1) return invalid(address, "missing ']' in address");
    host = address.slice(1, end);
    const rest = address.slice(end + 1);
    if (rest === '') return invalid(address, 'missing port in address');
    if (!rest.startsWith(':')) return invalid(address, `unexpected '${rest[0]}' after address`);
    portText = rest.slice(1);
    if (portText.includes(':')) return invalid(address, 'too many colons in address');
  } else {
    const colon = address.lastIndexOf(':');
    if (colon === -1) return invalid(address, 'missing port in address');
    host = address.slice(0, colon);
    if (host.includes(':')) return invalid(address, 'too many colons in address');
    if (host.includes('[') || host.includes(']')) return invalid(address, "unexpected '[' in address");
    portText = address.slice(colon + 1);
  }
  if (portText === '') return { host, port: 0 };
  if (!/^[0-9]+$/.test(portText)) return invalid(`tcp/${portText}`, 'unknown port');
  const port = Number(portText);
  if (port > MAX_PORT) return invalid(portText, 'invalid port');
  return { host, port };
}
