import { parseAddr } from './netip.ts';

export interface IpNet {
  readonly ip: Uint8Array;
  readonly mask: Uint8Array;
}

// The names name constraints work on (crypto/x509/verify.go): domains as reversed labels, RFC
// 2821 mailboxes, IP addresses. Names are Latin-1 strings of the raw bytes.

/**
 * Go's domainToReverseLabels; undefined is "not ok". An empty domain is ok with no labels; a
 * leading period is an empty first label, so not ok.
 */
export function domainToReverseLabels(domain: string): string[] | undefined {
  const labels: string[] = [];
  let d = domain;
  while (d.length > 0) {
    const i = d.lastIndexOf('.');
    if (i === -1) {
      labels.push(d);
      d = '';
    } else {
      labels.push(d.slice(i + 1));
      d = d.slice(0, i);
      if (i === 0) labels.push('');
    }
  }
  if (labels.length > 0 && labels[0]!.length === 0) return undefined;
  for (const label of labels) {
    if (label.length === 0) return undefined;
    for (let i = 0; i < label.length; i++) {
      const c = label.charCodeAt(i);
      if (c < 33 || c > 126) return undefined;
    }
  }
  return labels;
}

/**
 * Go 1.26's domainNameValid (parser.go), the check applied to SAN names and constraint values:
 * empty is valid; no trailing period; a constraint may begin with one period (a proper
 * subdomain), a name may not; every label non-empty, bytes 33-126. So "." and "..example.com"
 * are invalid constraints, ".example.com" an invalid name.
 */
export function domainNameValid(s: string, constraint: boolean): boolean {
  if (s.length === 0) return true;
  if (s[s.length - 1] === '.') return false;
  const rest = constraint && s[0] === '.' ? s.slice(1) : s;
  let labelStart = 0;
  for (let i = 0; i <= rest.length; i++) {
    if (i < rest.length) {
      const c = rest.charCodeAt(i);
      if (c < 33 || c > 126) return false;
      if (c !== 0x2e) continue;
    }
    if (i === labelStart) return false;
    labelStart = i + 1;
  }
  return true;
}

export interface Mailbox {
  readonly local: string;
  readonly domain: string;
}

function isAtext(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || "!#$%&'*+-/=?^_`{|}~.".includes(String.fromCharCode(c));
}

/** Go's parseRFC2821Mailbox. */
export function parseMailbox(input: string): Mailbox | undefined {
  if (input.length === 0) return undefined;
  let local = '';
  let i = 0;
  const at = (k: number): number => input.charCodeAt(k);
  if (input[0] === '"') {
    i = 1;
    for (;;) {
      if (i >= input.length) return undefined;
      const c = at(i++);
      if (c === 0x22) break;
      if (c === 0x5c) {
        if (i >= input.length) return undefined;
        const n = at(i);
        if (n === 11 || n === 12 || (n >= 1 && n <= 9) || (n >= 14 && n <= 127)) {
          local += input[i];
          i++;
        } else return undefined;
      } else if (c === 11 || c === 12 || c === 32 || c === 33 || c === 127 || (c >= 1 && c <= 8) || (c >= 14 && c <= 31) || (c >= 35 && c <= 91) || (c >= 93 && c <= 126)) {
        local += String.fromCharCode(c);
      } else return undefined;
    }
  } else {
    while (i < input.length) {
      let c = at(i);
      if (c === 0x5c) {
        i++;
        if (i >= input.length) return undefined;
        // Go falls through and appends the escaped byte whatever it is.
        local += input[i];
        i++;
        continue;
      }
      if (!isAtext(c)) break;
      c = at(i);
      local += input[i];
      i++;
    }
    if (local.length === 0) return undefined;
    if (local.startsWith('.') || local.endsWith('.') || local.includes('..')) return undefined;
  }
  if (i >= input.length || input[i] !== '@') return undefined;
  const domain = input.slice(i + 1);
  if (domainToReverseLabels(domain) === undefined) return undefined;
  return { local, domain };
}

