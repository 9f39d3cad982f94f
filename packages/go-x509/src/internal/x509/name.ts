import { binaryString, DerReader, oidString, TAG } from './der.ts';

// Distinguished names as Go 1.19's parseName reads them: every attribute value must be one of the
// six string types Go knows, each checked with Go's own rules. Chains link on the raw name bytes,
// so the decoded values only feed error texts.

export interface Attribute {
  readonly type: string;
  readonly value: string;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

// Go's simplified PrintableString set, which also lets '*' and '&' through.
function isPrintable(b: number): boolean {
  return (
    (b >= 0x61 && b <= 0x7a) ||
    (b >= 0x41 && b <= 0x5a) ||
    (b >= 0x30 && b <= 0x39) ||
    (b >= 0x27 && b <= 0x29) ||
    (b >= 0x2b && b <= 0x2f) ||
    b === 0x20 ||
    b === 0x3a ||
    b === 0x3d ||
    b === 0x3f ||
    b === 0x2a ||
    b === 0x26
  );
}

/** True when every byte is ASCII: Go's isIA5String over a string whose bytes may not be UTF-8. */
export function isIA5(bytes: Uint8Array): boolean {
  for (const b of bytes) if (b > 0x7f) return false;
  return true;
}

/** Go's parseASN1String: the decoded text, or the error text Go gives. */
export function parseAsn1String(tag: number, value: Uint8Array): { value: string } | { error: string } {
  switch (tag) {
    case TAG.T61String:
      // Read as Latin-1 (one character per byte), so a T61String never fails to parse.
      return { value: binaryString(value) };
    case TAG.PrintableString:
      for (const b of value) if (!isPrintable(b)) return { error: 'invalid PrintableString' };
      return { value: binaryString(value) };
    case TAG.UTF8String:
      try {
        return { value: utf8.decode(value) };
      } catch {
        return { error: 'invalid UTF-8 string' };
      }
    case TAG.BMPString: {
      if (value.length % 2 !== 0) return { error: 'invalid BMPString' };
      let v = value;
      if (v.length >= 2 && v[v.length - 1] === 0 && v[v.length - 2] === 0) v = v.subarray(0, v.length - 2);
      // UCS-2 read as UTF-16 with surrogates and the permanent noncharacters refused (Go 1.25).
      let text = '';
      for (let i = 0; i < v.length; i += 2) {
        const unit = (v[i]! << 8) | v[i + 1]!;
        if (unit === 0xfffe || unit === 0xffff || (unit >= 0xfdd0 && unit <= 0xfdef) || (unit >= 0xd800 && unit <= 0xdfff)) {
          return { error: 'invalid BMPString' };
        }
        text += String.fromCharCode(unit);
      }
      return { value: text };
    }
    case TAG.IA5String:
      if (!isIA5(value)) return { error: 'invalid IA5String' };
      return { value: binaryString(value) };
    case TAG.NumericString:
      for (const b of value) if (!((b >= 0x30 && b <= 0x39) || b === 0x20)) return { error: 'invalid NumericString' };
      return { value: binaryString(value) };
    default:
      return { error: `unsupported string type: ${tag}` };
  }
}

/** Parses a Name element (header included); returns the attributes in order or Go's error text. */
export function parseName(raw: Uint8Array): Attribute[] | string {
  const outer = new DerReader(raw);
  const seq = outer.read(TAG.SEQUENCE);
  if (seq === undefined) return 'x509: invalid RDNSequence';
  const rdns = new DerReader(seq);
  const attributes: Attribute[] = [];
  while (!rdns.empty()) {
    const set = rdns.read(TAG.SET);
    if (set === undefined) return 'x509: invalid RDNSequence';
    const members = new DerReader(set);
    while (!members.empty()) {
      const atav = members.read(TAG.SEQUENCE);
      if (atav === undefined) return 'x509: invalid RDNSequence: invalid attribute';
      const r = new DerReader(atav);
      const type = r.readOID();
      if (type === undefined) return 'x509: invalid RDNSequence: invalid attribute type';
      const value = r.readAny();
      if (value === undefined) return 'x509: invalid RDNSequence: invalid attribute value';
      const text = parseAsn1String(value.tag, value.body);
      if ('error' in text) return `x509: invalid RDNSequence: invalid attribute value: ${text.error}`;
      attributes.push({ type: oidString(type), value: text.value });
    }
  }
  return attributes;
}

/** pkix.Name's CommonName (the last CN wins) and first Organization, for Go's hint texts. */
export function nameSummary(attributes: readonly Attribute[]): { commonName: string; organization: string | undefined } {
  let commonName = '';
  let organization: string | undefined;
  for (const a of attributes) {
    if (a.type === '2.5.4.3') commonName = a.value;
    else if (a.type === '2.5.4.10' && organization === undefined) organization = a.value;
  }
  return { commonName, organization };
}
