// A DER reader with the acceptance rules of the cryptobyte package Go's crypto/x509 parser uses
// (Go 1.19): low tag numbers only, definite minimal lengths of at most four length octets, minimal
// INTEGERs, BOOLEAN as 0x00/0xff only, BIT STRING padding bits zero. Every read consumes from the
// front of the reader and returns undefined (or false) on refusal; callers turn that into Go's
// error text for the field they were reading.

export const TAG = {
  BOOLEAN: 0x01,
  INTEGER: 0x02,
  BIT_STRING: 0x03,
  OCTET_STRING: 0x04,
  NULL: 0x05,
  OID: 0x06,
  ENUM: 0x0a,
  UTF8String: 0x0c,
  SEQUENCE: 0x30,
  SET: 0x31,
  NumericString: 0x12,
  PrintableString: 0x13,
  T61String: 0x14,
  IA5String: 0x16,
  UTCTime: 0x17,
  GeneralizedTime: 0x18,
  BMPString: 0x1e,
} as const;

/** Context-specific tag number n, primitive. */
export function ctx(n: number): number {
  return 0x80 | n;
}
/** Context-specific tag number n, constructed. */
export function ctxc(n: number): number {
  return 0xa0 | n;
}

export interface Element {
  readonly tag: number;
  /** Header and contents. */
  readonly full: Uint8Array;
  /** Contents only. */
  readonly body: Uint8Array;
}

export class DerReader {
  private bytes: Uint8Array;

  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
  }

  get remaining(): Uint8Array {
    return this.bytes;
  }

  empty(): boolean {
    return this.bytes.length === 0;
  }

  peekTag(tag: number): boolean {
    return this.bytes.length > 0 && this.bytes[0] === tag;
  }

  /** Any element (header included); undefined if the header or length is not acceptable DER. */
  readAny(): Element | undefined {
    const s = this.bytes;
    if (s.length < 2) return undefined;
    const tag = s[0]!;
    const lenByte = s[1]!;
    if ((tag & 0x1f) === 0x1f) return undefined;
    let headerLen: number;
    let length: number;
    if ((lenByte & 0x80) === 0) {
      headerLen = 2;
      length = lenByte;
    } else {
      const lenLen = lenByte & 0x7f;
      if (lenLen === 0 || lenLen > 4 || s.length < 2 + lenLen) return undefined;
      let len32 = 0;
      for (let i = 0; i < lenLen; i++) len32 = len32 * 256 + s[2 + i]!;
      // Long form for a length under 128, or a leading zero length octet, is not minimal.
      if (len32 < 128) return undefined;
      if (s[2] === 0) return undefined;
      headerLen = 2 + lenLen;
      length = len32;
    }
    if (s.length - headerLen < length) return undefined;
    const full = s.subarray(0, headerLen + length);
    const body = s.subarray(headerLen, headerLen + length);
    this.bytes = s.subarray(headerLen + length);
    return { tag, full, body };
  }

  /** The next element if it has exactly this tag; otherwise undefined, and nothing is consumed. */
  private readTagged(tag: number): Element | undefined {
    const save = this.bytes;
    const e = this.readAny();
    if (e === undefined || e.tag !== tag) {
      // cryptobyte consumes on a tag mismatch too, but every caller treats that as fatal.
      this.bytes = save;
      return undefined;
    }
    return e;
  }

  /** Contents of an element with exactly this tag. */
  read(tag: number): Uint8Array | undefined {
    return this.readTagged(tag)?.body;
  }

  /** Header and contents of an element with exactly this tag. */
  readElement(tag: number): Uint8Array | undefined {
    return this.readTagged(tag)?.full;
  }

  /** An optional element: absent when the next tag differs; false when present but malformed. */
  readOptional(tag: number): { present: boolean; body: Uint8Array } | false {
    if (!this.peekTag(tag)) return { present: false, body: new Uint8Array(0) };
    const body = this.read(tag);
    return body === undefined ? false : { present: true, body };
  }

  skipOptional(tag: number): boolean {
    if (!this.peekTag(tag)) return true;
    return this.read(tag) !== undefined;
  }

  readBoolean(): boolean | undefined {
    const b = this.read(TAG.BOOLEAN);
    if (b === undefined || b.length !== 1) return undefined;
    if (b[0] === 0) return false;
    if (b[0] === 0xff) return true;
    return undefined;
  }

  /** Any INTEGER, minimally encoded, as a bigint. */
  readBigInt(tag: number = TAG.INTEGER): bigint | undefined {
    const b = this.read(tag);
    if (b === undefined || !minimalInteger(b)) return undefined;
    return integerValue(b);
  }

  /** An INTEGER that fits Go's int64 (cryptobyte's readASN1Int64). */
  readInt64(tag: number = TAG.INTEGER): bigint | undefined {
    const b = this.read(tag);
    if (b === undefined || !minimalInteger(b) || b.length > 8) return undefined;
    return integerValue(b);
  }

  readOID(): number[] | undefined {
    const b = this.read(TAG.OID);
    if (b === undefined) return undefined;
    return parseOidBody(b);
  }

  readBitString(): { bytes: Uint8Array; bitLength: number } | undefined {
    const b = this.read(TAG.BIT_STRING);
    if (b === undefined || b.length === 0) return undefined;
    const padding = b[0]!;
    const bytes = b.subarray(1);
    if (padding > 7) return undefined;
    if (bytes.length === 0 && padding !== 0) return undefined;
    if (bytes.length > 0 && (bytes[bytes.length - 1]! & ((1 << padding) - 1)) !== 0) return undefined;
    return { bytes, bitLength: bytes.length * 8 - padding };
  }
}

