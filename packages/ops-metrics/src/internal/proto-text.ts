/**
 * The delimited protobuf exposition written again in protobuf's text format, as client_golang
 * answers `encoding=text` (prototext.Format: one field a line, nested messages indented by two
 * spaces, a blank line after each family) and `encoding=compact-text` (the message's String():
 * one family a line, fields separated by a space). Go's protobuf adds a space at random places
 * (per build) so that nobody depends on the exact bytes; this writes the form without it, which
 * every protobuf text parser reads the same. Debugging formats: read from the delimited bytes
 * this package made, by a schema of the few messages they hold.
 */

type Kind = 'string' | 'double' | 'uint' | 'type';
interface Message {
  readonly [field: number]: { readonly name: string; readonly kind: Kind | Message } | undefined;
}

const LABEL_PAIR: Message = { 1: { name: 'name', kind: 'string' }, 2: { name: 'value', kind: 'string' } };
const VALUE: Message = { 1: { name: 'value', kind: 'double' } };
const QUANTILE: Message = { 1: { name: 'quantile', kind: 'double' }, 2: { name: 'value', kind: 'double' } };
const BUCKET: Message = { 1: { name: 'cumulative_count', kind: 'uint' }, 4: { name: 'cumulative_count_float', kind: 'double' }, 2: { name: 'upper_bound', kind: 'double' } };
const SUMMARY: Message = { 1: { name: 'sample_count', kind: 'uint' }, 2: { name: 'sample_sum', kind: 'double' }, 3: { name: 'quantile', kind: QUANTILE } };
const HISTOGRAM: Message = {
  1: { name: 'sample_count', kind: 'uint' },
  4: { name: 'sample_count_float', kind: 'double' },
  2: { name: 'sample_sum', kind: 'double' },
  3: { name: 'bucket', kind: BUCKET },
};
const METRIC: Message = {
  1: { name: 'label', kind: LABEL_PAIR },
  2: { name: 'gauge', kind: VALUE },
  3: { name: 'counter', kind: VALUE },
  4: { name: 'summary', kind: SUMMARY },
  5: { name: 'untyped', kind: VALUE },
  7: { name: 'histogram', kind: HISTOGRAM },
};
const FAMILY: Message = { 1: { name: 'name', kind: 'string' }, 2: { name: 'help', kind: 'string' }, 3: { name: 'type', kind: 'type' }, 4: { name: 'metric', kind: METRIC } };
const TYPE_NAMES = ['COUNTER', 'GAUGE', 'SUMMARY', 'UNTYPED', 'HISTOGRAM', 'GAUGE_HISTOGRAM'];

/** strconv.FormatFloat(value, 'g', -1, 64) with prototext's `inf`, `-inf`, `nan`. */
export function formatProtoDouble(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (value === Infinity) return 'inf';
  if (value === -Infinity) return '-inf';
  if (value === 0) return Object.is(value, -0) ? '-0' : '0';
  const sign = value < 0 ? '-' : '';
  const [mantissa = '', exponentText = '0'] = Math.abs(value).toExponential().split('e');
  const exponent = Number(exponentText);
  const digits = mantissa.replace('.', '');
  // Go's shortest %g: an exponent below -4 or from 6 up takes the %e form, two exponent digits at least.
  if (exponent < -4 || exponent >= 6) {
    const fraction = digits.length > 1 ? `.${digits.slice(1)}` : '';
    return `${sign}${digits[0]}${fraction}e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
  if (digits.length <= exponent + 1) return `${sign}${digits}${'0'.repeat(exponent + 1 - digits.length)}`;
  return `${sign}${digits.slice(0, exponent + 1)}.${digits.slice(exponent + 1)}`;
}

const hex = (code: number, width: number): string => code.toString(16).padStart(width, '0');

/** prototext's string: `\"`, `\\`, `\n`, `\r`, `\t`, other controls as `\xHH`, C1 controls as `\u00HH`, the rest as UTF-8. */
export function quoteProtoString(text: string): string {
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (char === '"' || char === '\\') out += `\\${char}`;
    else if (char === '\n') out += '\\n';
    else if (char === '\r') out += '\\r';
    else if (char === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x7f) out += `\\x${hex(code, 2)}`;
    else if (code >= 0x80 && code <= 0x9f) out += `\\u${hex(code, 4)}`;
    else out += char;
  }
  return `${out}"`;
}

class Reader {
  at = 0;
  constructor(
    private readonly bytes: Buffer,
    readonly end: number,
  ) {}

  varint(): number {
    let value = 0;
    let scale = 1;
    for (;;) {
      const byte = this.bytes[this.at++]!;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 0x80;
    }
  }

  double(): number {
    const value = this.bytes.readDoubleLE(this.at);
    this.at += 8;
    return value;
  }

  slice(length: number): Reader {
    const reader = new Reader(this.bytes, this.at + length);
    reader.at = this.at;
    this.at += length;
    return reader;
  }

  text(length: number): string {
    const text = this.bytes.toString('utf8', this.at, this.at + length);
    this.at += length;
    return text;
  }
}

function fieldsOf(reader: Reader, schema: Message): [name: string, value: string | Reader, schema: Message | undefined][] {
  const fields: [string, string | Reader, Message | undefined][] = [];
  while (reader.at < reader.end) {
    const tag = reader.varint();
    const field = schema[Math.floor(tag / 8)];
    const wireType = tag % 8;
    let value: string | Reader;
    if (wireType === 0) {
      const number = reader.varint();
      value = field?.kind === 'type' ? (TYPE_NAMES[number] ?? String(number)) : String(number);
    } else if (wireType === 1) value = formatProtoDouble(reader.double());
    else {
      const length = reader.varint();
      value = field?.kind === 'string' ? quoteProtoString(reader.text(length)) : reader.slice(length);
    }
    if (field !== undefined) fields.push([field.name, value, typeof field.kind === 'object' ? field.kind : undefined]);
  }
  return fields;
}

function writeMessage(reader: Reader, schema: Message, compact: boolean, indent: string): string {
  const parts: string[] = [];
  for (const [name, value, inner] of fieldsOf(reader, schema)) {
    if (typeof value === 'string') parts.push(compact ? `${name}:${value}` : `${indent}${name}: ${value}\n`);
    else if (compact) parts.push(`${name}:{${writeMessage(value, inner!, true, '')}}`);
    else parts.push(`${indent}${name}: {\n${writeMessage(value, inner!, false, `${indent}  `)}${indent}}\n`);
  }
  return parts.join(compact ? ' ' : '');
}

/** Each family of a delimited body in protobuf's text format, multi-line or compact, as expfmt's encoders write them. */
export function delimitedToProtoText(body: Buffer, compact: boolean): string {
  const reader = new Reader(body, body.length);
  let out = '';
  while (reader.at < reader.end) {
    const family = reader.slice(reader.varint());
    // expfmt writes each family with Fprintln: prototext.Format's text already ends in a newline.
    out += `${writeMessage(family, FAMILY, compact, '')}\n`;
  }
  return out;
}
