import { describe, expect, it } from 'vitest';
import { isConfigError } from './errors.ts';
import { formatHostPort } from '@fabric-ops/ops-http';
import { parseHostPort } from './host-port.ts';

describe('parseHostPort', () => {
  it.each([
    ['127.0.0.1:9443', { host: '127.0.0.1', port: 9443 }],
    [':9443', { host: '', port: 9443 }],
    ['[::1]:0', { host: '::1', port: 0 }],
    ['[fe80::1%eth0]:80', { host: 'fe80::1%eth0', port: 80 }],
    ['localhost:', { host: 'localhost', port: 0 }],
  ])('%s', (text, expected) => {
    expect(parseHostPort(text)).toEqual(expected);
  });

  it.each([
    ['127.0.0.1', 'address 127.0.0.1: missing port in address'],
    ['::1:80', 'address ::1:80: too many colons in address'],
    ['[::1]', 'address [::1]: missing port in address'],
    ['[::1', "address [::1: missing ']' in address"],
    ['[::1]x80', "address [::1]x80: unexpected 'x' after address"],
    ['a[b]:1', "address a[b]:1: unexpected '[' in address"],
    ['host:http', 'address tcp/http: unknown port'],
    ['host:65536', 'address 65536: invalid port'],
  ])('%s fails with Go\'s text', (text, message) => {
    let caught: unknown;
    try {
      parseHostPort(text);
    } catch (error) {
      caught = error;
    }
    expect(isConfigError(caught) && caught.problems).toEqual([message]);
  });

  it("reads back what ops-http's formatHostPort writes", () => {
    for (const [host, port] of [['::1', 80], ['', 0], ['example.com', 65_535]] as const) expect(parseHostPort(formatHostPort(host, port))).toEqual({ host, port });
  });
});
