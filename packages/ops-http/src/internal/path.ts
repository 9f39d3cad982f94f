import { isIPv6 } from 'node:net';
import { OpsHttpError } from './errors.ts';

/**
 * Go's `path.Clean` for a rooted path: collapses `//`, drops `.` and resolves `..`
 * lexically, never above the root.
 */
function cleanRooted(path: string): string {
  const out: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      out.pop();
      continue;
    }
    out.push(segment);
  }
  return '/' + out.join('/');
}

/**
 * The canonical form Go's ServeMux redirects to: rooted, cleaned, and keeping a
 * trailing slash when the request had one.
 */
export function cleanPath(path: string): string {
  // Nearly every request is already clean: skip the split/join unless a `//`, `/.` or missing root says otherwise.
  if (path.startsWith('/') && !path.includes('//') && !path.includes('/.')) return path;
  if (path === '') return '/';
  const rooted = path.startsWith('/') ? path : '/' + path;
  let cleaned = cleanRooted(rooted);
  if (rooted.endsWith('/') && cleaned !== '/') cleaned += '/';
  return cleaned;
}

export interface RequestTarget {
  /**
   * The decoded path, as Go's `URL.Path`, its bytes read as UTF-8 (a byte sequence that is not
   * UTF-8 becomes U+FFFD rather than an error: Go keeps bytes and refuses none).
   */
  readonly path: string;
  /**
   * The path as Go's `URL.EscapedPath()` gives it: the raw path when it is a valid encoding,
   * else the decoded path escaped again. Go 1.22+'s ServeMux cleans and routes this form.
   */
  readonly escapedPath: string;
  /** The raw query string without `?`, or '' when there is none. */
  readonly query: string;
}

// Characters net/url leaves alone, per mode (read off Go 1.26's url package byte by byte).
const UNRESERVED = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~';
/** `escape(s, encodePath)` keeps these; everything else becomes %XX. */
const PATH_KEPT = charSet(UNRESERVED + '$&+,/:;=@');
/** `validEncoded(s, encodePath)` accepts these (and `%`) in a raw path. */
const PATH_VALID_RAW = charSet(UNRESERVED + "!$&'()*+,/:;=@[]%");
/**
 * A host name (outside brackets) may hold these ASCII bytes (`:` only where the scheme is not
 * http/https: there a second colon is refused first); `%` only before a non-ASCII byte or as `%25`.
 */
const HOST_KEPT = charSet(UNRESERVED + '!"$&\'()*+,;<=>]:');
/** `validUserinfo`. */
const USERINFO_KEPT = charSet(UNRESERVED + "!$&'()*+,;=:%@");

function charSet(chars: string): Uint8Array {
  const set = new Uint8Array(256);
  for (let i = 0; i < chars.length; i++) set[chars.charCodeAt(i)] = 1;
  return set;
}

const HEX = '0123456789ABCDEF';

/** Go's `url.URL{Path: p}.EscapedPath()`: every byte outside PATH_KEPT as %XX (the text is bytes, one char each). */
export function escapeGoPath(path: string): string {
  let out = '';
  for (let i = 0; i < path.length; i++) {
    const code = path.charCodeAt(i);
    if (code < 256 && PATH_KEPT[code] === 1) out += path[i];
    else for (const byte of Buffer.from(path[i]!, code < 256 ? 'latin1' : 'utf8')) out += `%${HEX[byte >> 4]!}${HEX[byte & 15]!}`;
  }
  return out;
}

function isValidRawPath(raw: string): boolean {
  for (let i = 0; i < raw.length; i++) {
    const code = raw.charCodeAt(i);
    if (code > 255 || PATH_VALID_RAW[code] !== 1) return false;
  }
  return true;
}

const isHex = (code: number): boolean => (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x46) || (code >= 0x61 && code <= 0x66);