export function minimalInteger(b: Uint8Array): boolean {
  if (b.length === 0) return false;
  if (b.length === 1) return true;
  if (b[0] === 0 && (b[1]! & 0x80) === 0) return false;
  if (b[0] === 0xff && (b[1]! & 0x80) === 0x80) return false;
  return true;
}

export function integerValue(b: Uint8Array): bigint {
  let v = 0n;
  for (const byte of b) v = (v << 8n) | BigInt(byte);
  if (b.length > 0 && (b[0]! & 0x80) !== 0) v -= 1n << BigInt(b.length * 8);
  return v;
}

/** Unsigned big-endian bytes as a bigint. */
export function unsignedValue(b: Uint8Array): bigint {
  let v = 0n;
  for (const byte of b) v = (v << 8n) | BigInt(byte);
  return v;
}

// cryptobyte's readBase128Int: at most 5 octets per arc, the value below 2^31, and no leading
// 0x80 octet (X.690 8.19.2: the fewest octets).
function readBase128(b: Uint8Array, pos: { i: number }): number | undefined {
  let ret = 0;
  for (let n = 0; pos.i < b.length; n++) {
    if (n === 5) return undefined;
    if (ret >= 1 << 24) return undefined;
    const byte = b[pos.i++]!;
    if (n === 0 && byte === 0x80) return undefined;
    ret = ret * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) return ret;
  }
  return undefined;
}

export function parseOidBody(b: Uint8Array): number[] | undefined {
  if (b.length === 0) return undefined;
  const pos = { i: 0 };
  const first = readBase128(b, pos);
  if (first === undefined) return undefined;
  const arcs = first < 80 ? [Math.floor(first / 40), first % 40] : [2, first - 80];
  while (pos.i < b.length) {
    const v = readBase128(b, pos);
    if (v === undefined) return undefined;
    arcs.push(v);
  }
  return arcs;
}

export function oidString(arcs: readonly number[]): string {
  return arcs.join('.');
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Latin-1 view of bytes: Go's string(bytes) for byte-wise checks and map keys. */
export function binaryString(b: Uint8Array): string {
  let s = '';
  for (let i = 0; i < b.length; i += 4096) s += String.fromCharCode(...b.subarray(i, i + 4096));
  return s;
}

const DAYS_BEFORE_MONTH = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];

