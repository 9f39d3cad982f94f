import fc from 'fast-check';
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { identityMatches, validateAllowList } from './allow-list.ts';
import { createAuthorizer, NOT_ALLOWED_MESSAGE, UNAUTHORIZED_MESSAGE } from './authorize.ts';
import { isTlsAuthError } from './errors.ts';
import { markVerifiedClient, type ClientIdentity } from './identity.ts';

const operator: ClientIdentity = { subject: 'CN=operator,O=Org1', commonName: 'operator', organizations: ['Org1'], subjectAltNames: ['DNS:ops.org1.example', 'email:ops@org1.example'] };

describe('identityMatches', () => {
  it('ANDs the fields of one rule and ORs the rules', () => {
    expect(identityMatches(operator, [{ commonName: 'operator' }])).toBe(true);
    expect(identityMatches(operator, [{ commonName: 'operator', organization: 'Org2' }])).toBe(false);
    expect(identityMatches(operator, [{ organization: 'Org2' }, { organization: 'Org1' }])).toBe(true);
    expect(identityMatches(operator, [])).toBe(false);
  });

  it('matches SANs typed or bare, exactly', () => {
    expect(identityMatches(operator, [{ san: 'DNS:ops.org1.example' }])).toBe(true);
    expect(identityMatches(operator, [{ san: 'ops@org1.example' }])).toBe(true);
    expect(identityMatches(operator, [{ san: 'IP:ops.org1.example' }])).toBe(false);
    expect(identityMatches(operator, [{ san: 'org1.example' }])).toBe(false);
  });

  it('never matches a common name that differs (property)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), (cn) => {
        fc.pre(cn !== 'operator');
        return !identityMatches(operator, [{ commonName: cn }]);
      }),
    );
  });
});

describe('validateAllowList', () => {
  const problem = (value: unknown): string => {
    try {
      validateAllowList(value, 'tls.allowList');
    } catch (error) {
      if (isTlsAuthError(error) && error.code === 'INVALID_ALLOW_LIST') return error.message;
      throw error;
    }
    return 'valid';
  };

  it('accepts route paths with non-empty rule lists', () => {
    expect(problem({ '/logspec': [{ commonName: 'admin' }], '/metrics': [{ organization: 'Org1', san: 'DNS:x' }] })).toBe('valid');
  });

  it('names the bad entry in one line', () => {
    expect(problem([])).toBe('tls.allowList: expected an object mapping route paths to rule lists');
    expect(problem({ logspec: [{ commonName: 'a' }] })).toBe('tls.allowList: route "logspec" must start with "/"');
    expect(problem({ '/logspec': [] })).toBe('tls.allowList./logspec: expected a non-empty list of rules');
    expect(problem({ '/logspec': [{}] })).toBe('tls.allowList./logspec[0]: give at least one of commonName, organization, san');
    expect(problem({ '/logspec': [{ cn: 'a' }] })).toBe('tls.allowList./logspec[0]: unknown field "cn" (expected commonName, organization or san)');
    expect(problem({ '/logspec': [{ commonName: '' }] })).toBe('tls.allowList./logspec[0].commonName: expected a non-empty string');
  });
});

describe('createAuthorizer', () => {
  const warnings: { obj: Record<string, unknown>; msg: string | undefined }[] = [];
  const logger = { warn: (obj: object, msg?: string) => warnings.push({ obj: obj as Record<string, unknown>, msg }) };
  const request = (verified: boolean, cert = 'CN=operator,O=Org1'): IncomingMessage => {
    const socket = {
      encrypted: true,
      // OpenSSL's verdict says yes for both: only createTlsServer's mark counts.
      authorized: true,
      remoteAddress: '127.0.0.1',
      remotePort: 4242,
      getPeerX509Certificate: () => ({ subject: cert.split(',').reverse().join('\n'), subjectAltName: undefined }),
    };
    if (verified) markVerifiedClient(socket as never);
    return { url: '/logspec?x=1', method: 'PUT', socket } as unknown as IncomingMessage;
  };

  it("refuses a request without a verified certificate with 401 and Fabric's warning", () => {
    warnings.length = 0;
    expect(createAuthorizer({ logger })(request(false), { path: '/logspec' })).toEqual({ allow: false, status: 401 });
    expect(warnings).toEqual([{ obj: { URL: '/logspec?x=1', Method: 'PUT', RemoteAddr: '127.0.0.1:4242' }, msg: UNAUTHORIZED_MESSAGE }]);
  });

  it('admits any verified certificate when the route has no allow-list', () => {
    expect(createAuthorizer({ logger, allowList: { '/metrics': [{ commonName: 'prometheus' }] } })(request(true), { path: '/logspec' })).toEqual({ allow: true });
  });

  it("applies the route's allow-list: 403 and a warning naming the subject when nothing matches", () => {
    warnings.length = 0;
    const authorize = createAuthorizer({ logger, allowList: { '/logspec': [{ commonName: 'admin' }, { organization: 'Org1' }] } });
    expect(authorize(request(true), { path: '/logspec' })).toEqual({ allow: true });
    expect(authorize(request(true, 'CN=operator,O=Org2'), { path: '/logspec' })).toEqual({ allow: false, status: 403 });
    expect(warnings).toEqual([{ obj: { URL: '/logspec?x=1', Method: 'PUT', RemoteAddr: '127.0.0.1:4242', Subject: 'CN=operator,O=Org2' }, msg: NOT_ALLOWED_MESSAGE }]);
  });

  it('does not treat inherited object keys as routes', () => {
    expect(createAuthorizer({ allowList: {} })(request(true), { path: 'constructor' })).toEqual({ allow: true });
  });
});
