import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';

// A small DER writer and certificate factory for the verifier's tests: every field can be set
// or broken on purpose, which the openssl CLI does not allow (v1 certificates with extensions,
// wrong string types, non-minimal encodings, mismatched algorithm identifiers).

function length(n: number): number[] {
  if (n < 128) return [n];
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return [0x80 | bytes.length, ...bytes];
}

export function tlv(tag: number, body: Uint8Array | readonly number[]): Uint8Array {
  const b = body instanceof Uint8Array ? body : Uint8Array.from(body);
  return Uint8Array.from([tag, ...length(b.length), ...b]);
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export const seq = (...parts: Uint8Array[]): Uint8Array => tlv(0x30, concat(...parts));
export const set = (...parts: Uint8Array[]): Uint8Array => tlv(0x31, concat(...parts));
export const octet = (b: Uint8Array | readonly number[]): Uint8Array => tlv(0x04, b);
export const nul = (): Uint8Array => Uint8Array.from([0x05, 0x00]);
export const bool = (v: boolean): Uint8Array => tlv(0x01, [v ? 0xff : 0x00]);
export const explicit = (n: number, inner: Uint8Array): Uint8Array => tlv(0xa0 | n, inner);
export const implicit = (n: number, body: Uint8Array | readonly number[]): Uint8Array => tlv(0x80 | n, body);
export const ascii = (s: string): Uint8Array => Uint8Array.from(Buffer.from(s, 'latin1'));
export const str = (tag: number, s: string | Uint8Array): Uint8Array => tlv(tag, typeof s === 'string' ? Buffer.from(s, 'utf8') : s);
export const printable = (s: string): Uint8Array => str(0x13, s);
export const utf8 = (s: string): Uint8Array => str(0x0c, s);

export function int(v: bigint | number): Uint8Array {
  const n = BigInt(v);
  let len = 1;
  while (n < -(1n << BigInt(8 * len - 1)) || n >= 1n << BigInt(8 * len - 1)) len++;
  const m = n < 0n ? (1n << BigInt(8 * len)) + n : n;
  return tlv(0x02, Buffer.from(m.toString(16).padStart(len * 2, '0'), 'hex'));
}

export function oid(dotted: string): Uint8Array {
  const arcs = dotted.split('.').map(Number);
  const out: number[] = [];
  const push = (v: number): void => {
    const chunk: number[] = [v & 0x7f];
    for (let x = Math.floor(v / 128); x > 0; x = Math.floor(x / 128)) chunk.unshift((x & 0x7f) | 0x80);
    out.push(...chunk);
  };
  push(arcs[0]! * 40 + arcs[1]!);
  for (const a of arcs.slice(2)) push(a);
  return tlv(0x06, out);
}

export const bits = (b: Uint8Array, unused = 0): Uint8Array => tlv(0x03, [unused, ...b]);

export function time(d: Date, kind: 'utc' | 'generalized' = d.getUTCFullYear() < 2050 && d.getUTCFullYear() >= 1950 ? 'utc' : 'generalized'): Uint8Array {
  const p = (n: number, w = 2): string => String(n).padStart(w, '0');
  const rest = `${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}Z`;
  return kind === 'utc' ? str(0x17, `${p(d.getUTCFullYear() % 100)}${rest}`) : str(0x18, `${p(d.getUTCFullYear(), 4)}${rest}`);
}

export function name(...attributes: [string, Uint8Array][]): Uint8Array {
  return seq(...attributes.map(([type, value]) => set(seq(oid(type), value))));
}
export const cn = (s: string): Uint8Array => name(['2.5.4.3', utf8(s)]);

export const OID = {
  ecdsaSha256: '1.2.840.10045.4.3.2',
  ecdsaSha1: '1.2.840.10045.4.1',
  rsaSha256: '1.2.840.113549.1.1.11',
  rsaSha1: '1.2.840.113549.1.1.5',
  rsaMd5: '1.2.840.113549.1.1.4',
  rsaPss: '1.2.840.113549.1.1.10',
  ed25519: '1.3.101.112',
  sha256: '2.16.840.1.101.3.4.2.1',
  mgf1: '1.2.840.113549.1.1.8',
  clientAuth: '1.3.6.1.5.5.7.3.2',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  anyEku: '2.5.29.37.0',
} as const;

export type KeyKind = 'ec' | 'rsa' | 'ed25519' | 'rsa-pss' | 'dsa';

export interface TestKey {
  readonly kind: KeyKind;
  readonly privateKey: KeyObject;
  readonly spki: Uint8Array;
  readonly keyId: Uint8Array;
}

const keyCache = new Map<string, TestKey>();

/** A key pair; the same label returns the same key within one test run. */
export function key(label: string, kind: KeyKind = 'ec'): TestKey {
  const cacheKey = `${kind}:${label}`;
  const known = keyCache.get(cacheKey);
  if (known !== undefined) return known;
  const pair =
    kind === 'ec'
      ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
      : kind === 'rsa'
        ? generateKeyPairSync('rsa', { modulusLength: 1024 })
        : kind === 'rsa-pss'
          ? generateKeyPairSync('rsa-pss', { modulusLength: 1024 })
          : kind === 'dsa'
            ? generateKeyPairSync('dsa', { modulusLength: 1024, divisorLength: 160 })
            : generateKeyPairSync('ed25519');
  const spki = new Uint8Array(pair.publicKey.export({ type: 'spki', format: 'der' }));
  const made: TestKey = { kind, privateKey: pair.privateKey, spki, keyId: createHash('sha1').update(spki).digest().subarray(0, 20) };
  keyCache.set(cacheKey, made);
  return made;
}

export function algorithmFor(k: TestKey): Uint8Array {
  switch (k.kind) {
    case 'ec':
      return seq(oid(OID.ecdsaSha256));
    case 'rsa':
      return seq(oid(OID.rsaSha256), nul());
    case 'ed25519':
      return seq(oid(OID.ed25519));
    default:
      return seq(oid(OID.rsaSha256), nul());
  }
}

export function pssAlgorithm(saltLength = 32): Uint8Array {
  const sha256 = seq(oid(OID.sha256), nul());
  return seq(oid(OID.rsaPss), seq(explicit(0, sha256), explicit(1, seq(oid(OID.mgf1), sha256)), explicit(2, int(saltLength))));
}

export function signWith(k: TestKey, algorithm: Uint8Array, tbs: Uint8Array): Uint8Array {
  const alg = Buffer.from(algorithm).toString('hex');
  if (alg.includes(Buffer.from(oid(OID.rsaPss)).toString('hex'))) {
    const salt = algorithm[algorithm.length - 1]!;
    return new Uint8Array(sign('sha256', tbs, { key: k.privateKey, padding: 6, saltLength: salt }));
  }
  if (k.kind === 'ed25519') return new Uint8Array(sign(null, tbs, k.privateKey));
  const has = (dotted: string): boolean => alg.includes(Buffer.from(oid(dotted)).toString('hex'));
  const hash =
    has(OID.ecdsaSha1) || has(OID.rsaSha1)
      ? 'sha1'
      : has(OID.rsaMd5)
        ? 'md5'
        : has('1.2.840.10045.4.3.3') || has('1.2.840.113549.1.1.12')
          ? 'sha384'
          : has('1.2.840.10045.4.3.4') || has('1.2.840.113549.1.1.13')
            ? 'sha512'
            : 'sha256';
  return new Uint8Array(sign(hash, tbs, k.privateKey));
}

export function extension(id: string, critical: boolean, value: Uint8Array): Uint8Array {
  return critical ? seq(oid(id), bool(true), octet(value)) : seq(oid(id), octet(value));
}

export const ext = {
  basicConstraints: (ca: boolean, pathLen?: number, critical = true): Uint8Array =>
    extension('2.5.29.19', critical, seq(...(ca ? [bool(true)] : []), ...(pathLen === undefined ? [] : [int(pathLen)]))),
  keyUsage: (bitsValue: Uint8Array, critical = true): Uint8Array => extension('2.5.29.15', critical, bitsValue),
  /** keyCertSign | cRLSign */
  caKeyUsage: (): Uint8Array => extension('2.5.29.15', true, bits(Uint8Array.from([0x06]), 1)),
  eku: (...oids: string[]): Uint8Array => extension('2.5.29.37', false, seq(...oids.map(oid))),
  skid: (id: Uint8Array): Uint8Array => extension('2.5.29.14', false, octet(id)),
  akid: (id: Uint8Array): Uint8Array => extension('2.5.29.35', false, seq(implicit(0, id))),
  san: (critical: boolean, ...names: Uint8Array[]): Uint8Array => extension('2.5.29.17', critical, seq(...names)),
  dns: (s: string): Uint8Array => implicit(2, ascii(s)),
  email: (s: string): Uint8Array => implicit(1, ascii(s)),
  uri: (s: string): Uint8Array => implicit(6, ascii(s)),
  ip: (...b: number[]): Uint8Array => implicit(7, b),
  nameConstraints: (permitted: Uint8Array[], excluded: Uint8Array[], critical = true): Uint8Array =>
    extension(
      '2.5.29.30',
      critical,
      seq(...(permitted.length > 0 ? [tlv(0xa0, concat(...permitted.map((p) => seq(p))))] : []), ...(excluded.length > 0 ? [tlv(0xa1, concat(...excluded.map((p) => seq(p))))] : [])),
    ),
};

export interface CertSpec {
  readonly subject: Uint8Array;
  readonly key: TestKey;
  readonly issuer?: Uint8Array;
  readonly issuerKey?: TestKey;
  /** 1-based as Go counts; default 3. */
  readonly version?: number;
  readonly serial?: bigint;
  readonly algorithm?: Uint8Array;
  readonly outerAlgorithm?: Uint8Array;
  readonly notBefore?: Date | Uint8Array;
  readonly notAfter?: Date | Uint8Array;
  readonly extensions?: readonly Uint8Array[];
  /** Replaces the SubjectPublicKeyInfo element. */
  readonly spki?: Uint8Array;
  /** Inserted after the SubjectPublicKeyInfo and before the extensions (unique IDs). */
  readonly afterSpki?: readonly Uint8Array[];
  /** Replaces the signature bytes. */
  readonly signature?: Uint8Array;
  /** Replaces the version field (for an explicitly encoded v1, or a malformed one). */
  readonly versionField?: Uint8Array;
}

const HOUR = 3600_000;
/** The fixed "now" every fixture is valid at. */
export const NOW: Date = new Date(Date.UTC(2026, 0, 15, 12, 0, 0));

export function certificate(spec: CertSpec): Uint8Array {
  const issuerKey = spec.issuerKey ?? spec.key;
  const algorithm = spec.algorithm ?? algorithmFor(issuerKey);
  const version = spec.version ?? 3;
  const validity = (v: Date | Uint8Array | undefined, fallback: Date): Uint8Array => (v instanceof Uint8Array ? v : time(v ?? fallback));
  const tbs = seq(
    ...(spec.versionField !== undefined ? [spec.versionField] : version === 1 ? [] : [explicit(0, int(version - 1))]),
    int(spec.serial ?? 1n),
    algorithm,
    spec.issuer ?? spec.subject,
    seq(validity(spec.notBefore, new Date(NOW.getTime() - 24 * HOUR)), validity(spec.notAfter, new Date(NOW.getTime() + 48 * HOUR))),
    spec.subject,
    spec.spki ?? spec.key.spki,
    ...(spec.afterSpki ?? []),
    ...(spec.extensions !== undefined && spec.extensions.length > 0 ? [explicit(3, seq(...spec.extensions))] : []),
  );
  const signature = spec.signature ?? signWith(issuerKey, algorithm, tbs);
  return seq(tbs, spec.outerAlgorithm ?? algorithm, bits(signature));
}

/** A CA certificate: CA:true basicConstraints, keyCertSign, subject key id. */
export function caCert(subject: Uint8Array, k: TestKey, options: Partial<CertSpec> & { pathLen?: number } = {}): Uint8Array {
  return certificate({
    subject,
    key: k,
    extensions: [ext.basicConstraints(true, options.pathLen), ext.caKeyUsage(), ext.skid(k.keyId)],
    ...options,
  });
}

export function toPem(der: Uint8Array, type = 'CERTIFICATE'): string {
  const b64 = Buffer.from(der).toString('base64').replace(/.{64}/g, '$&\n');
  return `-----BEGIN ${type}-----\n${b64}${b64.endsWith('\n') ? '' : '\n'}-----END ${type}-----\n`;
}

/** A CA the tests issue from: its subject, key and certificate. */
export interface IssuingCa {
  readonly subject: Uint8Array;
  readonly key: TestKey;
  readonly der: Uint8Array;
}

/** The extensions every CA of `makeRoot` and `makeIntermediate` has: CA:TRUE, cert signing, its key id. */
const caExtensions = (k: TestKey): Uint8Array[] => [ext.basicConstraints(true), ext.caKeyUsage(), ext.skid(k.keyId)];

/** A self-signed CA named `label` (a key of that label), with `extensions` after the CA ones. */
export function makeRoot(label: string, extensions: Uint8Array[] = []): IssuingCa {
  const k = key(label);
  return { subject: cn(label), key: k, der: caCert(cn(label), k, { extensions: [...caExtensions(k), ...extensions] }) };
}

/** A CA named `label` issued by `parent`, with `extensions` after the CA ones. */
export function makeIntermediate(label: string, parent: IssuingCa, extensions: Uint8Array[] = []): IssuingCa {
  const k = key(label);
  const der = certificate({ subject: cn(label), key: k, issuer: parent.subject, issuerKey: parent.key, extensions: [...caExtensions(k), ...extensions] });
  return { subject: cn(label), key: k, der };
}
