import { describe, expect, it } from 'vitest';
import { checkConstraint, domainToReverseLabels, ipNetString, ipString, looksLikeIP, matchers, MAX_CONSTRAINT_COMPARISONS, parseMailbox } from './names.ts';

describe('domain labels and mailboxes as Go reads them', () => {
  it.each([
    ['example.com', ['com', 'example']],
    ['', []],
    ['example.com.', undefined],
    ['a..b', undefined],
    // The empty label before a leading dot is never looked at.
    ['.a', ['a']],
    ['a b', undefined],
    ['a\x80', undefined],
    ['*.x', ['x', '*']],
  ] as const)('%j', (domain, labels) => {
    expect(domainToReverseLabels(domain)).toEqual(labels);
  });

  it.each([
    ['ops@example.com', { local: 'ops', domain: 'example.com' }],
    ['"a b"@example.com', { local: 'a b', domain: 'example.com' }],
    ['a\\@b@example.com', { local: 'a@b', domain: 'example.com' }],
    ['.a@example.com', undefined],
    ['a..b@example.com', undefined],
    ['a@', { local: 'a', domain: '' }],
    ['a@exa mple', undefined],
    ['@example.com', undefined],
    ['"unterminated@example.com', undefined],
  ] as const)('%j', (input, mailbox) => {
    expect(parseMailbox(input)).toEqual(mailbox);
  });
});

describe('constraint matching', () => {
  it.each([
    ['a.example.com', 'example.com', true],
    ['example.com', 'example.com', true],
    ['example.com', '.example.com', false],
    ['a.example.com', '.example.com', true],
    ['A.EXAMPLE.com', 'example.COM', true],
    ['badexample.com', 'example.com', false],
    ['anything', '', true],
  ] as const)('DNS %s under %s', (name, constraint, ok) => {
    expect(matchers.dns(name, constraint)).toBe(ok);
  });

  it('matches IPs by family and mask', () => {
    const net = { ip: Uint8Array.from([10, 0, 0, 0]), mask: Uint8Array.from([255, 0, 0, 0]) };
    expect(matchers.ip(Uint8Array.from([10, 9, 9, 9]), net)).toBe(true);
    expect(matchers.ip(Uint8Array.from([11, 0, 0, 0]), net)).toBe(false);
    expect(matchers.ip(new Uint8Array(16), net)).toBe(false);
  });

  it('refuses URIs without a host or with an IP host, and strips ports', () => {
    expect(() => matchers.uri({ raw: 'urn:x', host: '' }, 'example.com')).toThrow('URI with empty host ("urn:x") cannot be matched against constraints');
    expect(() => matchers.uri({ raw: 'https://[::1]/', host: '[::1]' }, 'example.com')).toThrow('URI with IP');
    expect(() => matchers.uri({ raw: 'https://10.0.0.1:80/', host: '10.0.0.1:80' }, 'example.com')).toThrow('URI with IP');
    expect(matchers.uri({ raw: 'https://a.example.com:8443/', host: 'a.example.com:8443' }, '.example.com')).toBe(true);
  });

  it('checks the excluded list first and an empty permitted list permits all', () => {
    const count = { n: 0 };
    const show = (c: string): string => JSON.stringify(c);
    expect(checkConstraint(count, 'DNS name', 'a.b', 'a.b', matchers.dns, [], ['b'], show)).toEqual({
      ok: false,
      detail: 'DNS name "a.b" is excluded by constraint "b"',
      tooMany: false,
    });
    expect(checkConstraint(count, 'DNS name', 'a.c', 'a.c', matchers.dns, [], ['b'], show)).toEqual({ ok: true });
    expect(count.n).toBe(2);
  });

  it("stops at Go's 250,000 comparisons", () => {
    const count = { n: MAX_CONSTRAINT_COMPARISONS };
    expect(checkConstraint(count, 'DNS name', 'a', 'a', matchers.dns, ['a'], [], String)).toEqual({ ok: false, detail: '', tooMany: true });
  });
});

describe('net.IP and net.IPNet strings', () => {
  it.each([
    [[10, 0, 0, 1], '10.0.0.1'],
    [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], '::1'],
    [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 1, 2, 3, 4], '1.2.3.4'],
    [[0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1], '2001:db8::1:0:0:1'],
    [[0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 0, 0, 1, 0, 1, 0, 1, 0, 1], '2001:db8:1:0:1:1:1:1'],
  ] as const)('%j', (ip, text) => {
    expect(ipString(Uint8Array.from(ip))).toBe(text);
  });

  it('prints a range with its prefix length', () => {
    expect(ipNetString({ ip: Uint8Array.from([10, 1, 2, 3]), mask: Uint8Array.from([255, 255, 0, 0]) })).toBe('"10.1.0.0/16"');
  });
});

describe("net.ParseIP's verdicts (Go 1.19), which decide whether a URI host or constraint is an IP", () => {
  it.each([
    ['10.0.0.1', true],
    ['010.0.0.1', false],
    ['1.2.3', false],
    ['256.1.1.1', false],
    ['::1', true],
    ['::', true],
    ['1::', true],
    ['::ffff:1.2.3.4', true],
    ['1:2:3:4:5:6:7:8', true],
    ['1:2:3:4:5:6:7:8:9', false],
    ['1::2::3', false],
    ['fe80::1%eth0', false],
    ['1:2:3:4:5:6:1.2.3.4', true],
    ['1:2:3:4:5:6:7:1.2.3.4', false],
    [':1', false],
    ['1:', false],
    ['[::1]', false],
    ['12345::', false],
    ['', false],
    ['::1.2.3.4', true],
  ] as const)('%j', (text, ip) => {
    expect(looksLikeIP(text)).toBe(ip);
  });
});
