import { describe, expect, it } from 'vitest';
import { parseUrl, urlString } from './uri.ts';

describe("net/url.Parse's (Go 1.26) verdicts on URI SANs", () => {
  it.each([
    ['spiffe://example.org/ns/ops', { raw: 'spiffe://example.org/ns/ops', host: 'example.org' }],
    ['https://user:pw@svc.example.com:8443/p?q#f', { raw: 'https://user:pw@svc.example.com:8443/p?q#f', host: 'svc.example.com:8443' }],
    ['https://[::1]:443/', { raw: 'https://[::1]:443/', host: '[::1]:443' }],
    ['urn:uuid:1234', { raw: 'urn:uuid:1234', host: '' }],
    ['/just/a/path', { raw: '/just/a/path', host: '' }],
    ['*', { raw: '*', host: '' }],
    ['http://a b/', { error: 'parse "http://a b/": invalid character " " in host name' }],
    ['http://x/%zz', { error: 'parse "http://x/%zz": invalid URL escape "%zz"' }],
    ['http://x/%4', { error: 'parse "http://x/%4": invalid URL escape "%4"' }],
    ['http://x:port/', { error: 'parse "http://x:port/": invalid port ":port" after host' }],
    ['http://[::1/', { error: 'parse "http://[::1/": missing \']\' in host' }],
    ['://x', { error: 'parse "://x": missing protocol scheme' }],
    ['a:b/c', { raw: 'a:b/c', host: '' }],
    ['1a:b', { error: 'parse "1a:b": first path segment in URL cannot contain colon' }],
    ['http://x/\x01', { error: 'parse "http://x/\\x01": net/url: invalid control character in URL' }],
    ['http://us er@x/', { error: 'parse "http://us er@x/": net/url: invalid userinfo' }],
    ['http://x/#%zz', { error: 'parse "http://x/#%zz": invalid URL escape "%zz"' }],
    ['http://%41.example/', { error: 'parse "http://%41.example/": invalid URL escape "%41"' }],
    // Go 1.26: only an IPv6 address in brackets, a zone allowed; strict colons for http(s) only.
    ['https://[fe80::1%25eth0]:8443/', { raw: 'https://[fe80::1%25eth0]:8443/', host: '[fe80::1%eth0]:8443' }],
    ['https://[10.0.0.1]/', { error: 'parse "https://[10.0.0.1]/": invalid IP-literal' }],
    ['https://x[::1]/', { error: 'parse "https://x[::1]/": invalid IP-literal' }],
    ['mongodb://a:1,b:2/', { raw: 'mongodb://a:1,b:2/', host: 'a:1,b:2' }],
    ['https://a:1,b:2/', { error: 'parse "https://a:1,b:2/": invalid port ":1,b:2" after host' }],
    // A bracketed host is net/netip's to parse, and its error is Go's text.
    ['https://[1::2::3]/', { error: 'parse "https://[1::2::3]/": invalid host: ParseAddr("1::2::3"): multiple :: in address (at ":3")' }],
    ['https://[example]/', { error: 'parse "https://[example]/": invalid host: ParseAddr("example"): unable to parse IP' }],
    ['https://[fe80::1%25]/', { error: 'parse "https://[fe80::1%25]/": invalid host: ParseAddr("fe80::1%"): zone must be a non-empty string' }],
  ] as const)('%j', (input, expected) => {
    const parsed = parseUrl(input);
    expect('error' in parsed ? parsed : { raw: parsed.raw, host: parsed.host }).toEqual(expected);
  });
});

describe("url.URL.String() (Go 1.26), which Go's name-constraint errors print", () => {
  // Each pair confirmed with Go 1.26.8: fmt.Println(url.Parse(input)).
  it.each([
    ['spiffe://example.org/ns/ops', 'spiffe://example.org/ns/ops'],
    ['HTTPS://Svc.Example.com:8443/p', 'https://Svc.Example.com:8443/p'],
    ['https://user:p!w@svc.example.com/', 'https://user:p%21w@svc.example.com/'],
    ['https://us%41er@x/', 'https://usAer@x/'],
    ['https://x/a%41b', 'https://x/a%41b'],
    ['https://x/a%2fb', 'https://x/a%2fb'],
    ['https://x/a b', 'https://x/a%20b'],
    ['https://x/p?', 'https://x/p?'],
    ['https://x/p?q=1#F%41g', 'https://x/p?q=1#F%41g'],
    ['https://x/#a b', 'https://x/#a%20b'],
    ['urn:uuid:1234', 'urn:uuid:1234'],
    ['URN:x?y', 'urn:x?y'],
    ['https:///p', 'https:///p'],
    ['//host/p', '//host/p'],
    ['*', '*'],
    ['https://[fe80::1%25eth0]:8443/', 'https://[fe80::1%25eth0]:8443/'],
    ['https://x', 'https://x'],
    ['a/b:c', 'a/b:c'],
  ] as const)('%j', (input, text) => {
    const parsed = parseUrl(input);
    if ('error' in parsed) throw new Error(parsed.error);
    expect(urlString(parsed)).toBe(text);
  });
});
