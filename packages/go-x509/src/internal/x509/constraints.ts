import type { Certificate } from './certificate.ts';
import { domainNameValid, ipNetString, ipString, parseMailbox, parseNetipAddr, type IpNet, type Mailbox } from './names.ts';
import { goQuote } from './quote.ts';
import { urlString } from './uri.ts';

// Name constraints as Go 1.26 checks them on a built chain (crypto/x509/constraints.go, the
// log-linear check of CVE-2025-58187): each CA's constraints are sorted and pruned once, then
// every name is a binary search. A CA's constraints apply to the SAN names of every certificate
// below it in the chain (intermediates included, its own names not), permitted before excluded.
// The search is ported as Go has it, quirks included, so the verdict is Go's for every input.

type Query<V> = (value: V) => { found: boolean; constraint: string };

/** The sorted, pruned constraint list and Go's lower-bound search over it. */
class ConstraintSet<T, V> {
  readonly set: T[];

  constructor(list: readonly T[], compare: (a: T, b: T) => number, subset: (a: T, b: T) => boolean) {
    const set = [...list];
    if (set.length >= 2) {
      set.sort(compare);
      let write = 1;
      for (let read = 1; read < set.length; read++) {
        if (!subset(set[write - 1]!, set[read]!)) set[write++] = set[read]!;
      }
      set.length = write;
    }
    this.set = set;
  }

  search(value: V, compare: (c: T, v: V) => number, match: (c: T, v: V) => boolean): T | undefined {
    const set = this.set;
    if (set.length === 0) return undefined;
    // slices.BinarySearchFunc: the first index whose element is not below value.
    let lo = 0;
    let hi = set.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compare(set[mid]!, value) < 0) lo = mid + 1;
      else hi = mid;
    }
    if (lo < set.length && compare(set[lo]!, value) === 0) return set[lo];
    const candidate = lo === 0 ? set[0]! : set[lo - 1]!;
    return match(candidate, value) ? candidate : undefined;
  }
}

