import { describe, expect, it } from 'vitest';
import { domainToReverseLabels, ipNetString, ipString, looksLikeIP, parseMailbox, parseNetipAddr } from './names.ts';

describe('domain labels and mailboxes as Go reads them', () => {
  it.each([
    ['example.com', ['com', 'example']],
    ['', []],
    ['example.com.', undefined],
    ['a..b', undefined],
    // A leading dot is an empty first label.
    ['.a', undefined],
    ['.', undefined],
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
    expect(ipNetString({ ip: Uint8Array.from([10, 1, 2, 3]), mask: Uint8Array.from([255, 255, 0, 0]) })).toBe('10.1.2.3/16');
    expect(ipNetString({ ip: Uint8Array.from([10, 0, 0, 0]), mask: Uint8Array.from([255, 255, 0, 0]) })).toBe('10.0.0.0/16');
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

describe("netip.ParseAddr's verdicts, which since Go 1.22.11 decide whether a URI host is an IP", () => {
  it.each([
    ['10.0.0.1', 4],
    ['::1', 6],
    ['fe80::1%eth0', 6],
    ['fe80::1%', undefined],
    ['%eth0', undefined],
    ['010.0.0.1', undefined],
    ['example.com', undefined],
  ] as const)('%j', (text, family) => {
    expect(parseNetipAddr(text)).toBe(family);
  });
});