/** net.IP.String. */
export function ipString(ip: Uint8Array): string {
  if (ip.length === 4) return ip.join('.');
  const v4mapped = ip.length === 16 && ip.subarray(0, 10).every((b) => b === 0) && ip[10] === 0xff && ip[11] === 0xff;
  if (v4mapped) return ip.subarray(12).join('.');
  if (ip.length !== 16) return `?${Array.from(ip, (b) => b.toString(16).padStart(2, '0')).join('')}`;
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((ip[i]! << 8) | ip[i + 1]!);
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  let out = '';
  for (let i = 0; i < 8; i++) {
    if (i === bestStart) {
      out += '::';
      i += bestLen - 1;
      continue;
    }
    if (out.length > 0 && !out.endsWith(':')) out += ':';
    out += groups[i]!.toString(16);
  }
  return out;
}

/** A *net.IPNet's String(): address/prefix-length, or address/hex-mask (what %q quotes). */
export function ipNetString(n: IpNet): string {
  // net.IPNet.String: the address as parsed (not masked), an IPv4-mapped one as IPv4 with the
  // mask's last four bytes, then the prefix length, or the mask in hex when it is not a prefix.
  const v4mapped = n.ip.length === 16 && n.ip.subarray(0, 10).every((b) => b === 0) && n.ip[10] === 0xff && n.ip[11] === 0xff;
  const ip = v4mapped ? n.ip.subarray(12) : n.ip;
  const mask = n.mask.length === 16 && ip.length === 4 ? n.mask.subarray(12) : n.mask;
  if ((ip.length !== 4 && ip.length !== 16) || mask.length !== ip.length) return '<nil>';
  let ones = 0;
  let canonical = true;
  let seenZero = false;
  for (const b of mask) {
    for (let bit = 7; bit >= 0; bit--) {
      if ((b >> bit) & 1) {
        if (seenZero) canonical = false;
        ones++;
      } else seenZero = true;
    }
  }
  const prefix = canonical ? String(ones) : Array.from(mask, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${ipString(ip)}/${prefix}`;
}

/**
 * netip.ParseAddr: 4 for an IPv4 address, 6 for an IPv6 one (a zone after '%' allowed, as since
 * Go 1.22.11 name constraints see it), undefined when it does not parse.
 */
export function parseNetipAddr(s: string): 4 | 6 | undefined {
  const family = parseAddr(s);
  return typeof family === 'object' ? undefined : family;
}

/** net.ParseIP succeeds: dotted-quad IPv4 or an IPv6 literal (no zone). */
export function looksLikeIP(s: string): boolean {
  return parseIPv4(s) !== undefined || parseIPv6(s) !== undefined;
}

export function parseIPv4(s: string): Uint8Array | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  const out = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const p = parts[i]!;
    // net.ParseIP (Go 1.19) refuses leading zeros and values over 255.
    if (!/^[0-9]{1,3}$/.test(p) || (p.length > 1 && p[0] === '0')) return undefined;
    const v = Number(p);
    if (v > 255) return undefined;
    out[i] = v;
  }
  return out;
}

export function parseIPv6(s: string): Uint8Array | undefined {
  const out = new Uint8Array(16);
  let ellipsis = -1;
  let i = 0;
  let rest = s;
  if (rest.length >= 2 && rest.startsWith('::')) {
    ellipsis = 0;
    rest = rest.slice(2);
    if (rest.length === 0) return out;
  }
  while (i < 16) {
    const m = /^[0-9a-fA-F]{1,4}/.exec(rest);
    if (m === null) return undefined;
    if (rest.length > m[0].length && rest[m[0].length] === '.') {
      if (ellipsis < 0 && i !== 12) return undefined;
      if (i + 4 > 16) return undefined;
      const v4 = parseIPv4(rest);
      if (v4 === undefined) return undefined;
      out.set(v4, i);
      i += 4;
      rest = '';
      break;
    }
    const v = parseInt(m[0], 16);
    out[i] = v >> 8;
    out[i + 1] = v & 0xff;
    i += 2;
    rest = rest.slice(m[0].length);
    if (rest.length === 0) break;
    if (rest[0] !== ':' || rest.length === 1) return undefined;
    rest = rest.slice(1);
    if (rest[0] === ':') {
      if (ellipsis >= 0) return undefined;
      ellipsis = i;
      rest = rest.slice(1);
      if (rest.length === 0) break;
    }
  }
  if (rest.length !== 0) return undefined;
  if (i < 16) {
    if (ellipsis < 0) return undefined;
    const n = 16 - i;
    for (let j = i - 1; j >= ellipsis; j--) out[j + n] = out[j]!;
    for (let j = ellipsis + n - 1; j >= ellipsis; j--) out[j] = 0;
  } else if (ellipsis >= 0) {
    return undefined;
  }
  return out;
}
