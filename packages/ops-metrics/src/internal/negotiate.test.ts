import * as zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { contentTypeFor, negotiateEncoding, negotiateFormat, OFFERED_ENCODINGS, parseAccept, ZSTD_AVAILABLE, zstdInNode } from './negotiate.ts';

/**
 * [Accept, Accept-Encoding, format, escaping, encoding] as client_golang 1.20.5's promhttp (with
 * prometheus/common 0.62.0, Fabric v2.5.16 / v3.1.5's versions) answered each pair: a promhttp
 * handler built with those modules and Go 1.26.8 was asked every row (undefined: no header).
 * Go's protobuf `text` / `compact-text` debugging encodings are protobuf formats with their own
 * Content-Type (proto-text.test.ts checks their bodies).
 */
const PROMHTTP_1_20_5: [string | undefined, string | undefined, string, string, string][] = [
  [undefined, undefined, 'text', 'underscores', 'identity'],
  ['', '', 'text', 'underscores', 'identity'],
  ['*/*', '*', 'text', 'underscores', 'identity'],
  ['text/plain', 'gzip', 'text', 'underscores', 'gzip'],
  ['text/plain;version=0.0.4', 'zstd', 'text', 'underscores', 'zstd'],
  ['text/plain;version=1.0.0', 'gzip, zstd', 'text', 'underscores', 'gzip'],
  ['text/plain;version=1.0.0;escaping=allow-utf-8', 'zstd, gzip', 'text', 'allow-utf-8', 'gzip'],
  ['text/plain;escaping=allow-utf-8', 'gzip;q=0.5, zstd;q=0.9', 'text', 'allow-utf-8', 'zstd'],
  ['text/plain;escaping=dots', 'zstd;q=0.5, gzip', 'text', 'dots', 'gzip'],
  ['text/plain;escaping=values', 'gzip;q=0', 'text', 'values', 'identity'],
  ['text/plain;escaping=underscores', 'identity;q=0, gzip;q=0', 'text', 'underscores', 'identity'],
  ['text/plain;escaping=bogus', '*;q=0', 'text', 'underscores', 'identity'],
  ['text/plain;escaping=ALLOW-UTF-8', '*;q=0.5, gzip;q=0.4', 'text', 'underscores', 'identity'],
  ['text/plain; escaping = dots', 'GZIP', 'text', 'dots', 'identity'],
  ['Text/Plain;escaping=dots', 'x-gzip', 'text', 'dots', 'identity'],
  [
    'application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.5,application/openmetrics-text;version=0.0.1;q=0.4,text/plain;version=1.0.0;escaping=allow-utf-8;q=0.3,text/plain;version=0.0.4;q=0.2,*/*;q=0.1',
    'gzip',
    'text',
    'allow-utf-8',
    'gzip',
  ],
  [
    'application/openmetrics-text;version=1.0.0;escaping=underscores;q=0.5,application/openmetrics-text;version=0.0.1;q=0.4,text/plain;version=1.0.0;escaping=underscores;q=0.3,text/plain;version=0.0.4;q=0.2,*/*;q=0.1',
    'gzip',
    'text',
    'underscores',
    'gzip',
  ],
  ['application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1', 'gzip', 'text', 'underscores', 'gzip'],
  ['application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.7,text/plain;version=0.0.4;q=0.3', 'gzip', 'protobuf', 'underscores', 'gzip'],
  ['application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;escaping=allow-utf-8', 'zstd;q=1.0, gzip;q=1', 'protobuf', 'allow-utf-8', 'gzip'],
  ['application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0,text/plain', 'gzip;q=1.5, zstd', 'text', 'underscores', 'gzip'],
  ['text/plain;q=0.1,application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.2', 'gzip;level=1, zstd', 'protobuf', 'underscores', 'identity'],
  ['text/plain;escaping=dots;q=0.1,application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;escaping=values;q=0.2', 'zstd ,gzip', 'protobuf', 'values', 'gzip'],
  ['*/*;escaping=dots,text/plain;q=0.5', ' gzip ; q=0.5 , zstd;q=0.4', 'text', 'underscores', 'identity'],
  ['application/json;escaping=values,image/png;escaping=nonsense', 'zstd;q=0.001, gzip;q=0.0009', 'text', 'values', 'zstd'],
  ['text/plain;version=0.0.4;escaping=allow-utf-8,text/plain;escaping=dots', 'deflate, br', 'text', 'allow-utf-8', 'identity'],
  ['application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=text', 'br;q=1, zstd;q=0.5, *;q=0.2', 'protobuf', 'underscores', 'zstd'],
  ['application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=compact-text;escaping=dots', 'gzip, *;q=0', 'protobuf', 'dots', 'gzip'],
  ['application/vnd.google.protobuf;encoding=delimited', 'Q=1, gzip', 'text', 'underscores', 'identity'],
  ['*/*;q=0.5,text/*;escaping=dots,text/plain;q=0.2;escaping=values', 'zstd;q=0, *', 'text', 'values', 'identity'],
  ['text/plain;q=abc,application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.5', 'identity, gzip;q=0.9', 'protobuf', 'underscores', 'identity'],
  ['text/plain;q=1e40;escaping=dots,*/*', 'identity;q=0.5, gzip;q=0.5', 'text', 'dots', 'identity'],
  ['text/plain/extra;escaping=dots,text', 'gzip;q=0.,zstd;q=.5', 'text', 'underscores', 'identity'],
  ['*;escaping=values', '*, gzip', 'text', 'values', 'identity'],
  [',,text/plain;escaping=dots,', 'gzip,,zstd', 'text', 'dots', 'gzip'],
  ['text/plain ; escaping=dots', 'zstd;q=0.50;foo=bar, gzip;q=0.4', 'text', 'dots', 'zstd'],
  ['application/openmetrics-text;version=0.0.1;escaping=dots', 'gzip;q=0.9, zstd;q=0.9, identity;q=0.9', 'text', 'dots', 'identity'],
];

