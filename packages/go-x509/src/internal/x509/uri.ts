import { parseAddr } from './netip.ts';
import { goQuote } from './quote.ts';

// The parts of Go 1.26's net/url.Parse that decide whether a URI SAN parses, and the host it
// yields (name constraints match on it). Inputs are Latin-1 strings of the raw bytes (ASCII only,
// since the SAN is checked as IA5 first).

function isHex(c: string | undefined): boolean {
  return c !== undefined && /^[0-9a-fA-F]$/.test(c);
}

function unhex(c: string): number {
  return parseInt(c, 16);
}

type Mode = 'path' | 'host' | 'zone' | 'userPassword' | 'fragment';

function isAlnum(code: number): boolean {
  return (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) || (code >= 0x30 && code <= 0x39);
}

function shouldEscape(code: number, mode: Mode): boolean {
  if (isAlnum(code)) return false;
  const c = String.fromCharCode(code);
  if ((mode === 'host' || mode === 'zone') && `!$&'()*+,;=:[]<>"`.includes(c)) return false;
  if ('-_.~'.includes(c)) return false;
  if ('$&+,/:;=?@'.includes(c)) {
    switch (mode) {
      case 'path':
        return c === '?';
      case 'userPassword':
        return c === '@' || c === '/' || c === '?' || c === ':';
      case 'fragment':
        return false;
      default:
        break;
    }
  }
  if (mode === 'fragment' && '!()*'.includes(c)) return false;
  return true;
}

class UrlError extends Error {}

function unescape(s: string, mode: Mode): string {
  let out = '';
  for (let i = 0; i < s.length;) {
    const c = s[i]!;
    if (c === '%') {
      if (i + 2 >= s.length || !isHex(s[i + 1]) || !isHex(s[i + 2])) {
        throw new UrlError(`invalid URL escape ${goQuote(s.slice(i, i + 3))}`);
      }
      const v = (unhex(s[i + 1]!) << 4) | unhex(s[i + 2]!);
      if (mode === 'host' && unhex(s[i + 1]!) < 8 && s.slice(i, i + 3) !== '%25') {
        throw new UrlError(`invalid URL escape ${goQuote(s.slice(i, i + 3))}`);
      }
      if (mode === 'zone' && s.slice(i, i + 3) !== '%25' && v !== 0x20 && shouldEscape(v, 'host')) {
        throw new UrlError(`invalid URL escape ${goQuote(s.slice(i, i + 3))}`);
      }
      out += String.fromCharCode(v);
      i += 3;
    } else {
      const code = c.charCodeAt(0);
      if ((mode === 'host' || mode === 'zone') && code < 0x80 && shouldEscape(code, mode)) {
        throw new UrlError(`invalid character ${goQuote(c)} in host name`);
      }
      out += c;
      i++;
    }
  }
  return out;
}

function validOptionalPort(port: string): boolean {
  if (port === '') return true;
  if (port[0] !== ':') return false;
  return /^[0-9]*$/.test(port.slice(1));
}

function validUserinfo(s: string): boolean {
  return /^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(s);
}

function parseHost(scheme: string, host: string): string {
  const openBracket = host.lastIndexOf('[');
  if (openBracket > 0) throw new UrlError('invalid IP-literal');
  if (openBracket === 0) {
    const closeBracket = host.lastIndexOf(']');
    if (closeBracket < 0) throw new UrlError("missing ']' in host");
    const colonPort = host.slice(closeBracket + 1);
    if (!validOptionalPort(colonPort)) throw new UrlError(`invalid port ${goQuote(colonPort)} after host`);
    const port = unescape(colonPort, 'host');
    const hostname = host.slice(1, closeBracket);
    const zone = hostname.indexOf('%25');
    const unescaped = zone >= 0 ? unescape(hostname.slice(0, zone), 'host') + unescape(hostname.slice(zone), 'zone') : unescape(hostname, 'host');
    // Only an IPv6 address (a zone allowed) may stand in brackets (RFC 3986).
    const family = parseAddr(unescaped);
    if (typeof family === 'object') throw new UrlError(`invalid host: ${family.error}`);
    if (family === 4) throw new UrlError('invalid IP-literal');
    return `[${unescaped}]${port}`;
  }
  let colon = host.indexOf(':');
  if (colon !== -1) {
    const lastColon = host.lastIndexOf(':');
    // More than one colon: http and https keep the first (so the port check fails: GODEBUG
    // urlstrictcolons, on since Go 1.26); any other scheme takes the last as the port separator.
    if (lastColon !== colon && scheme !== 'http' && scheme !== 'https') colon = lastColon;
    const colonPort = host.slice(colon);
    if (!validOptionalPort(colonPort)) throw new UrlError(`invalid port ${goQuote(colonPort)} after host`);
  }
  return unescape(host, 'host');
}

