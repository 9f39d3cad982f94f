// Go's strconv.Quote (the %q verb) for the texts that appear in Go's x509 error messages.

const ESCAPES: Readonly<Record<string, string>> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '"': '\\"',
  '\\': '\\\\',
};

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}

export function goQuote(text: string): string {
  let out = '"';
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    const escape = ESCAPES[ch];
    if (escape !== undefined) out += escape;
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${hex(cp, 2)}`;
    else if (cp < 0x7f) out += ch;
    // strconv.IsPrint: letters, marks, numbers, punctuation and symbols (U+FFFD among them); other spaces are escaped
    else if (!/[\p{L}\p{M}\p{N}\p{P}\p{S}]/u.test(ch)) {
      out += cp > 0xffff ? `\\U${hex(cp, 8)}` : `\\u${hex(cp, 4)}`;
    } else out += ch;
  }
  return `${out}"`;
}

/** %q of a Go string holding arbitrary bytes (given as Latin-1): invalid UTF-8 bytes become \xNN. */
export function goQuoteBytes(latin1: string): string {
  const b = Buffer.from(latin1, 'latin1');
  let out = '"';
  for (let i = 0; i < b.length;) {
    const c = b[i]!;
    let cp = -1;
    let size = 1;
    if (c < 0x80) cp = c;
    else {
      size = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
      if (size > 0 && i + size <= b.length) {
        const text = b.subarray(i, i + size);
        try {
          const decoded = new TextDecoder('utf-8', { fatal: true }).decode(text);
          if ([...decoded].length === 1) cp = decoded.codePointAt(0)!;
        } catch {
          cp = -1;
        }
      }
    }
    if (cp < 0) {
      out += `\\x${c.toString(16).padStart(2, '0')}`;
      i += 1;
      continue;
    }
    out += goQuote(String.fromCodePoint(cp)).slice(1, -1);
    i += size;
  }
  return `${out}"`;
}
