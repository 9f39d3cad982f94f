// encoding/pem.Decode of Go 1.19, byte for byte: which blocks a CA file yields, with their type,
// whether they carry headers, and their decoded bytes. Works on Latin-1 strings of the file bytes.

export interface PemBlock {
  readonly type: string;
  readonly hasHeaders: boolean;
  readonly bytes: Uint8Array;
}

function trimRightSpaceTab(s: string): string {
  let end = s.length;
  while (end > 0 && (s[end - 1] === ' ' || s[end - 1] === '\t')) end--;
  return s.slice(0, end);
}

function getLine(data: string): { line: string; rest: string } {
  let i = data.indexOf('\n');
  let j: number;
  if (i < 0) {
    i = data.length;
    j = i;
  } else {
    j = i + 1;
    if (i > 0 && data[i - 1] === '\r') i--;
  }
  return { line: trimRightSpaceTab(data.slice(0, i)), rest: data.slice(j) };
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64_VALUES = new Int16Array(256).fill(-1);
for (let i = 0; i < B64.length; i++) B64_VALUES[B64.charCodeAt(i)] = i;

// Line breaks taken out, nothing but the alphabet, then at most two '=' at the end.
const CANONICAL_BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * base64.StdEncoding.Decode: padding required, CR and LF skipped, trailing bits not checked.
 * Every PEM a server loads at start (its certificate, the client CA files) is canonical, and for
 * canonical text Node's decoder gives the same bytes; anything else takes Go's rules one character
 * at a time (goBase64DecodeByRule). Besides its own cost, the character loop ran often enough at
 * start to wake V8's optimizing compiler in an idle server.
 */
export function goBase64Decode(text: string): Uint8Array | undefined {
  const compact = text.includes('\n') || text.includes('\r') ? text.replace(/[\r\n]/g, '') : text;
  if (compact.length % 4 === 0 && CANONICAL_BASE64.test(compact)) return new Uint8Array(Buffer.from(compact, 'base64'));
  return goBase64DecodeByRule(text);
}

/** goBase64Decode's rules applied one character at a time: the reference for any input. */
export function goBase64DecodeByRule(text: string): Uint8Array | undefined {
  const out: number[] = [];
  let i = 0;
  const n = text.length;
  const next = (): string | undefined => {
    while (i < n && (text[i] === '\r' || text[i] === '\n')) i++;
    return i < n ? text[i++] : undefined;
  };
  for (;;) {
    const quantum: number[] = [];
    let padded = false;
    for (let j = 0; j < 4; j++) {
      const c = next();
      if (c === undefined) {
        if (j === 0) return new Uint8Array(out);
        return undefined;
      }
      if (c === '=') {
        // Padding may only take the third and fourth places, both of them at the third.
        if (j < 2) return undefined;
        if (j === 2) {
          const c2 = next();
          if (c2 !== '=') return undefined;
        }
        // Only line breaks may follow padding.
        if (next() !== undefined) return undefined;
        padded = true;
        break;
      }
      const v = B64_VALUES[c.charCodeAt(0) & 0xff]!;
      if (v < 0 || c.charCodeAt(0) > 0xff) return undefined;
      quantum.push(v);
    }
    const [a, b, c, d] = quantum;
    if (quantum.length >= 2) out.push(((a! << 2) | (b! >> 4)) & 0xff);
    if (quantum.length >= 3) out.push(((b! << 4) | (c! >> 2)) & 0xff);
    if (quantum.length === 4) out.push(((c! << 6) | d!) & 0xff);
    if (padded) return new Uint8Array(out);
  }
}

const PEM_START = '\n-----BEGIN ';
const PEM_END = '\n-----END ';
const EOL = '-----';

/** One pem.Decode step: the block and the rest, or undefined when no further block can be found. */
export function decodePem(data: string): { block: PemBlock; rest: string } | undefined {
  let rest = data;
  for (;;) {
    if (rest.startsWith(PEM_START.slice(1))) rest = rest.slice(PEM_START.length - 1);
    else {
      const k = rest.indexOf(PEM_START);
      if (k < 0) return undefined;
      rest = rest.slice(k + PEM_START.length);
    }
    const typeLineRead = getLine(rest);
    let typeLine = typeLineRead.line;
    rest = typeLineRead.rest;
    if (!typeLine.endsWith(EOL)) continue;
    typeLine = typeLine.slice(0, typeLine.length - EOL.length);

    let headers = 0;
    let ranOut = false;
    for (;;) {
      if (rest.length === 0) {
        ranOut = true;
        break;
      }
      const { line, rest: next } = getLine(rest);
      // Any line with a colon is a header; only whether there are any matters to the pool.
      if (!line.includes(':')) break;
      headers++;
      rest = next;
    }
    if (ranOut) return undefined;

    let endIndex: number;
    let endTrailerIndex: number;
    if (headers === 0 && rest.startsWith(PEM_END.slice(1))) {
      endIndex = 0;
      endTrailerIndex = PEM_END.length - 1;
    } else {
      endIndex = rest.indexOf(PEM_END);
      endTrailerIndex = endIndex + PEM_END.length;
    }
    if (endIndex < 0) continue;

    let endTrailer = rest.slice(endTrailerIndex);
    const endTrailerLen = typeLine.length + EOL.length;
    if (endTrailer.length < endTrailerLen) continue;
    const restOfEndLine = endTrailer.slice(endTrailerLen);
    endTrailer = endTrailer.slice(0, endTrailerLen);
    if (!endTrailer.startsWith(typeLine) || !endTrailer.endsWith(EOL)) continue;
    if (getLine(restOfEndLine).line.length !== 0) continue;

    const base64Data = rest.slice(0, endIndex).replace(/[ \t]/g, '');
    const bytes = goBase64Decode(base64Data);
    if (bytes === undefined) continue;
    const after = getLine(rest.slice(endIndex + PEM_END.length - 1));
    return { block: { type: typeLine, hasHeaders: headers > 0, bytes }, rest: after.rest };
  }
}
