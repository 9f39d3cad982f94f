import { describe, expect, it } from 'vitest';
import { acceptsGzip, contentTypeFor, negotiateFormat } from './negotiate.ts';

describe('negotiateFormat', () => {
  const PROMETHEUS_2 =
    'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1';
  it.each([
    [undefined, 'text'],
    ['', 'text'],
    ['*/*', 'text'],
    ['text/plain', 'text'],
    ['text/plain;version=0.0.4', 'text'],
    ['application/json', 'text'],
    ['application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited', 'text'],
    [PROMETHEUS_2, 'openmetrics 1.0.0'],
    ['application/openmetrics-text', 'openmetrics 1.0.0'],
    ['application/openmetrics-text; version=0.0.1', 'openmetrics 0.0.1'],
    ['application/openmetrics-text;version=9.9.9, text/plain', 'text'],
    ['text/plain;q=0.9, application/openmetrics-text;q=0.8', 'text'],
    ['text/plain;q=0.5, application/openmetrics-text', 'openmetrics 1.0.0'],
    ['application/openmetrics-text;q=0', 'text'],
    ['*/*, application/openmetrics-text', 'text'],
  ])('Accept %j → %s', (accept, expected) => {
    const format = negotiateFormat(accept, true);
    expect(format.kind === 'text' ? 'text' : `openmetrics ${format.version}`).toBe(expected);
  });

  it('never picks OpenMetrics when it is switched off', () => {
    expect(negotiateFormat(PROMETHEUS_2, false).kind).toBe('text');
  });

  it('names Fabric HEAD\'s content types', () => {
    expect(contentTypeFor({ kind: 'text' })).toBe('text/plain; version=0.0.4; charset=utf-8; escaping=underscores');
    expect(contentTypeFor({ kind: 'openmetrics', version: '1.0.0' })).toBe(
      'application/openmetrics-text; version=1.0.0; charset=utf-8; escaping=underscores',
    );
  });
});

describe('acceptsGzip', () => {
  it.each([
    [undefined, false],
    ['', false],
    ['gzip', true],
    ['GZIP', true],
    ['deflate, gzip;q=0.5', true],
    ['gzip;q=0', false],
    ['identity', false],
    ['*', true],
    ['*;q=0', false],
    ['*, gzip;q=0', false],
    ['br, zstd', false],
    ['x-gzip', true],
  ])('Accept-Encoding %j → %s', (header, expected) => {
    expect(acceptsGzip(header)).toBe(expected);
  });
});
