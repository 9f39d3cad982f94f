import { describe, expect, it } from 'vitest';
import { parseUrl } from './uri.ts';

describe("net/url.Parse's verdicts on URI SANs", () => {
  it.each([
    ['spiffe://example.org/ns/ops', { host: 'example.org' }],
    ['https://user:pw@svc.example.com:8443/p?q#f', { host: 'svc.example.com:8443' }],
    ['https://[::1]:443/', { host: '[::1]:443' }],
    ['urn:uuid:1234', { host: '' }],
    ['/just/a/path', { host: '' }],
    ['*', { host: '' }],
    ['http://a b/', { error: 'parse "http://a b/": invalid character " " in host name' }],
    ['http://x/%zz', { error: 'parse "http://x/%zz": invalid URL escape "%zz"' }],
    ['http://x/%4', { error: 'parse "http://x/%4": invalid URL escape "%4"' }],
    ['http://x:port/', { error: 'parse "http://x:port/": invalid port ":port" after host' }],
    ['http://[::1/', { error: 'parse "http://[::1/": missing \']\' in host' }],
    ['://x', { error: 'parse "://x": missing protocol scheme' }],
    ['a:b/c', { host: '' }],
    ['1a:b', { error: 'parse "1a:b": first path segment in URL cannot contain colon' }],
    ['http://x/\x01', { error: 'parse "http://x/\\x01": net/url: invalid control character in URL' }],
    ['http://us er@x/', { error: 'parse "http://us er@x/": net/url: invalid userinfo' }],
    ['http://x/#%zz', { error: 'parse "http://x/#%zz": invalid URL escape "%zz"' }],
    ['http://%41.example/', { error: 'parse "http://%41.example/": invalid URL escape "%41"' }],
  ] as const)('%j', (input, expected) => {
    expect(parseUrl(input)).toEqual(expected);
  });
});
