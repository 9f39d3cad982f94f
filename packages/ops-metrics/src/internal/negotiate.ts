/** Which exposition format a scrape gets. */
export type ExpositionFormat = { readonly kind: 'text' } | { readonly kind: 'openmetrics'; readonly version: '1.0.0' | '0.0.1' };

export const TEXT_FORMAT: ExpositionFormat = { kind: 'text' };

/** Fabric HEAD's Content-Type for the text format (client_golang 1.20 adds the escaping term). */
export const TEXT_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8; escaping=underscores';

export function contentTypeFor(format: ExpositionFormat): string {
  return format.kind === 'text'
    ? TEXT_CONTENT_TYPE
    : `application/openmetrics-text; version=${format.version}; charset=utf-8; escaping=underscores`;
}

interface MediaRange {
  readonly type: string;
  readonly params: ReadonlyMap<string, string>;
  readonly q: number;
  readonly order: number;
}

function parseQ(text: string | undefined): number {
  if (text === undefined) return 1;
  const q = Number(text);
  return Number.isFinite(q) && q >= 0 && q <= 1 ? q : 0;
}

function parseList(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  header.split(',').forEach((part, order) => {
    const [rawType, ...rawParams] = part.split(';');
    const type = (rawType ?? '').trim().toLowerCase();
    if (type === '') return;
    const params = new Map<string, string>();
    for (const raw of rawParams) {
      const eq = raw.indexOf('=');
      if (eq < 0) continue;
      params.set(raw.slice(0, eq).trim().toLowerCase(), raw.slice(eq + 1).trim().replace(/^"|"$/g, ''));
    }
    ranges.push({ type, params, q: parseQ(params.get('q')), order });
  });
  // Highest q first; for equal q, the header's own order (stable sort).
  return ranges.sort((a, b) => b.q - a.q || a.order - b.order);
}

/**
 * Picks the format from an Accept header: OpenMetrics only when a range naming it
 * outranks text; wildcards, protobuf and anything unknown fall back to text 0.0.4
 * (what a Prometheus server always understands).
 */
export function negotiateFormat(accept: string | undefined, allowOpenMetrics: boolean): ExpositionFormat {
  if (accept === undefined || accept === '') return TEXT_FORMAT;
  for (const range of parseList(accept)) {
    if (range.q <= 0) continue;
    if (range.type === 'application/openmetrics-text') {
      if (!allowOpenMetrics) continue;
      const version = range.params.get('version');
      if (version === undefined || version === '1.0.0') return { kind: 'openmetrics', version: '1.0.0' };
      if (version === '0.0.1') return { kind: 'openmetrics', version: '0.0.1' };
      continue;
    }
    if (range.type === 'text/plain' || range.type === 'text/*' || range.type === '*/*') return TEXT_FORMAT;
  }
  return TEXT_FORMAT;
}

/** True when Accept-Encoding allows gzip (explicitly, or through `*`, with q > 0). */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  if (acceptEncoding === undefined || acceptEncoding === '') return false;
  let gzip: number | undefined;
  let star: number | undefined;
  for (const range of parseList(acceptEncoding)) {
    if (range.type === 'gzip' || range.type === 'x-gzip') gzip = Math.max(gzip ?? 0, range.q);
    else if (range.type === '*') star = range.q;
  }
  if (gzip !== undefined) return gzip > 0;
  return star !== undefined && star > 0;
}
