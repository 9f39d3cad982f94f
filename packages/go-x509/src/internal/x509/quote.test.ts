import { describe, expect, it } from 'vitest';
import { goQuote, goQuoteBytes } from './quote.ts';

// What Go 1.26's fmt %q prints for each input (go run, strconv.Quote): printable means a letter,
// mark, number, punctuation or symbol (U+FFFD is a symbol), or the ASCII space; every other
// space, format and private-use character is escaped.
describe('goQuote', () => {
  it.each([
    ['a b', '"a b"'],
    ['a\u00a0b', '"a\\u00a0b"'],
    ['a\u3000b', '"a\\u3000b"'],
    ['a\ufffdb', '"a\ufffdb"'],
    ['a\u2028b', '"a\\u2028b"'],
    ['a\u200bb', '"a\\u200bb"'],
    ['a\u{1F600}b', '"a\u{1F600}b"'],
    ['a\u0301b', '"a\u0301b"'],
    ['a\ue000b', '"a\\ue000b"'],
    ['tab\tquote"back\\', '"tab\\tquote\\"back\\\\"'],
    ['\x00\x7f', '"\\x00\\x7f"'],
  ])('%j → %s', (input, quoted) => {
    expect(goQuote(input)).toBe(quoted);
  });

  it('quotes invalid UTF-8 bytes as \\xNN and valid sequences as goQuote does', () => {
    expect(goQuoteBytes('a\xffb')).toBe('"a\\xffb"');
    expect(goQuoteBytes(Buffer.from('a\ufffd\u00a0b').toString('latin1'))).toBe('"a\ufffd\\u00a0b"');
  });
});
