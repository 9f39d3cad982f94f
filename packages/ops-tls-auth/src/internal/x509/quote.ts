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
    else if (cp === 0xfffd || /\p{C}|\p{Z}/u.test(ch) && ch !== ' ' && !/\p{Zs}/u.test(ch)) {
      out += cp > 0xffff ? `\\U${hex(cp, 8)}` : `\\u${hex(cp, 4)}`;
    } else out += ch;
  }
  return `${out}"`;
}
