import { describe, expect, it } from 'vitest';
import { ANY_EKU, CLIENT_AUTH_EKU, judgeClientCertificate } from './guard.ts';

const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';

describe('judgeClientCertificate', () => {
  it('accepts a connection without a certificate (secure routes answer 401 later)', () => {
    expect(judgeClientCertificate({ presented: false, authorized: false, authorizationError: 'UNABLE_TO_GET_ISSUER_CERT' })).toEqual({ accept: true });
  });

  it('refuses a presented certificate that failed verification, with the reason', () => {
    for (const error of ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID', 'INVALID_PURPOSE']) {
      expect(judgeClientCertificate({ presented: true, authorized: false, authorizationError: error })).toEqual({ accept: false, reason: error });
    }
    expect(judgeClientCertificate({ presented: true, authorized: false })).toEqual({ accept: false, reason: 'certificate verification failed' });
  });

  it('requires clientAuth (or anyExtendedKeyUsage) when the certificate lists usages', () => {
    expect(judgeClientCertificate({ presented: true, authorized: true, extendedKeyUsage: [SERVER_AUTH] }).accept).toBe(false);
    expect(judgeClientCertificate({ presented: true, authorized: true, extendedKeyUsage: [SERVER_AUTH, CLIENT_AUTH_EKU] }).accept).toBe(true);
    expect(judgeClientCertificate({ presented: true, authorized: true, extendedKeyUsage: [ANY_EKU] }).accept).toBe(true);
  });

  it('accepts a verified certificate without an EKU extension (unrestricted, RFC 5280)', () => {
    expect(judgeClientCertificate({ presented: true, authorized: true, extendedKeyUsage: undefined }).accept).toBe(true);
  });
});