function isLeap(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

function daysIn(month: number, year: number): number {
  if (month === 2) return isLeap(year) ? 29 : 28;
  return [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
}

function daysFromCivil(y: number, m: number, d: number): number {
  // Days since 1970-01-01 in the proleptic Gregorian calendar (valid for years 0..9999).
  const yy = y - 1;
  const leapDays = Math.floor(yy / 4) - Math.floor(yy / 100) + Math.floor(yy / 400);
  const daysBeforeYear = yy * 365 + leapDays; // days from 0001-01-01 to y-01-01
  const epoch = 1969 * 365 + Math.floor(1969 / 4) - Math.floor(1969 / 100) + Math.floor(1969 / 400);
  let days = daysBeforeYear - epoch + DAYS_BEFORE_MONTH[m - 1]! + (d - 1);
  if (m > 2 && isLeap(y)) days += 1;
  return days;
}

/** A parsed time: the instant in ms since the epoch and the zone offset it was written with, in minutes. */
export interface GoTime {
  readonly ms: number;
  readonly offsetMinutes: number;
}

const DIGITS = /^[0-9]+$/;

// Go parses these with time.Parse and refuses unless formatting the result gives back the exact
// text: no fractional seconds, "Z" or a non-zero ±hhmm offset with minutes under 60, fields in range.
function parseClock(year: number, text: string, at: number, withSeconds: boolean): GoTime | undefined {
  const need = withSeconds ? 10 : 8;
  const fields = text.slice(at, at + need);
  if (fields.length !== need || !DIGITS.test(fields)) return undefined;
  const month = Number(fields.slice(0, 2));
  const day = Number(fields.slice(2, 4));
  const hour = Number(fields.slice(4, 6));
  const minute = Number(fields.slice(6, 8));
  const second = withSeconds ? Number(fields.slice(8, 10)) : 0;
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return undefined;
  if (day < 1 || day > daysIn(month, year)) return undefined;
  const zone = text.slice(at + need);
  let offsetMinutes: number;
  if (zone === 'Z') {
    offsetMinutes = 0;
  } else {
    if (zone.length !== 5 || (zone[0] !== '+' && zone[0] !== '-') || !DIGITS.test(zone.slice(1))) return undefined;
    const oh = Number(zone.slice(1, 3));
    const om = Number(zone.slice(3, 5));
    if (om > 59 || (oh === 0 && om === 0)) return undefined;
    offsetMinutes = (zone[0] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const local = ((daysFromCivil(year, month, day) * 24 + hour) * 60 + minute) * 60 + second;
  return { ms: (local - offsetMinutes * 60) * 1000, offsetMinutes };
}

export function parseGeneralizedTime(body: Uint8Array): GoTime | undefined {
  const text = binaryString(body);
  const year = text.slice(0, 4);
  if (year.length !== 4 || !DIGITS.test(year)) return undefined;
  return parseClock(Number(year), text, 4, true);
}

export function parseUTCTime(body: Uint8Array): GoTime | undefined {
  const text = binaryString(body);
  const yy = text.slice(0, 2);
  if (yy.length !== 2 || !DIGITS.test(yy)) return undefined;
  const two = Number(yy);
  const year = two >= 50 ? 1900 + two : 2000 + two;
  return parseClock(year, text, 2, true) ?? parseClock(year, text, 2, false);
}

/** Go's time.RFC3339 rendering of a parsed time in its own zone. */
export function formatRfc3339(t: GoTime): string {
  const d = new Date(t.ms + t.offsetMinutes * 60000);
  const pad = (n: number, w = 2): string => String(n).padStart(w, '0');
  const base = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  if (t.offsetMinutes === 0) return `${base}Z`;
  const abs = Math.abs(t.offsetMinutes);
  return `${base}${t.offsetMinutes < 0 ? '-' : '+'}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}
