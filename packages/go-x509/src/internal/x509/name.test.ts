import { describe, expect, it } from 'vitest';
import { parseAsn1String, parseName } from './name.ts';

const b = (...x: number[]): Uint8Array => Uint8Array.from(x);
const t = (s: string): Uint8Array => Uint8Array.from(Buffer.from(s, 'latin1'));

describe("attribute values with Go 1.26's string rules", () => {
  it.each([
    ['PrintableString letters, digits, space and punctuation', 0x13, t("Az09 '()+,-./:=?"), "Az09 '()+,-./:=?"],
    ['PrintableString with * and &, which Go lets through', 0x13, t('*.a&b'), '*.a&b'],
    ['PrintableString with @', 0x13, t('a@b'), { error: 'invalid PrintableString' }],
    ['PrintableString with _', 0x13, t('a_b'), { error: 'invalid PrintableString' }],
    ['PrintableString with an 8-bit byte', 0x13, b(0xe9), { error: 'invalid PrintableString' }],
    ['IA5String ASCII', 0x16, t('a@b_c~'), 'a@b_c~'],
    ['IA5String 8-bit', 0x16, b(0x61, 0x80), { error: 'invalid IA5String' }],
    ['UTF8String valid', 0x0c, b(0xc3, 0xa9), 'é'],
    ['UTF8String overlong', 0x0c, b(0xc0, 0xaf), { error: 'invalid UTF-8 string' }],
    ['UTF8String surrogate', 0x0c, b(0xed, 0xa0, 0x80), { error: 'invalid UTF-8 string' }],
    ['BMPString', 0x1e, b(0x00, 0x41, 0x00, 0xe9), 'Aé'],
    ['BMPString with a terminator', 0x1e, b(0x00, 0x41, 0x00, 0x00), 'A'],
    ['BMPString with a lone surrogate', 0x1e, b(0xd8, 0x00), { error: 'invalid BMPString' }],
    ['BMPString with a noncharacter', 0x1e, b(0xff, 0xfe), { error: 'invalid BMPString' }],
    ['BMPString odd length', 0x1e, b(0x00), { error: 'invalid BMPString' }],
    ['T61String any bytes', 0x14, b(0xff, 0x00), '\xff\x00'],
    ['NumericString digits and space', 0x12, t('12 3'), '12 3'],
    ['NumericString letter', 0x12, t('1a'), { error: 'invalid NumericString' }],
    ['UniversalString', 0x1c, b(0, 0, 0, 0x41), { error: 'unsupported string type: 28' }],
    ['VisibleString', 0x1a, t('a'), { error: 'unsupported string type: 26' }],
    ['constructed UTF8String', 0x2c, t('a'), { error: 'unsupported string type: 44' }],
  ] as const)('%s', (_name, tag, value, expected) => {
    expect(parseAsn1String(tag, value)).toEqual(typeof expected === 'string' ? { value: expected } : expected);
  });

  it('reads every attribute of a multi-valued RDN in order', () => {
    // SEQUENCE { SET { CN=a, O=b } }
    const name = b(0x30, 0x14, 0x31, 0x12, 0x30, 0x08, 0x06, 0x03, 0x55, 0x04, 0x03, 0x0c, 0x01, 0x61, 0x30, 0x06, 0x06, 0x03, 0x55, 0x04, 0x0a, 0x13);
    expect(parseName(name)).toBe('x509: invalid RDNSequence: invalid attribute value');
    const good = b(0x30, 0x15, 0x31, 0x13, 0x30, 0x08, 0x06, 0x03, 0x55, 0x04, 0x03, 0x0c, 0x01, 0x61, 0x30, 0x07, 0x06, 0x03, 0x55, 0x04, 0x0a, 0x13, 0x00);
    expect(parseName(good)).toEqual([
      { type: '2.5.4.3', value: 'a' },
      { type: '2.5.4.10', value: '' },
    ]);
  });

  it('refuses an RDN that is not a SET', () => {
    expect(parseName(b(0x30, 0x02, 0x30, 0x00))).toBe('x509: invalid RDNSequence');
  });
});
