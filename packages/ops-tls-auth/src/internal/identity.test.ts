import { X509Certificate } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { createTestPki, type TestPki } from '@fabric-ops/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientIdentityOf, clientSubjectOf, formatSubject, identityOfCertificate, markVerifiedClient, parseSubjectAltNames, remoteAddressOf } from './identity.ts';

let pki: TestPki;
beforeAll(async () => {
  pki = await createTestPki();
});
afterAll(() => pki.cleanup());

function fakeRequest(socket: object): IncomingMessage {
  return { socket } as unknown as IncomingMessage;
}

describe('formatSubject', () => {
  it('prints most specific first, comma-separated, like Go', () => {
    expect(formatSubject('O=Org1\nCN=operator')).toBe('CN=operator,O=Org1');
    expect(formatSubject('C=US\nO=Org1\nOU=ops\nCN=a\\,b')).toBe('CN=a\\,b,OU=ops,O=Org1,C=US');
    expect(formatSubject('')).toBe('');
  });
});

describe('parseSubjectAltNames', () => {
  it("reads Node's text into typed entries", () => {
    expect(parseSubjectAltNames('DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, email:ops@example.com, URI:spiffe://org1/ops')).toEqual([
      'DNS:localhost',
      'IP:127.0.0.1',
      'IP:0:0:0:0:0:0:0:1',
      'email:ops@example.com',
      'URI:spiffe://org1/ops',
    ]);
  });
  it('unquotes values that contain separators', () => {
    expect(parseSubjectAltNames('DNS:a, URI:"http://x/a, b", DNS:b')).toEqual(['DNS:a', 'URI:http://x/a, b', 'DNS:b']);
  });
  it('is empty without SANs', () => {
    expect(parseSubjectAltNames(undefined)).toEqual([]);
    expect(parseSubjectAltNames('')).toEqual([]);
  });
});

describe('identityOfCertificate', () => {
  it('reads the good client certificate', () => {
    expect(identityOfCertificate(new X509Certificate(pki.clients.good.cert))).toEqual({
      subject: 'CN=operator,O=Org1',
      commonName: 'operator',
      organizations: ['Org1'],
      subjectAltNames: [],
    });
  });
  it("reads the server certificate's SANs", () => {
    expect(identityOfCertificate(new X509Certificate(pki.server.cert)).subjectAltNames).toEqual(['DNS:localhost', 'IP:127.0.0.1', 'IP:0:0:0:0:0:0:0:1']);
  });
});

describe('clientIdentityOf / clientSubjectOf', () => {
  it('is undefined on plain sockets and on TLS sockets without a verified certificate', () => {
    expect(clientSubjectOf(fakeRequest({ remoteAddress: '127.0.0.1' }))).toBeUndefined();
    expect(clientSubjectOf(fakeRequest({ encrypted: true, authorized: false, getPeerX509Certificate: () => new X509Certificate(pki.clients.good.cert) }))).toBeUndefined();
  });

  it("ignores OpenSSL's verdict: only createTlsServer's mark makes a certificate verified", () => {
    expect(clientSubjectOf(fakeRequest({ encrypted: true, authorized: true, getPeerX509Certificate: () => new X509Certificate(pki.clients.good.cert) }))).toBeUndefined();
  });

  it('reads a verified certificate once per connection', () => {
    let reads = 0;
    const socket = {
      encrypted: true,
      getPeerX509Certificate: () => {
        reads += 1;
        return new X509Certificate(pki.clients.good.cert);
      },
    };
    markVerifiedClient(socket as never);
    expect(clientSubjectOf(fakeRequest(socket))).toBe('CN=operator,O=Org1');
    expect(clientIdentityOf(fakeRequest(socket))?.organizations).toEqual(['Org1']);
    expect(reads).toBe(1);
  });
});

describe('remoteAddressOf', () => {
  it('prints ip:port, bracketing IPv6', () => {
    expect(remoteAddressOf(fakeRequest({ remoteAddress: '127.0.0.1', remotePort: 5000 }))).toBe('127.0.0.1:5000');
    expect(remoteAddressOf(fakeRequest({ remoteAddress: '::1', remotePort: 5000 }))).toBe('[::1]:5000');
  });
});
