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
  /** The decoded path, as Go's `URL.Path`. */
  readonly path: string;
  /** The raw query string without `?`, or '' when there is none. */
  readonly query: string;
}

/**
 * Splits a request target into path and query as Go's `url.ParseRequestURI` does, without any
 * normalisation (WHATWG `URL` would resolve `..` itself and hide the redirect Go clients expect).
 * A `#` is no fragment in a request target: Go keeps it in the path or the query, and so does this.
 */
export function parseRequestTarget(target: string): RequestTarget {
  if (target.startsWith('/') && !target.includes('?') && !target.includes('%')) {
    return { path: target, query: '' };
  }
  let rest = target;
  // absolute-form (`GET http://host/path`): the authority ends at the first `/` or `?`, so
  // `http://h?/logspec` has an empty path and the query `/logspec`, as in Go.
  const scheme = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.exec(rest);
  if (scheme) {
    const after = rest.slice(scheme[0].length);
    const end = after.search(/[/?]/);
    rest = end === -1 ? '' : after.slice(end);
  } else if (!rest.startsWith('/')) {
    throw new OpsHttpError('BAD_REQUEST_TARGET', `invalid request target ${JSON.stringify(target)}`);
  }
  const q = rest.indexOf('?');
  const rawPath = q === -1 ? rest : rest.slice(0, q);
  const query = q === -1 ? '' : rest.slice(q + 1);
  let path: string;
  try {
    path = rawPath.includes('%') ? decodeURIComponent(rawPath) : rawPath;
  } catch (cause) {
    throw new OpsHttpError('BAD_REQUEST_TARGET', `invalid URL escape in ${JSON.stringify(rawPath)}`, { cause });
  }
  return { path, query };
}
