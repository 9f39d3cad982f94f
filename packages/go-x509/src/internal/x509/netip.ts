import { goQuote } from './quote.ts';

// Go 1.26's net/netip.ParseAddr, with its error texts: since Go 1.22.11 it decides whether a URI
// host is an IP under name constraints, and net/url uses it (and prints its error) for a
// bracketed host.

class ParseAddrError extends Error {
  constructor(input: string, message: string, at?: string) {
    super(`ParseAddr(${goQuote(input)}): ${message}${at === undefined || at === '' ? '' : ` (at ${goQuote(at)})`}`);
  }
}

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;

/** parseIPv4Fields over in[off, end). */
function ipv4Fields(input: string, off: number, end: number): void {
  const s = input.slice(off, end);
  let val = 0;
  let pos = 0;
  let digits = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (isDigit(c)) {
      if (digits === 1 && val === 0) throw new ParseAddrError(input, 'IPv4 field has octet with leading zero');
      val = val * 10 + c - 0x30;
      digits++;
      if (val > 255) throw new ParseAddrError(input, 'IPv4 field has value >255');
    } else if (c === 0x2e) {
      if (i === 0 || i === s.length - 1 || s[i - 1] === '.') throw new ParseAddrError(input, 'IPv4 field must have at least one digit', s.slice(i));
      if (pos === 3) throw new ParseAddrError(input, 'IPv4 address too long');
      pos++;
      val = 0;
      digits = 0;
    } else {
      throw new ParseAddrError(input, 'unexpected character', s.slice(i));
    }
  }
  if (pos < 3) throw new ParseAddrError(input, 'IPv4 address too short');
}

function hexValue(c: number): number {
  if (isDigit(c)) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}

function ipv6(input: string): void {
  let s = input;
  let zone = '';
  const percent = s.indexOf('%');
  if (percent !== -1) {
    zone = s.slice(percent + 1);
    s = s.slice(0, percent);
    if (zone === '') throw new ParseAddrError(input, 'zone must be a non-empty string');
  }
  let ellipsis = -1;
  if (s.length >= 2 && s[0] === ':' && s[1] === ':') {
    ellipsis = 0;
    s = s.slice(2);
    if (s.length === 0) return;
  }
  let i = 0;
  while (i < 16) {
    let off = 0;
    let acc = 0;
    for (; off < s.length; off++) {
      const v = hexValue(s.charCodeAt(off));
      if (v < 0) break;
      acc = acc * 16 + v;
      if (off > 3) throw new ParseAddrError(input, 'each group must have 4 or less digits', s);
      if (acc > 0xffff) throw new ParseAddrError(input, 'IPv6 field has value >=2^16', s);
    }
    if (off === 0) throw new ParseAddrError(input, 'each colon-separated field must have at least one digit', s);
    if (off < s.length && s[off] === '.') {
      if (ellipsis < 0 && i !== 12) throw new ParseAddrError(input, 'embedded IPv4 address must replace the final 2 fields of the address', s);
      if (i + 4 > 16) throw new ParseAddrError(input, 'too many hex fields to fit an embedded IPv4 at the end of the address', s);
      const end = input.length - (zone.length > 0 ? zone.length + 1 : 0);
      ipv4Fields(input, end - s.length, end);
      s = '';
      i += 4;
      break;
    }
    i += 2;
    s = s.slice(off);
    if (s.length === 0) break;
    if (s[0] !== ':') throw new ParseAddrError(input, 'unexpected character, want colon', s);
    if (s.length === 1) throw new ParseAddrError(input, 'colon must be followed by more characters', s);
    s = s.slice(1);
    if (s[0] === ':') {
      if (ellipsis >= 0) throw new ParseAddrError(input, 'multiple :: in address', s);
      ellipsis = i;
      s = s.slice(1);
      if (s.length === 0) break;
    }
  }
  if (s.length !== 0) throw new ParseAddrError(input, 'trailing garbage after address', s);
  if (i < 16) {
    if (ellipsis < 0) throw new ParseAddrError(input, 'address string too short');
  } else if (ellipsis >= 0) {
    throw new ParseAddrError(input, 'the :: must expand to at least one field of zeros');
  }
}

/** netip.ParseAddr: 4 or 6 (an IPv6 zone allowed), or Go's error text. */
export function parseAddr(s: string): 4 | 6 | { error: string } {
  try {
    for (let i = 0; i < s.length; i++) {
      const c = s[i];
      if (c === '.') {
        ipv4Fields(s, 0, s.length);
        return 4;
      }
      if (c === ':') {
        ipv6(s);
        return 6;
      }
      if (c === '%') throw new ParseAddrError(s, 'missing IPv6 address');
    }
    throw new ParseAddrError(s, 'unable to parse IP');
  } catch (e) {
    if (e instanceof ParseAddrError) return { error: e.message };
    throw e;
  }
}
