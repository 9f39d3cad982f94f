import { describe, expect, it } from 'vitest';
import { parseHostPort } from './address.ts';

describe('parseHostPort', () => {
  it('reads names, IPv4, bracketed IPv6 and an empty host', () => {
    expect(parseHostPort('peer0.org1.example.com:9443')).toEqual({ host: 'peer0.org1.example.com', port: 9443, address: 'peer0.org1.example.com:9443' });
    expect(parseHostPort('10.1.2.3:1')).toEqual({ host: '10.1.2.3', port: 1, address: '10.1.2.3:1' });
    expect(parseHostPort('[::1]:65535')).toEqual({ host: '::1', port: 65535, address: '[::1]:65535' });
    expect(parseHostPort(':9443')).toEqual({ host: '', port: 9443, address: ':9443' });
  });

  it('refuses anything else with one line naming the option', () => {
    const bad = ['peer0', '::1:9443', '[::1]', '[nothex]:1', 'host:0', 'host:65536', 'host:x', 'ho st:1', 'http://host:1', 'a/b:1', '[::1:1'];
    for (const text of bad) expect(() => parseHostPort(text, '--address')).toThrow(/^--address: expected host:port/);
    expect(() => parseHostPort('fe80::1:9443')).toThrow('an IPv6 address goes in brackets: [::1]:9443');
  });
});
