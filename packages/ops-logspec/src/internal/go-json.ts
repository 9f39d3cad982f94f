import { LogspecError } from '../errors.ts';

// Decoding of a /logspec PUT body exactly as Fabric's `json.NewDecoder(body).Decode(&LogSpec{})`
// answers: the first JSON value only (trailing data ignored), Go's syntax-error texts, keys
// matched case-insensitively, the last duplicate winning, null leaving the field alone, and
// type mismatches reported with Go's texts after the whole value has been read.

const GO_MAX_DEPTH = 10_000;
const NEEDS_VALUE = 'needs-value';

function invalidBody(message: string): LogspecError {
  return new LogspecError('INVALID_BODY', message);
}

const SHORT_ESCAPES: Readonly<Record<number, string>> = { 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r' };

/** Go's `quoteChar`: a byte shown as the rune of the same value, quoted as strconv.Quote would. */
function quoteChar(c: number): string {
  if (c === 0x27) return "'\\''";
  if (c === 0x22) return "'\"'";
  const short = SHORT_ESCAPES[c];
  if (short !== undefined) return `'${short}'`;
  if (c < 0x20 || c === 0x7f) return `'\\x${c.toString(16).padStart(2, '0')}'`;
  // C1 controls, NBSP and the soft hyphen are not printable for strconv.
  if ((c >= 0x80 && c <= 0xa0) || c === 0xad) return `'\\u${c.toString(16).padStart(4, '0')}'`;
  return `'${String.fromCharCode(c)}'`;
}

function syntaxError(c: number, context: string): LogspecError {
  return invalidBody(`invalid character ${quoteChar(c)} ${context}`);
}

const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isHex = (c: number) => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

// Where the scanner is inside a container.
const enum Parse {
  ObjectKey,
  ObjectValue,
  ArrayValue,
}

/**
 * Go's JSON scanner over the first value of `body`: returns the offset just past it, or
 * throws with Go's message (`EOF` for nothing but whitespace, `unexpected EOF` for a cut-off
 * value). One pass, no recursion.
 */
export function scanFirstValue(body: Uint8Array): number {
  const stack: Parse[] = [];
  let i = 0;
  let sawNonSpace = false;

  const unexpectedEof = () => invalidBody(sawNonSpace ? 'unexpected EOF' : 'EOF');
  const push = (c: number, state: Parse) => {
    stack.push(state);
    if (stack.length > GO_MAX_DEPTH) throw syntaxError(c, 'exceeded max depth');
  };

  // Reads a string starting at the opening quote; returns the offset past the closing quote.
  const scanString = (start: number): number => {
    let j = start + 1;
    for (;;) {
      if (j >= body.length) throw unexpectedEof();
      const c = body[j]!;
      if (c === 0x22) return j + 1;
      if (c === 0x5c) {
        j++;
        if (j >= body.length) throw unexpectedEof();
        const e = body[j]!;
        if (e === 0x75) {
          for (let k = 1; k <= 4; k++) {
            if (j + k >= body.length) throw unexpectedEof();
            const h = body[j + k]!;
            if (!isHex(h)) throw syntaxError(h, 'in \\u hexadecimal character escape');
          }
          j += 5;
          continue;
        }
        if (e === 0x22 || e === 0x5c || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) {
          j++;
          continue;
        }
        throw syntaxError(e, 'in string escape code');
      }
      if (c < 0x20) throw syntaxError(c, 'in string literal');
      j++;
    }
  };

  // Reads a number; returns the offset past it. `atTop`: EOF may end it (Go feeds a space at EOF).
  const scanNumber = (start: number): number => {
    let j = start;
    const need = (context: string): void => {
      if (j >= body.length) throw unexpectedEof();
      throw syntaxError(body[j]!, context);
    };
    if (body[j] === 0x2d) {
      j++;
      if (j >= body.length || !isDigit(body[j]!)) need('in numeric literal');
    }
    if (body[j] === 0x30) j++;
    else while (j < body.length && isDigit(body[j]!)) j++;
    if (j < body.length && body[j] === 0x2e) {
      j++;
      if (j >= body.length || !isDigit(body[j]!)) need('after decimal point in numeric literal');
      while (j < body.length && isDigit(body[j]!)) j++;
    }
    if (j < body.length && (body[j] === 0x65 || body[j] === 0x45)) {
      j++;
      if (j < body.length && (body[j] === 0x2b || body[j] === 0x2d)) j++;
      if (j >= body.length || !isDigit(body[j]!)) need('in exponent of numeric literal');
      while (j < body.length && isDigit(body[j]!)) j++;
    }
    // A number inside a container must be followed by something; at the top, EOF ends it.
    if (j >= body.length && stack.length > 0) throw unexpectedEof();
    return j;
  };

  const scanLiteral = (start: number, word: string): number => {
    for (let k = 1; k < word.length; k++) {
      const j = start + k;
      if (j >= body.length) throw unexpectedEof();
      if (body[j] !== word.charCodeAt(k)) throw syntaxError(body[j]!, `in literal ${word} (expecting '${word[k]}')`);
    }
    return start + word.length;
  };

  // Scans one value starting at `i` (whitespace already skipped); containers push state.
  // Returns true when a complete value (scalar or empty container) was read, false after an
  // object key, NEEDS_VALUE after `[` when an element must follow.
  const beginValue = (c: number): boolean | typeof NEEDS_VALUE => {
    switch (c) {
      case 0x7b: // {
        push(c, Parse.ObjectKey);
        i++;
        if (nextInside() === 0x7d) {
          stack.pop();
          i++;
          return true;
        }
        beginKey(body[i]!);
        return false;
      case 0x5b: // [
        push(c, Parse.ArrayValue);
        i++;
        if (nextInside() === 0x5d) {
          stack.pop();
          i++;
          return true;
        }
        // The first element is read by the caller's loop: no recursion, whatever the depth.
        return NEEDS_VALUE;
      case 0x22:
        i = scanString(i);
        return true;
      case 0x74:
        i = scanLiteral(i, 'true');
        return true;
      case 0x66:
        i = scanLiteral(i, 'false');
        return true;
      case 0x6e:
        i = scanLiteral(i, 'null');
        return true;
      default:
        if (c === 0x2d || isDigit(c)) {
          i = scanNumber(i);
          return true;
        }
        throw syntaxError(c, 'looking for beginning of value');
    }
  };

  function skipSpace(): void {
    while (i < body.length && isSpace(body[i]!)) i++;
  }

  // The next byte after whitespace, inside a value that is not finished: the end of the body
  // there is an unexpected EOF.
  function nextInside(): number {
    skipSpace();
    if (i >= body.length) throw unexpectedEof();
    return body[i]!;
  }

  // An object key: a string, which `c` (the byte at `i`) must begin.
  function beginKey(c: number): void {
    if (c !== 0x22) throw syntaxError(c, 'looking for beginning of object key string');
    i = scanString(i);
  }

  skipSpace();
  if (i >= body.length) throw invalidBody('EOF');
  sawNonSpace = true;
  let complete = beginValue(body[i]!);
  for (;;) {
    if (complete === NEEDS_VALUE) {
      complete = beginValue(nextInside());
      continue;
    }
    if (complete && stack.length === 0) return i;
    // After a key string, or after a value inside a container.
    const c = nextInside();
    const top = stack[stack.length - 1]!;
    if (!complete) {
      // Just read an object key.
      if (c !== 0x3a) throw syntaxError(c, 'after object key');
      stack[stack.length - 1] = Parse.ObjectValue;
      i++;
      complete = beginValue(nextInside());
      continue;
    }
    // After a value inside an object or an array: a comma and the next key or element, or the end.
    const inObject = top === Parse.ObjectValue;
    if (c === 0x2c) {
      i++;
      if (inObject) {
        stack[stack.length - 1] = Parse.ObjectKey;
        beginKey(nextInside());
        complete = false;
      } else {
        complete = beginValue(nextInside());
      }
      continue;
    }
    if (c === (inObject ? 0x7d : 0x5d)) {
      stack.pop();
      i++;
      complete = true;
      continue;
    }
    throw syntaxError(c, inObject ? 'after object key:value pair' : 'after array element');
  }
}

type JsonKind = 'object' | 'array' | 'string' | 'number' | 'bool' | 'null';

function kindOf(c: number): JsonKind {
  if (c === 0x7b) return 'object';
  if (c === 0x5b) return 'array';
  if (c === 0x22) return 'string';
  if (c === 0x74 || c === 0x66) return 'bool';
  if (c === 0x6e) return 'null';
  return 'number';
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

// A validated JSON string token as Go decodes it: invalid UTF-8 and lone surrogates become U+FFFD.
function decodeString(body: Uint8Array, start: number, end: number): string {
  // The scanner has validated the token: one without escapes or non-ASCII bytes is its own text.
  let plain = true;
  for (let i = start + 1; i < end - 1; i++) {
    const c = body[i]!;
    if (c === 0x5c || c >= 0x80) {
      plain = false;
      break;
    }
  }
  if (plain) {
    const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    return bytes.toString('latin1', start + 1, end - 1);
  }
  const text = JSON.parse(Buffer.from(body.buffer, body.byteOffset + start, end - start).toString('utf8')) as string;
  return text.replace(LONE_SURROGATE, '\uFFFD');
}

/** Go's case-insensitive field match (Go 1.21+ folding): ASCII case, and `ſ` folds to `s`. */
function matchesSpecKey(key: string): boolean {
  if (key === 'spec') return true;
  let folded = '';
  for (const ch of key) {
    if (ch === '\u017f') folded += 'S';
    else if (ch >= 'a' && ch <= 'z') folded += ch.toUpperCase();
    else folded += ch;
    if (folded.length > 4) return false;
  }
  return folded === 'SPEC';
}

// Offset past the validated value starting at `start`.
function skipValue(body: Uint8Array, start: number): number {
  const c = body[start]!;
  if (c === 0x22) return skipString(body, start);
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    let j = start;
    for (;;) {
      const d = body[j]!;
      if (d === 0x22) {
        j = skipString(body, j);
        continue;
      }
      if (d === 0x7b || d === 0x5b) depth++;
      else if (d === 0x7d || d === 0x5d) {
        depth--;
        if (depth === 0) return j + 1;
      }
      j++;
    }
  }
  let j = start;
  while (j < body.length) {
    const d = body[j]!;
    if (d === 0x2c || d === 0x7d || d === 0x5d || isSpace(d)) break;
    j++;
  }
  return j;
}

function skipString(body: Uint8Array, start: number): number {
  let j = start + 1;
  while (body[j] !== 0x22) j += body[j] === 0x5c ? 2 : 1;
  return j + 1;
}

function skipSpaceFrom(body: Uint8Array, j: number): number {
  while (j < body.length && isSpace(body[j]!)) j++;
  return j;
}

/**
 * The `spec` a /logspec PUT body carries, decoded as Fabric's Go code does; `''` (reset to
 * info) for `{}`, `null` or `{"spec":null}`. Throws a LogspecError (`INVALID_BODY`) whose
 * message is the text Go's decoder gives.
 */
export function decodeLogSpecBody(body: Uint8Array): string {
  const end = scanFirstValue(body);
  let j = skipSpaceFrom(body, 0);
  const kind = kindOf(body[j]!);
  if (kind === 'null') return '';
  if (kind !== 'object') throw invalidBody(`json: cannot unmarshal ${kind} into Go value of type httpadmin.LogSpec`);
  let spec = '';
  let typeError: LogspecError | undefined;
  j = skipSpaceFrom(body, j + 1);
  while (j < end && body[j] !== 0x7d) {
    const keyEnd = skipString(body, j);
    const key = decodeString(body, j, keyEnd);
    j = skipSpaceFrom(body, keyEnd) + 1; // past ':'
    j = skipSpaceFrom(body, j);
    const valueEnd = skipValue(body, j);
    if (matchesSpecKey(key)) {
      const valueKind = kindOf(body[j]!);
      if (valueKind === 'string') spec = decodeString(body, j, valueEnd);
      else if (valueKind !== 'null') {
        // Go keeps decoding and reports the first mismatch at the end.
        typeError ??= invalidBody(`json: cannot unmarshal ${valueKind} into Go struct field LogSpec.spec of type string`);
      }
    }
    j = skipSpaceFrom(body, valueEnd);
    if (body[j] === 0x2c) j = skipSpaceFrom(body, j + 1);
  }
  if (typeError !== undefined) throw typeError;
  return spec;
}

function kindOfValue(value: unknown): JsonKind {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'string') return 'string';
  return 'object';
}

/**
 * The same answer as decodeLogSpecBody for a body a framework already parsed (e.g.
 * `express.json()`): the same field match, types and Go texts. What parsing has already
 * lost cannot be judged again: syntax errors were the framework's to answer, and among
 * duplicate keys that differ only in case, the last in the object's key order wins.
 */
export function decodeParsedLogSpec(value: unknown): string {
  const kind = kindOfValue(value);
  if (kind === 'null') return '';
  if (kind !== 'object') throw invalidBody(`json: cannot unmarshal ${kind} into Go value of type httpadmin.LogSpec`);
  let spec = '';
  let typeError: LogspecError | undefined;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!matchesSpecKey(key)) continue;
    const field = record[key];
    const fieldKind = kindOfValue(field);
    if (fieldKind === 'string') spec = field as string;
    else if (fieldKind !== 'null') typeError ??= invalidBody(`json: cannot unmarshal ${fieldKind} into Go struct field LogSpec.spec of type string`);
  }
  if (typeError !== undefined) throw typeError;
  return spec;
}
