import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decodePem, goBase64Decode, goBase64DecodeByRule } from './pem.ts';

function blocks(text: string): { type: string; hasHeaders: boolean; hex: string }[] {
  const out: { type: string; hasHeaders: boolean; hex: string }[] = [];
  let rest = text;
  for (;;) {
    const d = decodePem(rest);
    if (d === undefined) return out;
    out.push({ type: d.block.type, hasHeaders: d.block.hasHeaders, hex: Buffer.from(d.block.bytes).toString('hex') });
    rest = d.rest;
  }
}

describe("encoding/pem.Decode's rules", () => {
  it.each([
    ['a plain block', '-----BEGIN X-----\nAQID\n-----END X-----\n', [{ type: 'X', hasHeaders: false, hex: '010203' }]],
    ['text before and after', 'junk\n-----BEGIN X-----\nAQID\n-----END X-----\ntrailer', [{ type: 'X', hasHeaders: false, hex: '010203' }]],
    ['CRLF and blanks inside the body', '-----BEGIN X-----\r\nAQ ID\t\r\n-----END X-----\r\n', [{ type: 'X', hasHeaders: false, hex: '010203' }]],
    ['headers', '-----BEGIN X-----\nA: b\n\nAQID\n-----END X-----\n', [{ type: 'X', hasHeaders: true, hex: '010203' }]],
    ['an END line for another type', '-----BEGIN X-----\nAQID\n-----END Y-----\n', []],
    ['text after the END marker on its line', '-----BEGIN X-----\nAQID\n-----END X----- z\n', []],
    ['spaces after the END marker', '-----BEGIN X-----\nAQID\n-----END X-----  \n', [{ type: 'X', hasHeaders: false, hex: '010203' }]],
    ['bad base64 skips to the next block', '-----BEGIN X-----\nA!ID\n-----END X-----\n-----BEGIN Y-----\nAQ==\n-----END Y-----\n', [{ type: 'Y', hasHeaders: false, hex: '01' }]],
    ['BEGIN not at a line start', 'x-----BEGIN X-----\nAQID\n-----END X-----\n', []],
    [
      'two blocks',
      '-----BEGIN A-----\nAQ==\n-----END A-----\n-----BEGIN B-----\nAg==\n-----END B-----\n',
      [
        { type: 'A', hasHeaders: false, hex: '01' },
        { type: 'B', hasHeaders: false, hex: '02' },
      ],
    ],
    ['an empty body', '-----BEGIN X-----\n-----END X-----\n', [{ type: 'X', hasHeaders: false, hex: '' }]],
    ['headers running to the end', '-----BEGIN X-----\nA: b\n', []],
  ] as const)('%s', (_name, text, expected) => {
    expect(blocks(text)).toEqual(expected);
  });
});

describe("base64.StdEncoding.Decode's rules", () => {
  it.each([
    ['AQID', '010203'],
    ['AQ==', '01'],
    ['AQI=', '0102'],
    ['AR==', '01'],
    ['AQ=\n=', '01'],
    ['AQ==\r\n', '01'],
    ['AQ', undefined],
    ['A===', undefined],
    ['AQ==AQ==', undefined],
    ['AQ=', undefined],
    ['=AAA', undefined],
    ['AQ-_', undefined],
    ['', ''],
  ] as const)('%j', (input, hex) => {
    for (const decode of [goBase64Decode, goBase64DecodeByRule]) {
      const out = decode(input);
      expect(out === undefined ? undefined : Buffer.from(out).toString('hex')).toBe(hex);
    }
  });

  const hexOf = (out: Uint8Array | undefined): string | undefined => (out === undefined ? undefined : Buffer.from(out).toString('hex'));
  const withBreaks = (text: string, breaks: readonly [number, string][]): string => {
    let out = text;
    for (const [at, brk] of breaks) {
      const i = at % (out.length + 1);
      out = out.slice(0, i) + brk + out.slice(i);
    }
    return out;
  };
  const breaks = fc.array(fc.tuple(fc.nat(), fc.constantFrom('\n', '\r\n', '\r')), { maxLength: 6 });

  it('decodes canonical text (any bytes, line breaks anywhere) as the rule-by-rule decoder does', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), breaks, (bytes, at) => {
        const text = withBreaks(Buffer.from(bytes).toString('base64'), at);
        expect(hexOf(goBase64Decode(text))).toBe(Buffer.from(bytes).toString('hex'));
        expect(hexOf(goBase64Decode(text))).toBe(hexOf(goBase64DecodeByRule(text)));
      }),
      { numRuns: 500 },
    );
  });

  it('agrees with the rule-by-rule decoder on any text over the alphabet, padding, breaks and strangers', () => {
    const char = fc.constantFrom(...'AQRZaz09+/===\n\r-_ .é'.split(''));
    fc.assert(
      fc.property(fc.array(char, { maxLength: 24 }), (chars) => {
        const text = chars.join('');
        expect(hexOf(goBase64Decode(text))).toBe(hexOf(goBase64DecodeByRule(text)));
      }),
      { numRuns: 5000 },
    );
  });
});
