import { describe, expect, it } from 'vitest';
import { certificate, cn, ext, key, makeIntermediate, makeRoot, NOW, OID, toPem, type IssuingCa } from '../../../test/x509-fixtures.ts';
import { createClientTrustPool, verifyClientChain } from './client-chain.ts';
import { domainNameValid } from './names.ts';

// Names and name constraints Go 1.26 refuses as invalid domains (crypto/x509 parser.go
// domainNameValid, verify.go domainToReverseLabels): a name that begins with a period, a
// constraint that begins with two, and a constraint that is a lone period. Each verdict and text
// was confirmed with Go 1.26.8 (tools/x509-oracle) on these chains' shapes.

const PARSE = 'tls: failed to parse client certificate: ';
const VERIFY = 'tls: failed to verify certificate: ';
const NAME = `${VERIFY}x509: a root or intermediate certificate is not authorized to sign for this name: `;
const UNKNOWN = `${VERIFY}x509: certificate signed by unknown authority`;

function leaf(parent: IssuingCa, ...names: Uint8Array[]): Uint8Array {
  return certificate({
    subject: cn('period-leaf'),
    key: key('period-leaf'),
    issuer: parent.subject,
    issuerKey: parent.key,
    extensions: [ext.eku(OID.clientAuth), ...(names.length === 0 ? [] : [ext.san(false, ...names)])],
  });
}

function verdict(chain: Uint8Array[], ...roots: IssuingCa[]): string {
  const v = verifyClientChain(chain, createClientTrustPool(roots.map((r) => toPem(r.der))), NOW);
  return v.accept ? 'accept' : v.reason;
}

/** The verdict on a leaf with `names`, sent with its CA: one issued by `parent` with `constraints`. */
function viaSentCa(label: string, parent: IssuingCa, constraints: Uint8Array, ...names: Uint8Array[]): string {
  const ca = makeIntermediate(label, parent, [constraints]);
  return verdict([leaf(ca, ...names), ca.der], parent);
}

describe("Go 1.26's domain validity", () => {
  it.each([
    ['example.com', false, true],
    ['', false, true],
    ['', true, true],
    ['.example.com', false, false],
    ['.example.com', true, true],
    ['..example.com', true, false],
    ['.', false, false],
    ['.', true, false],
    ['example.com.', true, false],
    ['a..b', true, false],
    ['a b', false, false],
  ] as const)('domainNameValid(%j, constraint %j) is %j', (name, constraint, valid) => {
    expect(domainNameValid(name, constraint)).toBe(valid);
  });
});

describe('names that begin with a period', () => {
  const plain = makeRoot('period-root');

  it('refuses a URI SAN whose host begins with a period, under any CA', () => {
    expect(verdict([leaf(plain, ext.uri('https://.example.com/'))], plain)).toBe(`${PARSE}x509: cannot parse URI "https://.example.com/": invalid domain`);
  });

  it('refuses a DNS SAN that begins with a period under a CA that permits its parent', () => {
    const permits = makeRoot('period-dns', [ext.nameConstraints([ext.dns('example.com')], [])]);
    expect(verdict([leaf(permits, ext.dns('.example.com'))], permits)).toBe(`${NAME}x509: cannot parse dnsName ".example.com"`);
    expect(verdict([leaf(permits, ext.dns('a.example.com'))], permits)).toBe('accept');
  });

  it('refuses an email SAN whose domain begins with a period under an email constraint', () => {
    const permits = makeRoot('period-email', [ext.nameConstraints([ext.email('example.com')], [])]);
    expect(verdict([leaf(permits, ext.email('user@.example.com'))], permits)).toBe(`${NAME}cannot parse rfc822Name "user@.example.com"`);
    expect(verdict([leaf(permits, ext.email('user@example.com'))], permits)).toBe('accept');
  });

  it('refuses a sent CA whose DNS or URI constraint begins with two periods, with a leaf without SANs', () => {
    for (const [constraint, text] of [
      [ext.dns('..example.com'), 'x509: failed to parse dnsName constraint "..example.com"'],
      [ext.uri('..example.com'), 'x509: failed to parse URI constraint "..example.com"'],
    ] as const) {
      expect(viaSentCa('period-double', plain, ext.nameConstraints([constraint], []))).toBe(`${PARSE}${text}`);
    }
  });

  it('drops a CA-file CA whose DNS or URI constraint begins with two periods', () => {
    for (const constraint of [ext.dns('..example.com'), ext.uri('..example.com')]) {
      const bad = makeRoot('period-double-root', [ext.nameConstraints([], [constraint])]);
      expect(createClientTrustPool([toPem(bad.der)]).size).toBe(0);
      expect(verdict([leaf(bad)], bad)).toBe(UNKNOWN);
    }
  });
});

describe('a name constraint that is a lone period', () => {
  const plain = makeRoot('lone-root');

  it('refuses a sent CA with a DNS or email constraint "."', () => {
    for (const [constraint, text] of [
      [ext.dns('.'), 'x509: failed to parse dnsName constraint "."'],
      [ext.email('.'), 'x509: failed to parse rfc822Name constraint "."'],
    ] as const) {
      expect(viaSentCa('lone-permitted', plain, ext.nameConstraints([constraint], []), ext.dns('a.example.com'))).toBe(`${PARSE}${text}`);
      expect(viaSentCa('lone-excluded', plain, ext.nameConstraints([], [constraint]))).toBe(`${PARSE}${text}`);
    }
  });

  it('drops a CA-file CA with a DNS or email constraint "."', () => {
    for (const constraint of [ext.dns('.'), ext.email('.')]) {
      const bad = makeRoot('lone-root-file', [ext.nameConstraints([constraint], [])]);
      expect(createClientTrustPool([toPem(bad.der)]).skipped.length).toBe(1);
      expect(verdict([leaf(bad, ext.dns('a.example.com'))], bad)).toBe(UNKNOWN);
    }
  });
});

describe('names in error texts', () => {
  it('prints a URI SAN as url.URL.String() re-assembles it', () => {
    const permits = makeRoot('uri-root', [ext.nameConstraints([ext.uri('example.com')], [])]);
    expect(verdict([leaf(permits, ext.uri('HTTPS://User:p!w@x.other.org/a%41 b?q#F g'))], permits)).toBe(
      `${NAME}URI "https://User:p%21w@x.other.org/aA%20b?q#F%20g" is not permitted by any constraint`,
    );
    expect(verdict([leaf(permits, ext.uri('Spiffe://x.other.org/ns/a%2fb'))], permits)).toBe(`${NAME}URI "spiffe://x.other.org/ns/a%2fb" is not permitted by any constraint`);
  });

  it('quotes an IP constraint once, as Go prints a *net.IPNet with %q', () => {
    const excludes = makeRoot('ip-root', [ext.nameConstraints([], [ext.ip(10, 0, 0, 0, 255, 0, 0, 0)])]);
    expect(verdict([leaf(excludes, ext.ip(10, 1, 2, 3))], excludes)).toBe(`${NAME}IP address "10.1.2.3" is excluded by constraint "10.0.0.0/8"`);
  });
});
