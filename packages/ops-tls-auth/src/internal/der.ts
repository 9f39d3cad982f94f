/**
 * The few certificate fields Go's chain verification needs and Node's X509Certificate does
 * not expose (version, basic-constraints path length, which extensions are critical), read
 * from the DER. Only the outer structure is walked; anything malformed throws.
 */

interface Element {
  readonly tag: number;
  readonly start: number;
  readonly end: number;
}

function elementAt(der: Uint8Array, offset: number, limit: number): Element {
  if (offset + 2 > limit) throw new Error('truncated DER');
  const tag = der[offset]!;
  let length = der[offset + 1]!;
  let start = offset + 2;
  if (length & 0x80) {
    const bytes = length & 0x7f;
    if (bytes === 0 || bytes > 4 || start + bytes > limit) throw new Error('bad DER length');
    length = 0;
    for (let i = 0; i < bytes; i++) length = length * 256 + der[start + i]!;
    start += bytes;
  }
  if (start + length > limit) throw new Error('truncated DER');
  return { tag, start, end: start + length };
}

function childrenOf(der: Uint8Array, parent: Element): Element[] {
  const children: Element[] = [];
  for (let offset = parent.start; offset < parent.end; ) {
    const child = elementAt(der, offset, parent.end);
    children.push(child);
    offset = child.end;
  }
  return children;
}

function oidText(der: Uint8Array, element: Element): string {
  const parts: number[] = [];
  let value = 0;
  for (let i = element.start; i < element.end; i++) {
    const byte = der[i]!;
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) {
      if (parts.length === 0) parts.push(value < 80 ? Math.floor(value / 40) : 2, value < 80 ? value % 40 : value - 80);
      else parts.push(value);
      value = 0;
    }
  }
  return parts.join('.');
}

function integerValue(der: Uint8Array, element: Element): number {
  let value = 0;
  for (let i = element.start; i < element.end; i++) value = value * 256 + der[i]!;
  return value;
}

export interface CertificateExtension {
  readonly critical: boolean;
  /** The extension's value (the content of its OCTET STRING). */
  readonly value: Uint8Array;
}

export interface CertificateStructure {
  /** 1 or 3, as written (the DER holds version - 1). */
  readonly version: number;
  readonly extensions: ReadonlyMap<string, CertificateExtension>;
  /** undefined when the certificate has no basic-constraints extension. */
  readonly basicConstraints: { readonly ca: boolean; readonly maxPathLength: number | undefined } | undefined;
}

const TAG_SEQUENCE = 0x30;
const TAG_VERSION = 0xa0;
const TAG_EXTENSIONS = 0xa3;
const TAG_BOOLEAN = 0x01;
const TAG_INTEGER = 0x02;
const TAG_OID = 0x06;
const BASIC_CONSTRAINTS = '2.5.29.19';

export function parseCertificateStructure(der: Uint8Array): CertificateStructure {
  const certificate = elementAt(der, 0, der.length);
  if (certificate.tag !== TAG_SEQUENCE) throw new Error('not a certificate');
  const tbs = childrenOf(der, certificate)[0];
  if (tbs?.tag !== TAG_SEQUENCE) throw new Error('not a certificate');
  const fields = childrenOf(der, tbs);
  let version = 1;
  if (fields[0]?.tag === TAG_VERSION) {
    const number = childrenOf(der, fields[0])[0];
    if (number?.tag === TAG_INTEGER) version = integerValue(der, number) + 1;
  }
  const extensions = new Map<string, CertificateExtension>();
  const wrapper = fields.find((field) => field.tag === TAG_EXTENSIONS);
  const list = wrapper === undefined ? undefined : childrenOf(der, wrapper)[0];
  for (const extension of list === undefined ? [] : childrenOf(der, list)) {
    const parts = childrenOf(der, extension);
    if (parts[0]?.tag !== TAG_OID) throw new Error('bad extension');
    const critical = parts[1]?.tag === TAG_BOOLEAN && der[parts[1].start] !== 0;
    const value = parts.at(-1)!;
    extensions.set(oidText(der, parts[0]), { critical, value: der.subarray(value.start, value.end) });
  }
  let basicConstraints: CertificateStructure['basicConstraints'];
  const constraints = extensions.get(BASIC_CONSTRAINTS);
  if (constraints !== undefined) {
    const body = constraints.value;
    const sequence = elementAt(body, 0, body.length);
    let ca = false;
    let maxPathLength: number | undefined;
    for (const part of childrenOf(body, sequence)) {
      if (part.tag === TAG_BOOLEAN) ca = body[part.start] !== 0;
      if (part.tag === TAG_INTEGER) maxPathLength = integerValue(body, part);
    }
    basicConstraints = { ca, maxPathLength };
  }
  return { version, extensions, basicConstraints };
}