interface User {
  readonly username: string;
  readonly password: string | undefined;
}

function parseAuthority(scheme: string, authority: string): { host: string; user: User | undefined } {
  const i = authority.lastIndexOf('@');
  const host = parseHost(scheme, i < 0 ? authority : authority.slice(i + 1));
  if (i < 0) return { host, user: undefined };
  const userinfo = authority.slice(0, i);
  if (!validUserinfo(userinfo)) throw new UrlError('net/url: invalid userinfo');
  const colon = userinfo.indexOf(':');
  if (colon < 0) return { host, user: { username: unescape(userinfo, 'userPassword'), password: undefined } };
  return { host, user: { username: unescape(userinfo.slice(0, colon), 'userPassword'), password: unescape(userinfo.slice(colon + 1), 'userPassword') } };
}

function getScheme(raw: string): { scheme: string; rest: string } {
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if ((c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a)) continue;
    if ((c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e) {
      if (i === 0) return { scheme: '', rest: raw };
      continue;
    }
    if (c === 0x3a) {
      if (i === 0) throw new UrlError('missing protocol scheme');
      return { scheme: raw.slice(0, i), rest: raw.slice(i + 1) };
    }
    return { scheme: '', rest: raw };
  }
  return { scheme: '', rest: raw };
}

/** The fields of a url.URL that its String() reads. */
interface UrlParts {
  scheme: string;
  opaque: string;
  user: User | undefined;
  host: string;
  omitHost: boolean;
  path: string;
  rawPath: string;
  forceQuery: boolean;
  rawQuery: string;
  fragment: string;
  rawFragment: string;
}

function escape(s: string, mode: Mode): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const code = s.charCodeAt(i);
    out += shouldEscape(code, mode) ? `%${code.toString(16).toUpperCase().padStart(2, '0')}` : s[i];
  }
  return out;
}

/** url.URL.setPath and setFragment: the decoded text, and the raw one only when it differs from the default escaping. */
function decoded(raw: string, mode: Mode): { text: string; raw: string } {
  const text = unescape(raw, mode);
  return { text, raw: escape(text, mode) === raw ? '' : raw };
}