function bytesCompare(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

function isV4Mapped(ip: Uint8Array): boolean {
  if (ip.length !== 16) return false;
  for (let i = 0; i < 10; i++) if (ip[i] !== 0) return false;
  return ip[10] === 0xff && ip[11] === 0xff;
}

/** net.IP.To4: the 4-byte form of an IPv4 or IPv4-mapped address, else undefined. */
function to4(ip: Uint8Array): Uint8Array | undefined {
  if (ip.length === 4) return ip;
  return isV4Mapped(ip) ? ip.subarray(12) : undefined;
}

/** net.IPNet.Contains. */
function ipNetContains(n: IpNet, target: Uint8Array): boolean {
  let network = to4(n.ip);
  if (network === undefined) {
    if (n.ip.length !== 16) return false;
    network = n.ip;
  }
  let mask = n.mask;
  if (mask.length === 4) {
    if (network.length !== 4) return false;
  } else if (mask.length === 16) {
    if (network.length === 4) mask = mask.subarray(12);
  } else return false;
  const ip = to4(target) ?? target;
  if (ip.length !== network.length) return false;
  for (let i = 0; i < ip.length; i++) if ((network[i]! & mask[i]!) !== (ip[i]! & mask[i]!)) return false;
  return true;
}

function ipNetworkSubset(a: IpNet, b: IpNet): boolean {
  if (!ipNetContains(a, b.ip)) return false;
  const broadcast = b.ip.map((byte, i) => byte | (~(b.mask[i] ?? 0) & 0xff));
  return ipNetContains(a, broadcast);
}

function ipNetworkCompare(a: IpNet, b: IpNet): number {
  return bytesCompare(a.ip, b.ip) || bytesCompare(a.mask, b.mask);
}

function ipConstraints(list: readonly IpNet[]): Query<Uint8Array> | undefined {
  if (list.length === 0) return undefined;
  const v4 = list.filter((n) => n.ip.length === 4);
  const v6 = list.filter((n) => n.ip.length !== 4);
  const v4Set = v4.length > 0 ? new ConstraintSet<IpNet, Uint8Array>(v4, ipNetworkCompare, ipNetworkSubset) : undefined;
  const v6Set = v6.length > 0 ? new ConstraintSet<IpNet, Uint8Array>(v6, ipNetworkCompare, ipNetworkSubset) : undefined;
  return (ip) => {
    const set = ip.length === 4 ? v4Set : v6Set;
    const hit = set?.search(ip, (c, t) => bytesCompare(c.ip, t), ipNetContains);
    return hit === undefined ? { found: false, constraint: '' } : { found: true, constraint: ipNetString(hit) };
  };
}

const A = 0x41;
const Z = 0x5a;

/** dnsHasSuffix: b ends with the labels of a, ASCII case-insensitively (a leading '.' in a: a proper subdomain). */
function dnsHasSuffix(a: string, b: string): boolean {
  const lenA = a.length;
  const lenB = b.length;
  if (lenA > lenB) return false;
  const offset = lenA - lenB;
  for (let i = lenA - 1; i >= 0; i--) {
    let ar = a.charCodeAt(i);
    let br = b.charCodeAt(i - offset);
    if (ar === br) continue;
    if (br < ar) [ar, br] = [br, ar];
    if (ar >= A && ar <= Z && br === ar + 0x20) continue;
    return false;
  }
  if (a[0] !== '.' && lenB > lenA && b[lenB - lenA - 1] !== '.') return false;
  return true;
}

// Go's dnsCompareTable: ASCII letters folded to lower case, '.' below every other byte.
function dnsKey(c: number): number {
  if (c === 0x2e) return 0;
  return c >= A && c <= Z ? c + 0x20 : c;
}

/** dnsCompare: the names compared from their last byte backwards. */
function dnsCompare(a: string, b: string): number {
  let i = a.length - 1;
  let j = b.length - 1;
  while (i >= 0 && j >= 0) {
    const x = dnsKey(a.charCodeAt(i));
    const y = dnsKey(b.charCodeAt(j));
    if (x !== y) return x < y ? -1 : 1;
    i--;
    j--;
  }
  return i < j ? -1 : j < i ? 1 : 0;
}

function asciiLower(s: string): string {
  return s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

function trimFirstLabel(name: string): string {
  const dot = name.indexOf('.');
  return dot < 0 ? '' : name.slice(dot);
}

function dnsConstraints(list: readonly string[], permitted: boolean): Query<string> | undefined {
  if (list.length === 0) return undefined;
  if (list.some((c) => c.length === 0)) return () => ({ found: true, constraint: '' });
  const set = new ConstraintSet<string, string>(list, dnsCompare, dnsHasSuffix);
  // An excluded constraint also catches a wildcard SAN whose parent it shares (Go 1.24.11/1.26.2):
  // "*.example.com" is excluded by "host.example.com".
  let parents: Map<string, string> | undefined;
  if (!permitted) {
    for (const constraint of set.set) {
      const name = asciiLower(constraint);
      const trimmed = trimFirstLabel(name);
      if (trimmed === '') continue;
      (parents ??= new Map()).set(trimmed, name);
    }
  }
  return (name) => {
    const hit = set.search(name, dnsCompare, dnsHasSuffix);
    if (hit !== undefined) return { found: true, constraint: hit };
    if (parents !== undefined && name.length > 0 && name[0] === '*') {
      const parent = parents.get(trimFirstLabel(asciiLower(name)));
      if (parent !== undefined) return { found: true, constraint: parent };
    }
    return { found: false, constraint: '' };
  };
}

function emailConstraints(list: readonly string[], permitted: boolean): Query<Mailbox> | undefined {
  if (list.length === 0) return undefined;
  const exact = new Set<string>();
  const domains: string[] = [];
  for (const c of list) {
    if (!c.includes('@')) {
      domains.push(c);
      continue;
    }
    const mailbox = parseMailbox(c);
    if (mailbox !== undefined) exact.add(`${mailbox.local}\u0000${asciiLower(mailbox.domain)}`);
  }
  const byDomain = domains.length > 0 ? dnsConstraints(domains, permitted) : undefined;
  return (mailbox) => {
    if (exact.has(`${mailbox.local}\u0000${mailbox.domain}`)) return { found: true, constraint: `${mailbox.local}@${mailbox.domain}` };
    return byDomain === undefined ? { found: false, constraint: '' } : byDomain(mailbox.domain);
  };
}

interface Constraints<V> {
  readonly type: string;
  readonly permitted: Query<V> | undefined;
  readonly excluded: Query<V> | undefined;
}

function checkConstraints<V>(c: Constraints<V>, value: V, shown: string): string | undefined {
  if (c.permitted !== undefined && !c.permitted(value).found) return `${c.type} ${goQuote(shown)} is not permitted by any constraint`;
  if (c.excluded !== undefined) {
    const hit = c.excluded(value);
    if (hit.found) return `${c.type} ${goQuote(shown)} is excluded by constraint ${goQuote(hit.constraint)}`;
  }
  return undefined;
}

interface CaConstraints {
  readonly ip: Constraints<Uint8Array>;
  readonly dns: Constraints<string>;
  readonly uri: Constraints<string>;
  readonly email: Constraints<Mailbox>;
}

// A CA's sorted sets depend on nothing but the certificate, so they are built once per certificate.
const built = new WeakMap<Certificate, CaConstraints>();

function constraintsOf(c: Certificate): CaConstraints {
  let cc = built.get(c);
  if (cc !== undefined) return cc;
  const nc = c.nameConstraints;
  cc = {
    ip: { type: 'IP address', permitted: ipConstraints(nc?.permittedIPs ?? []), excluded: ipConstraints(nc?.excludedIPs ?? []) },
    dns: { type: 'DNS name', permitted: dnsConstraints(nc?.permittedDNS ?? [], true), excluded: dnsConstraints(nc?.excludedDNS ?? [], false) },
    uri: { type: 'URI', permitted: dnsConstraints(nc?.permittedURIs ?? [], true), excluded: dnsConstraints(nc?.excludedURIs ?? [], false) },
    email: { type: 'email address', permitted: emailConstraints(nc?.permittedEmails ?? [], true), excluded: emailConstraints(nc?.excludedEmails ?? [], false) },
  };
  built.set(c, cc);
  return cc;
}

function domainValid(name: string): boolean {
  return domainNameValid(name, false);
}

interface NamesToCheck {
  readonly dns: readonly string[];
  readonly uris: readonly { shown: string; domain: string }[];
  readonly emails: readonly Mailbox[];
  readonly ips: readonly Uint8Array[];
}

function check(cc: CaConstraints, names: NamesToCheck): string | undefined {
  for (const ip of names.ips) {
    const problem = checkConstraints(cc.ip, ip, ipString(ip));
    if (problem !== undefined) return problem;
  }
  for (const d of names.dns) {
    if (!domainValid(d)) return `x509: cannot parse dnsName ${goQuote(d)}`;
    const problem = checkConstraints(cc.dns, d, d);
    if (problem !== undefined) return problem;
  }
  for (const u of names.uris) {
    if (!domainValid(u.domain)) return `x509: internal error: URI SAN ${goQuote(u.shown)} failed to parse`;
    const problem = checkConstraints(cc.uri, u.domain, u.shown);
    if (problem !== undefined) return problem;
  }
  for (const e of names.emails) {
    if (!domainValid(e.domain)) return `x509: cannot parse rfc822Name ${goQuote(`${e.local}@${e.domain}`)}`;
    const problem = checkConstraints(cc.email, e, `${e.local}@${e.domain}`);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** net.SplitHostPort's host, or its error text. */
function splitHostPortHost(hostport: string): string | { error: string } {
  const missingPort = { error: `address ${hostport}: missing port in address` };
  const i = hostport.lastIndexOf(':');
  if (i < 0) return missingPort;
  if (hostport[0] === '[') {
    const end = hostport.indexOf(']');
    if (end < 0) return { error: `address ${hostport}: missing ']' in address` };
    if (end + 1 === hostport.length) return missingPort;
    if (end + 1 !== i) return hostport[end + 1] === ':' ? { error: `address ${hostport}: too many colons in address` } : missingPort;
    if (hostport.slice(1).includes('[')) return { error: `address ${hostport}: unexpected '[' in address` };
    if (hostport.slice(end + 1).includes(']')) return { error: `address ${hostport}: unexpected ']' in address` };
    return hostport.slice(1, end);
  }
  const host = hostport.slice(0, i);
  if (host.includes(':')) return { error: `address ${hostport}: too many colons in address` };
  if (hostport.includes('[')) return { error: `address ${hostport}: unexpected '[' in address` };
  if (hostport.includes(']')) return { error: `address ${hostport}: unexpected ']' in address` };
  return host;
}

/** parseURIs and parseMailboxes: the names of one certificate as the checks need them, or Go's error. */
function namesOf(c: Certificate): NamesToCheck | string {
  const san = c.subjectAltNames!;
  const uris: { shown: string; domain: string }[] = [];
  for (const uri of san.uris) {
    // Go prints a URI SAN as url.URL.String() re-assembles it.
    const shown = urlString(uri);
    let host = asciiLower(uri.host);
    if (host.length === 0) return `URI with empty host (${goQuote(shown)}) cannot be matched against constraints`;
    if (host.includes(':') && !host.endsWith(']')) {
      const split = splitHostPortHost(uri.host);
      if (typeof split !== 'string') return `cannot parse URI host ${goQuote(uri.host)}: ${split.error}`;
      host = split;
    }
    // netip.ParseAddr accepts an IPv6 zone, so "[fe80::1%25eth0]:80" is an IP here (Go 1.22.11).
    if (parseNetipAddr(host) !== undefined || (host.startsWith('[') && host.endsWith(']'))) {
      return `URI with IP (${goQuote(shown)}) cannot be matched against constraints`;
    }
    uris.push({ shown, domain: host });
  }
  const emails: Mailbox[] = [];
  for (const email of san.emailAddresses) {
    const mailbox = parseMailbox(email);
    if (mailbox === undefined) return `cannot parse rfc822Name ${goQuote(email)}`;
    emails.push({ local: mailbox.local, domain: asciiLower(mailbox.domain) });
  }
  return { dns: san.dnsNames, uris, emails, ips: san.ipAddresses };
}

/**
 * checkChainConstraints: undefined when every SAN name of every certificate satisfies the name
 * constraints of each CA above it in `chain` (leaf first), else the problem as Go words it.
 */
export function checkChainConstraints(chain: readonly Certificate[]): string | undefined {
  const constraining: { index: number; constraints: CaConstraints }[] = [];
  chain.forEach((c, index) => {
    if (c.nameConstraints !== undefined) constraining.push({ index, constraints: constraintsOf(c) });
  });
  if (constraining.length === 0) return undefined;
  let first = 0;
  for (let i = 0; i < chain.length; i++) {
    const c = chain[i]!;
    if (c.subjectAltNames === undefined) continue;
    while (constraining[first]!.index <= i) {
      if (first + 1 === constraining.length) return undefined;
      first++;
    }
    const names = namesOf(c);
    if (typeof names === 'string') return names;
    for (let n = first; n < constraining.length; n++) {
      const problem = check(constraining[n]!.constraints, names);
      if (problem !== undefined) return problem;
    }
  }
  return undefined;
}
