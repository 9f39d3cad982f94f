/** Which exposition format a body is rendered in. */
export type ExpositionFormat = { readonly kind: 'text' } | { readonly kind: 'openmetrics'; readonly version: '1.0.0' | '0.0.1' };

/** What a scrape is answered in: a rendered format, or the delimited protobuf made from the text rendering. */
export type WireFormat = ExpositionFormat | { readonly kind: 'protobuf'; readonly encoding: ProtobufEncoding };

/** expfmt's three protobuf encodings: the delimited binary one Prometheus scrapes, and two text forms for debugging. */
export type ProtobufEncoding = 'delimited' | 'text' | 'compact-text';

/**
 * prometheus/common's name escaping schemes (`escaping=` in Accept and Content-Type). Every
 * name ops-metrics serves is a legacy name (`[a-zA-Z_:][a-zA-Z0-9_:]*`), which client_golang's
 * EscapeMetricFamily leaves as it is under every scheme, so the scheme changes the
 * Content-Type only, never the body.
 */
export type EscapingScheme = 'allow-utf-8' | 'underscores' | 'dots' | 'values';

/** prometheus/common 0.62's NameEscapingScheme: what a scrape that names no scheme gets. */
export const DEFAULT_ESCAPING: EscapingScheme = 'underscores';

export const TEXT_FORMAT: ExpositionFormat = { kind: 'text' };
export const PROTOBUF_FORMAT: WireFormat = { kind: 'protobuf', encoding: 'delimited' };

/** The text format's Content-Type as Fabric v2.5 / v3.1 send it by default. */
export const TEXT_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8; escaping=underscores';

export interface NegotiatedFormat {
  readonly format: WireFormat;
  readonly escaping: EscapingScheme;
}

/** expfmt's Format strings (FmtText, FmtProtoDelim, FmtOpenMetrics_*) with the `; escaping=` term. */
export function contentTypeFor(format: WireFormat, escaping: EscapingScheme = DEFAULT_ESCAPING): string {
  switch (format.kind) {
    case 'text':
      return `text/plain; version=0.0.4; charset=utf-8; escaping=${escaping}`;
    case 'protobuf':
      return `application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=${format.encoding}; escaping=${escaping}`;
    case 'openmetrics':
      return `application/openmetrics-text; version=${format.version}; charset=utf-8; escaping=${escaping}`;
  }
}

/** One clause of an Accept header as munnerz/goautoneg (prometheus/common's) parses it. */
interface AcceptClause {
  readonly type: string;
  readonly subType: string;
  readonly q: number;
  readonly params: ReadonlyMap<string, string>;
}

const NO_PARAMS: ReadonlyMap<string, string> = new Map();
const trimSpaces = (text: string): string => text.replace(/^ +| +$/g, '');
const DECIMAL_FLOAT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const SPECIAL_FLOAT = /^([+-]?)(inf|infinity|nan)$/i;

/** `strconv.ParseFloat(text, 32)` with its error dropped, as goautoneg reads `q`: 0 on a syntax error. */
function parseGoFloat32(text: string): number {
  if (DECIMAL_FLOAT.test(text)) return Math.fround(Number(text));
  const special = SPECIAL_FLOAT.exec(text);
  if (special === null) return 0;
  if (special[2]!.toLowerCase() === 'nan') return NaN;
  return special[1] === '-' ? -Infinity : Infinity;
}

/** `strings.Index`-based split at the first `separator`, as goautoneg's nextSplitElement. */
function splitFirst(text: string, separator: string): [string, string] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, ''] : [text.slice(0, at), text.slice(at + 1)];
}

/** goautoneg's ordering; not a strict weak order, so the sort below must be Go's. */
function ranksBefore(a: AcceptClause, b: AcceptClause): boolean {
  return a.q > b.q || (a.type !== '*' && b.type === '*') || (a.subType !== '*' && b.subType === '*');
}

