import type { HostPort } from '@fabric-ops/ops-http/go';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { parseDialAddress } from './address.ts';

describe('parseDialAddress', () => {
  it('reads names, IPv4, bracketed IPv6 and an empty host', () => {
    expect(parseDialAddress('peer0.org1.example.com:9443')).toEqual({ host: 'peer0.org1.example.com', port: 9443 });
    expect(parseDialAddress('10.1.2.3:1')).toEqual({ host: '10.1.2.3', port: 1 });
    expect(parseDialAddress('[::1]:65535')).toEqual({ host: '::1', port: 65535 });
    expect(parseDialAddress(':9443')).toEqual({ host: '', port: 9443 });
  });

  it("gives ops-http's HostPort, the one shape of a host and port", () => {
    expectTypeOf(parseDialAddress).returns.toEqualTypeOf<HostPort>();
  });

  it('refuses anything else with one line naming the option', () => {
    const bad = ['peer0', '::1:9443', '[::1]', '[nothex]:1', 'host:0', 'host:65536', 'host:x', 'ho st:1', 'http://host:1', 'a/b:1', '[::1:1'];
    for (const text of bad) expect(() => parseDialAddress(text, '--address')).toThrow(/^--address: expected host:port/);
    expect(() => parseDialAddress('fe80::1:9443')).toThrow('an IPv6 address goes in brackets: [::1]:9443');
  });
});