/** Go's `unescape`: a `%` must start two hex digits; each escape becomes one byte (one latin1 char), as Go keeps bytes. */
function unescapeGo(text: string, what: string): string {
  if (!text.includes('%')) return text;
  for (let i = text.indexOf('%'); i !== -1; i = text.indexOf('%', i + 1)) {
    if (!isHex(text.charCodeAt(i + 1)) || !isHex(text.charCodeAt(i + 2))) {
      throw new OpsHttpError('BAD_REQUEST_TARGET', `invalid URL escape ${JSON.stringify(text.slice(i, i + 3))} in ${what}`);
    }
  }
  return text.replace(/%([0-9a-fA-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

function checkPort(colonPort: string, host: string): void {
  if (colonPort === '') return;
  if (!/^:[0-9]*$/.test(colonPort)) throw new OpsHttpError('BAD_REQUEST_TARGET', `invalid port ${JSON.stringify(colonPort)} after host ${JSON.stringify(host)}`);
}

/**
 * Go 1.26's `parseAuthority` for an absolute-form target: userinfo characters, a bracketed IPv6
 * literal (zone as `%25`), and for http/https at most one colon outside brackets
 * (`urlstrictcolons`, new in Go 1.26: `http://h:1:2/` is refused).
 */
function checkAuthority(scheme: string, authority: string): void {
  const at = authority.lastIndexOf('@');
  if (at !== -1) {
    const userinfo = authority.slice(0, at);
    for (let i = 0; i < userinfo.length; i++) {
      const code = userinfo.charCodeAt(i);
      if (code > 255 || USERINFO_KEPT[code] !== 1) throw new OpsHttpError('BAD_REQUEST_TARGET', 'invalid userinfo');
    }
    for (const part of userinfo.split(':', 2)) unescapeGo(part, 'userinfo');
  }
  const host = authority.slice(at + 1);
  const open = host.lastIndexOf('[');
  if (open > 0) throw new OpsHttpError('BAD_REQUEST_TARGET', 'invalid IP-literal');
  if (open === 0) {
    const close = host.lastIndexOf(']');
    if (close < 0) throw new OpsHttpError('BAD_REQUEST_TARGET', "missing ']' in host");
    checkPort(host.slice(close + 1), host);
    const literal = host.slice(1, close);
    const zone = literal.indexOf('%25');
    const address = unescapeGo(zone === -1 ? literal : literal.slice(0, zone), 'host');
    if (zone !== -1) unescapeGo(literal.slice(zone), 'zone');
    if (!isIPv6(address)) throw new OpsHttpError('BAD_REQUEST_TARGET', `invalid host ${JSON.stringify(literal)}`);
    return;
  }
  const first = host.indexOf(':');
  if (first !== -1) {
    const last = host.lastIndexOf(':');
    const strict = scheme === 'http' || scheme === 'https';
    checkPort(host.slice(strict ? first : last), host);
  }
  const name = first === -1 ? host : host.slice(0, scheme === 'http' || scheme === 'https' ? first : host.lastIndexOf(':'));
  for (let i = 0; i < name.length; i++) {
    const code = name.charCodeAt(i);
    if (code === 0x25) {
      // Hosts may %-encode only non-ASCII bytes (and %25 itself).
      const value = parseInt(name.slice(i + 1, i + 3), 16);
      if (!isHex(name.charCodeAt(i + 1)) || !isHex(name.charCodeAt(i + 2)) || (value < 0x80 && value !== 0x25)) {
        throw new OpsHttpError('BAD_REQUEST_TARGET', `invalid URL escape ${JSON.stringify(name.slice(i, i + 3))} in host`);
      }
      i += 2;
      continue;
    }
    if (code < 0x80 && HOST_KEPT[code] !== 1) throw new OpsHttpError('BAD_REQUEST_TARGET', `invalid character ${JSON.stringify(name[i])} in host name`);
  }
}

/** Go's `getScheme`: letters, then letters, digits, `+`, `-`, `.` up to a colon. */
function schemeOf(target: string): string {
  for (let i = 0; i < target.length; i++) {
    const c = target.charCodeAt(i);
    const letter = (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
    if (letter) continue;
    if ((c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e) {
      if (i === 0) return '';
      continue;
    }
    if (c === 0x3a) {
      if (i === 0) throw new OpsHttpError('BAD_REQUEST_TARGET', 'missing protocol scheme');
      return target.slice(0, i);
    }
    return '';
  }
  return '';
}

/**
 * Splits a request target as Go's `url.ParseRequestURI` (Go 1.26) does, without any
 * normalisation (WHATWG `URL` would resolve `..` itself and hide the redirect Go clients expect).
 * A `#` is no fragment in a request target: Go keeps it in the path or the query, and so does
 * this. Throws `BAD_REQUEST_TARGET` where Go's parser fails (the server then answers 400).
 */
export function parseRequestTarget(target: string): RequestTarget {
  if (target.startsWith('/') && !target.includes('?') && !target.includes('%') && isPlainPath(target)) {
    return { path: target, escapedPath: target, query: '' };
  }
  const scheme = schemeOf(target);
  let rest = scheme === '' ? target : target.slice(scheme.length + 1);
  const q = rest.indexOf('?');
  const query = q === -1 ? '' : rest.slice(q + 1);
  if (q !== -1) rest = rest.slice(0, q);
  if (!rest.startsWith('/')) {
    // `scheme:opaque` is a URL with an empty path; anything else is no request target.
    if (scheme !== '') return { path: '', escapedPath: '', query };
    throw new OpsHttpError('BAD_REQUEST_TARGET', `invalid request target ${JSON.stringify(target)}`);
  }
  if (scheme !== '' && rest.startsWith('//')) {
    // absolute-form (`GET http://host/path`): the authority ends at the first `/`, so
    // `http://h?/logspec` has an empty path and the query `/logspec`, as in Go.
    const slash = rest.indexOf('/', 2);
    checkAuthority(scheme.toLowerCase(), slash === -1 ? rest.slice(2) : rest.slice(2, slash));
    rest = slash === -1 ? '' : rest.slice(slash);
  }
  const bytes = unescapeGo(rest, 'path');
  const escapedPath = isValidRawPath(rest) ? rest : escapeGoPath(bytes);
  return { path: Buffer.from(bytes, 'latin1').toString('utf8'), escapedPath, query };
}

function isPlainPath(target: string): boolean {
  for (let i = 0; i < target.length; i++) {
    const code = target.charCodeAt(i);
    if (code > 255 || PATH_KEPT[code] !== 1) return false;
  }
  return true;
}