/**
 * goautoneg.ParseAccept: clauses split at every `,` and `;` (no quoting), case kept, only
 * spaces trimmed, a clause without a `/` skipped unless it is `*`, sorted by Go's `sort.Sort`
 * (an insertion sort for the 12 clauses and fewer any real header has).
 */
export function parseAccept(header: string): AcceptClause[] {
  const clauses: AcceptClause[] = [];
  let remaining = header;
  while (remaining.length > 0) {
    let part: string;
    [part, remaining] = splitFirst(remaining, ',');
    part = trimSpaces(part);
    const [mediaRange, paramText] = splitFirst(part, ';');
    const [rawType, afterSlash] = splitFirst(mediaRange, '/');
    const type = trimSpaces(rawType);
    let subType: string;
    if (afterSlash.length === 0) {
      if (type !== '*') continue;
      subType = '*';
    } else {
      const [rawSubType, extra] = splitFirst(afterSlash, '/');
      if (extra.length > 0) continue;
      subType = trimSpaces(rawSubType);
    }
    let q = 1;
    let params = NO_PARAMS;
    if (paramText.length > 0) {
      const parsed = new Map<string, string>();
      let rest = paramText;
      while (rest.length > 0) {
        let param: string;
        [param, rest] = splitFirst(rest, ';');
        const [key, afterEq] = splitFirst(param, '=');
        if (afterEq.length === 0) continue;
        const [value, extra] = splitFirst(afterEq, '=');
        if (extra.length !== 0) continue;
        const token = trimSpaces(key);
        if (token === 'q') q = parseGoFloat32(value);
        else parsed.set(token, trimSpaces(value));
      }
      params = parsed;
    }
    clauses.push({ type, subType, q, params });
  }
  for (let i = 1; i < clauses.length; i++) {
    for (let j = i; j > 0 && ranksBefore(clauses[j]!, clauses[j - 1]!); j--) {
      const swap = clauses[j]!;
      clauses[j] = clauses[j - 1]!;
      clauses[j - 1] = swap;
    }
  }
  return clauses;
}

function isEscapingScheme(value: string): value is EscapingScheme {
  return value === 'allow-utf-8' || value === 'underscores' || value === 'dots' || value === 'values';
}

/**
 * expfmt.Negotiate (prometheus/common 0.62, what Fabric v2.5.16 / v3.1.5's promhttp calls), or
 * NegotiateIncludingOpenMetrics when `allowOpenMetrics`: the first clause in goautoneg's order
 * that names text 0.0.4 (or text/plain without a version), the delimited protobuf or an
 * OpenMetrics version decides, whatever its q (q=0 included, as in Go); none gives text 0.0.4.
 * The escaping is the last known `escaping=` value among the clauses looked at up to and
 * including that one; unknown values are ignored. The protobuf's `text` and `compact-text`
 * encodings (Go's debugging formats) get those, with their own Content-Type.
 */
export function negotiateFormat(accept: string | undefined, allowOpenMetrics: boolean): NegotiatedFormat {
  let escaping = DEFAULT_ESCAPING;
  if (accept === undefined || accept === '') return { format: TEXT_FORMAT, escaping };
  for (const clause of parseAccept(accept)) {
    const requested = clause.params.get('escaping');
    if (requested !== undefined && isEscapingScheme(requested)) escaping = requested;
    const version = clause.params.get('version') ?? '';
    const mediaType = `${clause.type}/${clause.subType}`;
    if (mediaType === 'application/vnd.google.protobuf' && clause.params.get('proto') === 'io.prometheus.client.MetricFamily') {
      const encoding = clause.params.get('encoding');
      if (encoding === 'delimited' || encoding === 'text' || encoding === 'compact-text') return { format: { kind: 'protobuf', encoding }, escaping };
    }
    if (mediaType === 'text/plain' && (version === '0.0.4' || version === '')) return { format: TEXT_FORMAT, escaping };
    if (allowOpenMetrics && mediaType === 'application/openmetrics-text' && (version === '1.0.0' || version === '0.0.1' || version === '')) {
      return { format: { kind: 'openmetrics', version: version === '1.0.0' ? '1.0.0' : '0.0.1' }, escaping };
    }
  }
  return { format: TEXT_FORMAT, escaping };
}

