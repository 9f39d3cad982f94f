import { DECODE_CASES } from '@fabric-ops/test-kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isLogspecError, type LogspecError } from '../errors.ts';
import { decodeLogSpecBody } from './go-json.ts';

function decode(body: string | Buffer): { spec: string } | { error: string; code: string } {
  try {
    return { spec: decodeLogSpecBody(typeof body === 'string' ? Buffer.from(body) : body) };
  } catch (error) {
    if (!isLogspecError(error)) throw error;
    return { error: error.message, code: (error as LogspecError).code };
  }
}

describe('Fabric decode table (§2)', () => {
  // The table rows whose outcome is the decoder's own (the spec's validity is the registry's).
  const rows = DECODE_CASES.filter((row) => !row.name.startsWith('a spec Fabric rejects'));
  it.each(rows)('$name', (row) => {
    const result = decode(row.body);
    if (row.status === 400) expect(result).toEqual({ error: row.error, code: 'INVALID_BODY' });
    else expect('spec' in result).toBe(true);
  });

  it.each([
    ['{}', ''],
    ['null', ''],
    ['{"spec":null}', ''],
    ['{"spec":""}', ''],
    ['{"SPEC":"error"}', 'error'],
    ['{"sPeC":"x"}', 'x'],
    ['{"\u017fpec":"long s folds to s"}', 'long s folds to s'],
    ['{"spec":"debug","spec":"warn"}', 'warn'],
    ['{"spec":"debug","spec":null}', 'debug'],
    ['{"Spec":"a","spec":"b","SPEC":"c"}', 'c'],
    ['{"spec":"error"} junk', 'error'],
    ['{"spec":"warn"}{"spec":"debug"}', 'warn'],
    ['{"spec":"\\u0064ebug"}', 'debug'],
    ['  \n{ "spec" : "a=debug" , "x" : [ 1 , { "y" : "}" } ] }', 'a=debug'],
    ['{"specs":"ignored","spe":"ignored"}', ''],
    ['{"spec":"\\ud800"}', '\uFFFD'],
  ])('%s → %j', (body, spec) => {
    expect(decode(body)).toEqual({ spec });
  });

  it.each([
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a":1 "b"}', "invalid character '\"' after object key:value pair"],
    ['{1:2}', "invalid character '1' looking for beginning of object key string"],
    ['[1,]', "invalid character ']' looking for beginning of value"],
    ['[1 2]', "invalid character '2' after array element"],
    ['{"spec":tru}', "invalid character '}' in literal true (expecting 'e')"],
    ['{"spec":nul', 'unexpected EOF'],
    ['{"spec":-}', "invalid character '}' in numeric literal"],
    ['{"spec":1.}', "invalid character '}' after decimal point in numeric literal"],
    ['{"spec":1e}', "invalid character '}' in exponent of numeric literal"],
    ['{"spec":"\\q"}', "invalid character 'q' in string escape code"],
    ['{"spec":"\\u12g4"}', "invalid character 'g' in \\u hexadecimal character escape"],
    ['{"spec":"a\tb"}', "invalid character '\\t' in string literal"],
    ["'spec'", "invalid character '\\'' looking for beginning of value"],
    ['\u00e9', "invalid character 'Ã' looking for beginning of value"],
    ['\x01', "invalid character '\\x01' looking for beginning of value"],
    ['-', 'unexpected EOF'],
    ['{"spec":5,"spec":"debug"}', 'json: cannot unmarshal number into Go struct field LogSpec.spec of type string'],
    ['123junk', 'json: cannot unmarshal number into Go value of type httpadmin.LogSpec'],
    ['{"SPEC":false}', 'json: cannot unmarshal bool into Go struct field LogSpec.spec of type string'],
  ])('%j → %s', (body, message) => {
    expect(decode(body)).toEqual({ error: message, code: 'INVALID_BODY' });
  });

  it('refuses nesting deeper than Go allows without exhausting the stack', () => {
    expect(decode('['.repeat(10_001))).toEqual({ error: "invalid character '[' exceeded max depth", code: 'INVALID_BODY' });
    expect(decode(`{"x":${'['.repeat(9_000)}${']'.repeat(9_000)},"spec":"warn"}`)).toEqual({ spec: 'warn' });
  });
});

describe('decoder properties', () => {
  it('reads spec from any JSON object, whatever else it holds', () => {
    fc.assert(
      fc.property(fc.string(), fc.dictionary(fc.string(), fc.jsonValue()), (spec, extra) => {
        // Keys Go would also match as `spec` are left out; the test is about everything else.
        const others = Object.fromEntries(Object.entries(extra).filter(([key]) => key.replace(/\u017f/g, 's').toLowerCase() !== 'spec'));
        const body = JSON.stringify({ ...others, spec });
        expect(decode(body)).toEqual({
          spec: spec.replace(/[\uD800-\uDFFF]/g, (ch, at: number, s: string) => {
            const code = ch.charCodeAt(0);
            const pairedHigh = code <= 0xdbff && /[\uDC00-\uDFFF]/.test(s[at + 1] ?? '');
            const pairedLow = code >= 0xdc00 && /[\uD800-\uDBFF]/.test(s[at - 1] ?? '');
            return pairedHigh || pairedLow ? ch : '\uFFFD';
          }),
        });
      }),
      { numRuns: 1_000 },
    );
  });

  it('accepts every valid JSON text’s syntax: any failure is a type error', () => {
    fc.assert(
      fc.property(fc.json(), (text) => {
        const result = decode(text);
        if ('error' in result) expect(result.error).toMatch(/^json: cannot unmarshal (string|number|bool|array|object) into Go /);
      }),
      { numRuns: 2_000 },
    );
  });

  it('answers any byte string with a spec or an INVALID_BODY error, never anything else', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 40 }),
          fc.string().map((s) => Buffer.from(s)),
        ),
        (bytes) => {
          const result = decode(Buffer.from(bytes));
          if ('error' in result) expect(result.code).toBe('INVALID_BODY');
          else expect(typeof result.spec).toBe('string');
        },
      ),
      { numRuns: 5_000 },
    );
  });
});