function parseWithoutFragment(raw: string): UrlParts {
  for (let i = 0; i < raw.length; i++) {
    const b = raw.charCodeAt(i);
    if (b < 0x20 || b === 0x7f) throw new UrlError('net/url: invalid control character in URL');
  }
  const url: UrlParts = { scheme: '', opaque: '', user: undefined, host: '', omitHost: false, path: '', rawPath: '', forceQuery: false, rawQuery: '', fragment: '', rawFragment: '' };
  if (raw === '*') {
    url.path = '*';
    return url;
  }
  const { scheme: rawScheme, rest: afterScheme } = getScheme(raw);
  url.scheme = rawScheme.toLowerCase();
  let rest = afterScheme;
  if (rest.endsWith('?') && rest.split('?').length === 2) {
    url.forceQuery = true;
    rest = rest.slice(0, -1);
  } else {
    const q = rest.indexOf('?');
    if (q >= 0) {
      url.rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  if (!rest.startsWith('/')) {
    if (url.scheme !== '') {
      url.opaque = rest;
      return url;
    }
    const slash = rest.indexOf('/');
    const segment = slash < 0 ? rest : rest.slice(0, slash);
    if (segment.includes(':')) throw new UrlError('first path segment in URL cannot contain colon');
  }
  if ((url.scheme !== '' || !rest.startsWith('///')) && rest.startsWith('//')) {
    let authority = rest.slice(2);
    rest = '';
    const i = authority.indexOf('/');
    if (i >= 0) {
      rest = authority.slice(i);
      authority = authority.slice(0, i);
    }
    const parsed = parseAuthority(url.scheme, authority);
    url.host = parsed.host;
    url.user = parsed.user;
  } else if (url.scheme !== '' && rest.startsWith('/')) {
    url.omitHost = true;
  }
  const path = decoded(rest, 'path');
  url.path = path.text;
  url.rawPath = path.raw;
  return url;
}

/** validEncoded: no byte that would need escaping, RFC 3986's sub-delims, ':', '@', '[', ']' and '%' allowed. */
function validEncoded(s: string, mode: Mode): boolean {
  for (let i = 0; i < s.length; i++) {
    if ("!$&'()*+,;=:@[]%".includes(s[i]!)) continue;
    if (shouldEscape(s.charCodeAt(i), mode)) return false;
  }
  return true;
}

/** EscapedPath and EscapedFragment: the raw text when it is a valid escaping of the decoded one. */
function escaped(text: string, raw: string, mode: Mode): string {
  if (raw !== '' && validEncoded(raw, mode)) {
    try {
      if (unescape(raw, mode) === text) return raw;
    } catch {
      // not a valid escaping: computed below
    }
  }
  if (mode === 'path' && text === '*') return '*';
  return escape(text, mode);
}

/** url.URL.String(), as Go 1.26 reassembles a parsed URL. */
function reassemble(u: UrlParts): string {
  let out = u.scheme === '' ? '' : `${u.scheme}:`;
  if (u.opaque !== '') out += u.opaque;
  else {
    if ((u.scheme !== '' || u.host !== '' || u.user !== undefined) && !(u.omitHost && u.host === '' && u.user === undefined)) {
      if (u.host !== '' || u.path !== '' || u.user !== undefined) out += '//';
      if (u.user !== undefined) {
        out += escape(u.user.username, 'userPassword');
        if (u.user.password !== undefined) out += `:${escape(u.user.password, 'userPassword')}`;
        out += '@';
      }
      if (u.host !== '') out += escape(u.host, 'host');
    }
    const path = escaped(u.path, u.rawPath, 'path');
    if (path !== '' && path[0] !== '/' && u.host !== '') out += '/';
    if (out.length === 0 && (path.split('/')[0] ?? '').includes(':')) out += './';
    out += path;
  }
  if (u.forceQuery || u.rawQuery !== '') out += `?${u.rawQuery}`;
  if (u.fragment !== '') out += `#${escaped(u.fragment, u.rawFragment, 'fragment')}`;
  return out;
}

/** A URI SAN as name constraints see it: its text, the host url.Parse found in it, and how Go prints it. */
export interface ParsedUri {
  readonly raw: string;
  readonly host: string;
  readonly parts: UrlParts;
}

/** url.URL.String() of a parsed URI SAN (what %q shows in Go's constraint errors). */
export function urlString(uri: ParsedUri): string {
  return reassemble(uri.parts);
}

/** url.Parse: the host, or the text of Go's *url.Error. */
export function parseUrl(raw: string): ParsedUri | { error: string } {
  const hash = raw.indexOf('#');
  const u = hash < 0 ? raw : raw.slice(0, hash);
  let parts: UrlParts;
  try {
    parts = parseWithoutFragment(u);
  } catch (e) {
    if (e instanceof UrlError) return { error: `parse ${goQuote(u)}: ${e.message}` };
    throw e;
  }
  if (hash >= 0 && hash + 1 < raw.length) {
    try {
      const fragment = decoded(raw.slice(hash + 1), 'fragment');
      parts.fragment = fragment.text;
      parts.rawFragment = fragment.raw;
    } catch (e) {
      if (e instanceof UrlError) return { error: `parse ${goQuote(raw)}: ${e.message}` };
      throw e;
    }
  }
  return { raw, host: parts.host, parts };
}
