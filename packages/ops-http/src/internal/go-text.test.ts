import { createServer, request, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { formatGoDuration, formatHostPort, formatRemoteAddress, goErrnoText, splitHostPort } from './go-text.ts';
import { writeNotFound } from './not-found.ts';

describe('formatGoDuration (time.Duration.String)', () => {
  it.each([
    [0, '0s'],
    [7, '7ns'],
    [500, '500ns'],
    [1500, '1.5µs'],
    [500_000, '500µs'],
    [1_250_000, '1.25ms'],
    [250e6, '250ms'],
    [10e9, '10s'],
    [1.5e9, '1.5s'],
    [90e9, '1m30s'],
    [3600e9, '1h0m0s'],
    [3661e9, '1h1m1s'],
    [3_723_004e6, '1h2m3.004s'],
    [-60e9, '-1m0s'],
    [-2e9, '-2s'],
  ])('%d ns prints as %s', (nanos, text) => expect(formatGoDuration(nanos)).toBe(text));

  it('uses the micro sign Go prints (U+00B5)', () => {
    expect(formatGoDuration(1000).codePointAt(1)).toBe(0xb5);
  });

  it('prints the largest Go duration as Go does', () => {
    expect(formatGoDuration(9_223_372_036_854_774_784)).toBe('2562047h47m16.854774784s');
  });

  it('prints a non-finite value as text instead of throwing', () => {
    expect(formatGoDuration(Number.POSITIVE_INFINITY)).toBe('Infinity');
  });
});

describe('formatHostPort (net.JoinHostPort)', () => {
  it('brackets IPv6 hosts only', () => {
    expect(formatHostPort('::', 9443)).toBe('[::]:9443');
    expect(formatHostPort('fe80::1%eth0', 80)).toBe('[fe80::1%eth0]:80');
    expect(formatHostPort('127.0.0.1', 1)).toBe('127.0.0.1:1');
    expect(formatHostPort('', 0)).toBe(':0');
  });
});

describe('splitHostPort (net.SplitHostPort)', () => {
  it.each([
    ['127.0.0.1:9443', { host: '127.0.0.1', port: 9443 }],
    [':9443', { host: '', port: 9443 }],
    ['[::1]:0', { host: '::1', port: 0 }],
    ['[fe80::1%eth0]:80', { host: 'fe80::1%eth0', port: 80 }],
    ['localhost:', { host: 'localhost', port: 0 }],
  ])('%s', (text, expected) => {
    expect(splitHostPort(text)).toEqual(expected);
  });

  it.each([
    ['127.0.0.1', 'address 127.0.0.1: missing port in address'],
    ['::1:80', 'address ::1:80: too many colons in address'],
    ['[::1]', 'address [::1]: missing port in address'],
    ['[::1', "address [::1: missing ']' in address"],
    ['[::1]x80', "address [::1]x80: unexpected 'x' after address"],
    ['[::1]:80:1', 'address [::1]:80:1: too many colons in address'],
    ['a[b]:1', "address a[b]:1: unexpected '[' in address"],
    ['host:http', 'address tcp/http: unknown port'],
    ['host:65536', 'address 65536: invalid port'],
  ])("%s fails with Go's text", (text, problem) => {
    expect(splitHostPort(text)).toEqual({ problem });
  });

  it('reads back what formatHostPort writes', () => {
    for (const [host, port] of [
      ['::1', 80],
      ['', 0],
      ['example.com', 65_535],
    ] as const)
      expect(splitHostPort(formatHostPort(host, port))).toEqual({ host, port });
  });
});

describe('formatRemoteAddress (RemoteAddr)', () => {
  it('brackets IPv6 and unmaps IPv4-mapped addresses', () => {
    expect(formatRemoteAddress('::1', 5000)).toBe('[::1]:5000');
    expect(formatRemoteAddress('::ffff:10.0.0.7', 5000)).toBe('10.0.0.7:5000');
    expect(formatRemoteAddress('127.0.0.1', 5000)).toBe('127.0.0.1:5000');
    expect(formatRemoteAddress(undefined, undefined)).toBe(':0');
  });
});

describe('goErrnoText (syscall.Errno)', () => {
  const errno = (code: string, errno?: number): NodeJS.ErrnoException => Object.assign(new Error(`${code} something`), { code, errno });

  it.each([
    ['ENOENT', 'no such file or directory'],
    ['EACCES', 'permission denied'],
    ['EADDRINUSE', 'address already in use'],
    ['EADDRNOTAVAIL', 'cannot assign requested address'],
    ['ECONNREFUSED', 'connection refused'],
    ['EHOSTUNREACH', 'no route to host'],
    ['EISDIR', 'is a directory'],
    ['ELOOP', 'too many levels of symbolic links'],
  ])('%s reads %s', (code, text) => expect(goErrnoText(errno(code))).toBe(text));

  it('gives an error without a system code its own first line', () => {
    expect(goErrnoText(new Error('boom\nstack'))).toBe('boom');
    expect(goErrnoText('plain')).toBe('plain');
  });
});

describe('writeNotFound', () => {
  let server: Server | undefined;
  afterEach(() => server?.close());

  it("answers as Go's ServeMux does", async () => {
    server = createServer((_req, res) => {
      res.setHeader('X-Request-Id', 'set-by-a-router');
      writeNotFound(res);
    }).listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const req = request({ host: '127.0.0.1', port, path: '/nope' });
    req.end();
    const [res] = (await once(req, 'response')) as [import('node:http').IncomingMessage];
    let body = '';
    for await (const chunk of res) body += String(chunk);
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-request-id']).toBeUndefined();
    expect(body).toBe('404 page not found\n');
  });
});
