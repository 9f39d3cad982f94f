import { describe, expect, it } from 'vitest';
import { cleanPath, parseRequestTarget } from './path.ts';

describe('cleanPath (Go ServeMux semantics)', () => {
  it.each([
    ['', '/'],
    ['/', '/'],
    ['/healthz', '/healthz'],
    ['//healthz', '/healthz'],
    ['/x/../version', '/version'],
    ['/./logspec', '/logspec'],
    ['/../../metrics', '/metrics'],
    ['/healthz/', '/healthz/'],
    ['/a//b/./c/..//', '/a/b/'],
    ['healthz', '/healthz'],
    ['/a/b/..', '/a'],
  ])('%j -> %j', (input, expected) => {
    expect(cleanPath(input)).toBe(expected);
  });
});

describe('parseRequestTarget', () => {
  it('splits path and query without normalising', () => {
    expect(parseRequestTarget('/x/../version?a=1')).toEqual({ path: '/x/../version', escapedPath: '/x/../version', query: 'a=1' });
  });
  it('decodes percent escapes like Go URL.Path', () => {
    expect(parseRequestTarget('/%68ealthz').path).toBe('/healthz');
  });
  it('keeps only the path of an absolute-form target', () => {
    expect(parseRequestTarget('http://example.com:9443/version?x').path).toBe('/version');
  });
  it('rejects a broken escape with a typed error', () => {
    expect(() => parseRequestTarget('/%zz')).toThrowError(expect.objectContaining({ code: 'BAD_REQUEST_TARGET' }));
  });
  it('ends the authority of an absolute-form target at a ? as Go does (empty path, query after it)', () => {
    expect(parseRequestTarget('http://h?/logspec')).toEqual({ path: '', escapedPath: '', query: '/logspec' });
    expect(parseRequestTarget('http://h')).toEqual({ path: '', escapedPath: '', query: '' });
    expect(parseRequestTarget('HTTP://h/x?/logspec')).toEqual({ path: '/x', escapedPath: '/x', query: '/logspec' });
  });
  it('keeps # in the path or query, as Go does for request targets', () => {
    expect(parseRequestTarget('/logspec#x')).toEqual({ path: '/logspec#x', escapedPath: '/logspec%23x', query: '' });
    expect(parseRequestTarget('/logspec?a#x')).toEqual({ path: '/logspec', escapedPath: '/logspec', query: 'a#x' });
  });
  it('rejects a relative target', () => {
    expect(() => parseRequestTarget('logspec')).toThrowError(expect.objectContaining({ code: 'BAD_REQUEST_TARGET' }));
  });
});
