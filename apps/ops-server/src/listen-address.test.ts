import { describe, expect, it } from 'vitest';
import { listenError, parseListenAddress } from './listen-address.ts';

describe('parseListenAddress', () => {
  it.each([
    ['127.0.0.1:9443', { host: '127.0.0.1', port: 9443 }],
    [':9443', { host: '', port: 9443 }],
    ['', { host: '', port: 0 }],
    ['localhost:0', { host: '127.0.0.1', port: 0 }],
    ['[::1]:8443', { host: '::1', port: 8443 }],
    ['0.0.0.0:', { host: '0.0.0.0', port: 0 }],
  ])('%j', (input, expected) => {
    expect(parseListenAddress(input)).toEqual(expected);
  });

  it.each([
    ['127.0.0.1', 'listen tcp: address 127.0.0.1: missing port in address'],
    ['127.0.0.1:99999', 'listen tcp: address 99999: invalid port'],
    ['127.0.0.1:abc', 'listen tcp: address tcp/abc: unknown port'],
    ['::1:80', 'listen tcp: address ::1:80: too many colons in address'],
    ['[::1', "listen tcp: address [::1: missing ']' in address"],
  ])('rejects %j with Go wording', (input, message) => {
    expect(() => parseListenAddress(input)).toThrowError(message);
  });
});

describe('parseListenAddress with a parsed target (ops-config gives one)', () => {
  it('takes it as it is, listening on 127.0.0.1 for localhost', () => {
    expect(parseListenAddress({ host: '::', port: 9443 })).toEqual({ host: '::', port: 9443 });
    expect(parseListenAddress({ host: 'localhost', port: 1 })).toEqual({ host: '127.0.0.1', port: 1 });
  });
  it('refuses a port no socket can have', () => {
    expect(() => parseListenAddress({ host: '', port: 70_000 })).toThrowError('listen tcp: address 70000: invalid port');
    expect(() => parseListenAddress({ host: '', port: 1.5 })).toThrowError('listen tcp: address 1.5: invalid port');
  });
  it('names the target in a bind error as Go writes it', () => {
    const error = Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' });
    expect(listenError({ host: '::1', port: 9443 }, error).message).toBe('listen tcp [::1]:9443: bind: address already in use');
  });
});

describe('listenError', () => {
  it('words EADDRINUSE as Go does', () => {
    const error = Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' });
    expect(listenError('127.0.0.1:9443', error).message).toBe('listen tcp 127.0.0.1:9443: bind: address already in use');
  });
  it('words an unknown host as a failed lookup', () => {
    const error = Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.invalid'), { code: 'ENOTFOUND' });
    expect(listenError('nowhere.invalid:1', error).message).toBe('listen tcp: lookup nowhere.invalid: no such host');
  });
});
