import { binaryString, ctx, ctxc, DerReader, TAG } from './der.ts';
import { isIA5 } from './name.ts';
import { domainNameValid, looksLikeIP, parseMailbox, type IpNet } from './names.ts';
import { fail } from './parse-error.ts';
import { goQuote, goQuoteBytes } from './quote.ts';

// The nameConstraints extension as Go 1.26's parseNameConstraintsExtension reads it.

export interface NameConstraints {
  readonly permittedDNS: readonly string[];
  readonly excludedDNS: readonly string[];
  readonly permittedIPs: readonly IpNet[];
  readonly excludedIPs: readonly IpNet[];
  readonly permittedEmails: readonly string[];
  readonly excludedEmails: readonly string[];
  readonly permittedURIs: readonly string[];
  readonly excludedURIs: readonly string[];
}

function isValidIPMask(mask: Uint8Array): boolean {
  let seenZero = false;
  for (const b of mask) {
    if (seenZero) {
      if (b !== 0) return false;
      continue;
    }
    if ([0x00, 0x80, 0xc0, 0xe0, 0xf0, 0xf8, 0xfc, 0xfe].includes(b)) seenZero = true;
    else if (b !== 0xff) return false;
  }
  return true;
}

export function hexOf(b: Uint8Array): string {
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}

interface Subtrees {
  dns: string[];
  ips: IpNet[];
  emails: string[];
  uris: string[];
}

export function parseNameConstraints(value: Uint8Array): { constraints: NameConstraints; unhandled: boolean } {
  const outer = new DerReader(value);
  const top = outer.read(TAG.SEQUENCE);
  const invalid = 'x509: invalid NameConstraints extension';
  if (top === undefined || !outer.empty()) fail(invalid);
  const t = new DerReader(top);
  const permitted = t.readOptional(ctxc(0));
  if (permitted === false) fail(invalid);
  const excluded = t.readOptional(ctxc(1));
  if (excluded === false || !t.empty()) fail(invalid);
  if ((!permitted.present && !excluded.present) || (permitted.body.length === 0 && excluded.body.length === 0)) {
    fail('x509: empty name constraints extension');
  }
  let unhandled = false;
  const values = (body: Uint8Array): Subtrees => {
    const out: Subtrees = { dns: [], ips: [], emails: [], uris: [] };
    const r = new DerReader(body);
    while (!r.empty()) {
      const seq = r.read(TAG.SEQUENCE);
      const base = seq === undefined ? undefined : new DerReader(seq).readAny();
      if (base === undefined) fail('x509: invalid NameConstraints extension');
      const data = base.body;
      switch (base.tag) {
        case ctx(2): {
          if (!isIA5(data)) fail(`x509: invalid constraint value: x509: ${goQuoteBytes(binaryString(data))} cannot be encoded as an IA5String`);
          const domain = binaryString(data);
          if (!domainNameValid(domain, true)) fail(`x509: failed to parse dnsName constraint ${goQuote(domain)}`);
          out.dns.push(domain);
          break;
        }
        case ctx(7): {
          let ip: Uint8Array;
          let mask: Uint8Array;
          if (data.length === 8) {
            ip = data.subarray(0, 4);
            mask = data.subarray(4);
          } else if (data.length === 32) {
            ip = data.subarray(0, 16);
            mask = data.subarray(16);
          } else {
            fail(`x509: IP constraint contained value of length ${data.length}`);
          }
          if (!isValidIPMask(mask)) fail(`x509: IP constraint contained invalid mask ${hexOf(mask)}`);
          out.ips.push({ ip, mask });
          break;
        }
        case ctx(1): {
          if (!isIA5(data)) fail(`x509: invalid constraint value: x509: ${goQuoteBytes(binaryString(data))} cannot be encoded as an IA5String`);
          const constraint = binaryString(data);
          if (constraint.includes('@')) {
            if (parseMailbox(constraint) === undefined) fail(`x509: failed to parse rfc822Name constraint ${goQuote(constraint)}`);
          } else {
            if (!domainNameValid(constraint, true)) fail(`x509: failed to parse rfc822Name constraint ${goQuote(constraint)}`);
          }
          out.emails.push(constraint);
          break;
        }
        case ctx(6): {
          if (!isIA5(data)) fail(`x509: invalid constraint value: x509: ${goQuoteBytes(binaryString(data))} cannot be encoded as an IA5String`);
          const domain = binaryString(data);
          if (looksLikeIP(domain)) fail(`x509: failed to parse URI constraint ${goQuote(domain)}: cannot be IP address`);
          if (!domainNameValid(domain, true)) fail(`x509: failed to parse URI constraint ${goQuote(domain)}`);
          out.uris.push(domain);
          break;
        }
        default:
          unhandled = true;
      }
    }
    return out;
  };
  const p = values(permitted.body);
  const x = values(excluded.body);
  return {
    constraints: {
      permittedDNS: p.dns,
      excludedDNS: x.dns,
      permittedIPs: p.ips,
      excludedIPs: x.ips,
      permittedEmails: p.emails,
      excludedEmails: x.emails,
      permittedURIs: p.uris,
      excludedURIs: x.uris,
    },
    unhandled,
  };
}