describe('negotiation as client_golang 1.20.5 does it', () => {
  it.each(PROMHTTP_1_20_5)('Accept %j, Accept-Encoding %j → %s, escaping=%s, %s', (accept, acceptEncoding, format, escaping, encoding) => {
    const negotiated = negotiateFormat(accept, false);
    expect(negotiated.format.kind).toBe(format);
    expect(negotiated.escaping).toBe(escaping);
    expect(negotiateEncoding(acceptEncoding === undefined ? [] : [acceptEncoding], ['identity', 'gzip', 'zstd'])).toBe(encoding);
  });

  it('echoes the escaping in the Content-Type of every format', () => {
    expect(contentTypeFor({ kind: 'text' })).toBe('text/plain; version=0.0.4; charset=utf-8; escaping=underscores');
    expect(contentTypeFor({ kind: 'text' }, 'allow-utf-8')).toBe('text/plain; version=0.0.4; charset=utf-8; escaping=allow-utf-8');
    expect(contentTypeFor({ kind: 'protobuf', encoding: 'delimited' }, 'dots')).toBe('application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited; escaping=dots');
    // expfmt's FmtProtoText and FmtProtoCompact, as promhttp sends them
    expect(contentTypeFor({ kind: 'protobuf', encoding: 'text' })).toBe('application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=text; escaping=underscores');
    expect(contentTypeFor({ kind: 'protobuf', encoding: 'compact-text' }, 'dots')).toBe(
      'application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=compact-text; escaping=dots',
    );
    expect(negotiateFormat('application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=compact-text;q=0.1, text/plain;q=0.05', false).format).toEqual({
      kind: 'protobuf',
      encoding: 'compact-text',
    });
    expect(contentTypeFor({ kind: 'openmetrics', version: '1.0.0' }, 'values')).toBe('application/openmetrics-text; version=1.0.0; charset=utf-8; escaping=values');
  });

  it('serves OpenMetrics only when enabled, as NegotiateIncludingOpenMetrics (no version means 0.0.1)', () => {
    const prometheus3 = 'application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.5,application/openmetrics-text;version=0.0.1;q=0.4,text/plain;version=0.0.4;q=0.2,*/*;q=0.1';
    expect(negotiateFormat(prometheus3, false)).toEqual({ format: { kind: 'text' }, escaping: 'allow-utf-8' });
    expect(negotiateFormat(prometheus3, true)).toEqual({ format: { kind: 'openmetrics', version: '1.0.0' }, escaping: 'allow-utf-8' });
    expect(negotiateFormat('application/openmetrics-text', true).format).toEqual({ kind: 'openmetrics', version: '0.0.1' });
    expect(negotiateFormat('application/openmetrics-text;version=2.0.0, text/plain;q=0.1', true).format).toEqual({ kind: 'text' });
  });

  it("orders clauses by goautoneg's comparison through Go's insertion sort (not a consistent order: q and wildcards disagree)", () => {
    const accept = '*/*;q=1, text/plain;q=0.2, text/*;q=0.9;escaping=values';
    expect(parseAccept(accept).map((c) => `${c.type}/${c.subType}`)).toEqual(['text/*', 'text/plain', '*/*']);
    // promhttp 1.20.5 answers this header with escaping=values: text/* is looked at before text/plain.
    expect(negotiateFormat(accept, false).escaping).toBe('values');
  });
});

describe('the encodings offered', () => {
  it('offers zstd exactly where node:zlib has it: Node 22, 24, 26, never Node 20', () => {
    const major = Number(process.versions.node.split('.')[0]);
    expect(ZSTD_AVAILABLE).toBe(major >= 22);
    // Read from the version (so node:zlib loads only on a compressed scrape): it agrees with node:zlib itself.
    expect(ZSTD_AVAILABLE).toBe(typeof (zlib as { zstdCompress?: unknown }).zstdCompress === 'function');
    expect(OFFERED_ENCODINGS).toEqual(major >= 22 ? ['identity', 'gzip', 'zstd'] : ['identity', 'gzip']);
  });

  it('knows which Node versions have zstd in node:zlib (22.15+, 23.8+)', () => {
    expect(['20.20.2', '22.14.0', '22.15.0', '23.7.0', '23.8.0', '24.0.0', '26.1.0'].map(zstdInNode)).toEqual([false, false, true, false, true, true, true]);
  });

  it('without zstd on offer, a client asking only for zstd gets identity, and one preferring it gets gzip', () => {
    expect(negotiateEncoding(['zstd'], ['identity', 'gzip'])).toBe('identity');
    expect(negotiateEncoding(['zstd, gzip;q=0.5'], ['identity', 'gzip'])).toBe('gzip');
  });

  it('reads every Accept-Encoding line, as Go keeps repeated lines', () => {
    expect(negotiateEncoding(['br', 'zstd;q=0.4, gzip;q=0.3'], ['identity', 'gzip', 'zstd'])).toBe('zstd');
  });
});