export type ContentEncoding = 'identity' | 'gzip' | 'zstd';

/**
 * Whether node:zlib has zstd: Node 22.15+, 23.8+ (so 22, 24 and 26 of the supported lines; never
 * 20). Read from the version, not from node:zlib, so that importing this module does not load
 * node:zlib at start-up (the handler loads it on the first compressed scrape).
 */
export function zstdInNode(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major > 23 || (major === 23 && minor >= 8) || (major === 22 && minor >= 15);
}

export const ZSTD_AVAILABLE: boolean = zstdInNode(process.versions.node);

/** promhttp's offers, in its order (ties go to the earlier); without zstd where Node has none. */
export const OFFERED_ENCODINGS: readonly ContentEncoding[] = ZSTD_AVAILABLE ? ['identity', 'gzip', 'zstd'] : ['identity', 'gzip'];

// gddo's header package: a token is any CHAR but CTLs and separators (`/` is allowed in values).
const TOKEN_OR_SLASH = /^[!#$%&'*+\-.^_`|~0-9A-Za-z/]*/;
const LEADING_SPACE = /^[ \t\r\n]*/;
const skipSpace = (text: string): string => text.slice(LEADING_SPACE.exec(text)![0].length);

/** gddo's expectQuality: `0` or `1`, then optionally `.` and digits (so `1.5` is 1.5); -1 when malformed. */
function expectQuality(text: string): [number, string] {
  let q: number;
  if (text.startsWith('0')) q = 0;
  else if (text.startsWith('1')) q = 1;
  else return [-1, ''];
  let rest = text.slice(1);
  if (!rest.startsWith('.')) return [q, rest];
  rest = rest.slice(1);
  let digits = 0;
  let numerator = 0;
  let denominator = 1;
  while (digits < rest.length && rest.charCodeAt(digits) >= 0x30 && rest.charCodeAt(digits) <= 0x39) {
    numerator = numerator * 10 + (rest.charCodeAt(digits) - 0x30);
    denominator *= 10;
    digits++;
  }
  return [q + numerator / denominator, rest.slice(digits)];
}

interface EncodingSpec {
  readonly value: string;
  readonly q: number;
}

/**
 * gddo's header.ParseAccept over each Accept-Encoding line: values are case-sensitive tokens,
 * the only parameter is `q`, and a malformed element ends the parsing of its line (elements
 * before it count).
 */
export function parseAcceptEncoding(lines: readonly string[]): EncodingSpec[] {
  const specs: EncodingSpec[] = [];
  for (let line of lines) {
    for (;;) {
      const value = TOKEN_OR_SLASH.exec(line)![0];
      if (value === '') break;
      line = skipSpace(line.slice(value.length));
      let q = 1;
      if (line.startsWith(';')) {
        line = skipSpace(line.slice(1));
        if (!line.startsWith('q=')) break;
        [q, line] = expectQuality(line.slice(2));
        if (q < 0) break;
      }
      specs.push({ value, q });
      line = skipSpace(line);
      if (!line.startsWith(',')) break;
      line = skipSpace(line.slice(1));
    }
  }
  return specs;
}

/**
 * client_golang 1.20.5's choice (gddo's NegotiateContentEncoding): the offer with the highest q
 * among the specs naming it or `*`, ties to the earlier offer; no header gives identity, and so
 * does a best q of 0 (promhttp falls back to identity when nothing is acceptable).
 */
export function negotiateEncoding(lines: readonly string[], offers: readonly ContentEncoding[] = OFFERED_ENCODINGS): ContentEncoding {
  const specs = parseAcceptEncoding(lines);
  let best: ContentEncoding = 'identity';
  let bestQ = -1;
  for (const offer of offers) {
    for (const spec of specs) {
      if (spec.q > bestQ && (spec.value === '*' || spec.value === offer)) {
        bestQ = spec.q;
        best = offer;
      }
    }
  }
  return bestQ === 0 ? 'identity' : best;
}
