import { describe, expect, it } from 'vitest';
import { parseAddr } from './netip.ts';
import { parseNetipAddr } from './names.ts';

// Each verdict and text printed by Go 1.26.8's netip.ParseAddr for the same input.
const GO: readonly (readonly [string, 4 | 6 | string])[] = [
  ['10.0.0.1', 4],
  ['::1', 6],
  ['fe80::1%eth0', 6],
  ['fe80::1%', 'ParseAddr("fe80::1%"): zone must be a non-empty string'],
  ['%eth0', 'ParseAddr("%eth0"): missing IPv6 address'],
  ['010.0.0.1', 'ParseAddr("010.0.0.1"): IPv4 field has octet with leading zero'],
  ['example.com', 'ParseAddr("example.com"): unexpected character (at "example.com")'],
  ['1.2.3', 'ParseAddr("1.2.3"): IPv4 address too short'],
  ['1.2.3.4.5', 'ParseAddr("1.2.3.4.5"): IPv4 address too long'],
  ['1..2.3', 'ParseAddr("1..2.3"): IPv4 field must have at least one digit (at ".2.3")'],
  ['.1.2.3', 'ParseAddr(".1.2.3"): IPv4 field must have at least one digit (at ".1.2.3")'],
  ['1.2.3.', 'ParseAddr("1.2.3."): IPv4 field must have at least one digit (at ".")'],
  ['1.2.3.256', 'ParseAddr("1.2.3.256"): IPv4 field has value >255'],
  ['1.2.3.x', 'ParseAddr("1.2.3.x"): unexpected character (at "x")'],
  ['12345::', 'ParseAddr("12345::"): each group must have 4 or less digits (at "12345::")'],
  ['1:2:3:4:5:6:7:8:9', 'ParseAddr("1:2:3:4:5:6:7:8:9"): trailing garbage after address (at "9")'],
  ['1:2:3:4:5:6:7:8', 6],
  ['1::2::3', 'ParseAddr("1::2::3"): multiple :: in address (at ":3")'],
  ['1:', 'ParseAddr("1:"): colon must be followed by more characters (at ":")'],
  ['1:2:3:4:5:6:7', 'ParseAddr("1:2:3:4:5:6:7"): address string too short'],
  ['::ffff:1.2.3.4', 6],
  ['1:2:3:4:5:6:7:1.2.3.4', 'ParseAddr("1:2:3:4:5:6:7:1.2.3.4"): embedded IPv4 address must replace the final 2 fields of the address (at "1.2.3.4")'],
  ['::1.2.3.4.5', 'ParseAddr("::1.2.3.4.5"): IPv4 address too long'],
  ['1:2::3:4:5:6:7:8', 'ParseAddr("1:2::3:4:5:6:7:8"): the :: must expand to at least one field of zeros'],
  ['1:2:3:4:5:6:7:8::', 'ParseAddr("1:2:3:4:5:6:7:8::"): the :: must expand to at least one field of zeros'],
  [':1', 'ParseAddr(":1"): each colon-separated field must have at least one digit (at ":1")'],
  ['1:2:3:4:5:6:7:8x', 'ParseAddr("1:2:3:4:5:6:7:8x"): unexpected character, want colon (at "x")'],
  ['::', 6],
  ['fffff::', 'ParseAddr("fffff::"): each group must have 4 or less digits (at "fffff::")'],
  ['g::', 'ParseAddr("g::"): each colon-separated field must have at least one digit (at "g::")'],
  ['1.2.3.04', 'ParseAddr("1.2.3.04"): IPv4 field has octet with leading zero'],
  ['::1%', 'ParseAddr("::1%"): zone must be a non-empty string'],
  ['1:2:3:4:5:6::1.2.3.4', 'ParseAddr("1:2:3:4:5:6::1.2.3.4"): the :: must expand to at least one field of zeros'],
  ['1:2:3:4:5:6:7::1.2.3.4', 'ParseAddr("1:2:3:4:5:6:7::1.2.3.4"): too many hex fields to fit an embedded IPv4 at the end of the address (at "1.2.3.4")'],
  ['', 'ParseAddr(""): unable to parse IP'],
];

describe('net/netip.ParseAddr (Go 1.26), verdicts and texts', () => {
  it.each(GO)('%j', (input, go) => {
    expect(parseAddr(input)).toEqual(typeof go === 'string' ? { error: go } : go);
    expect(parseNetipAddr(input)).toBe(typeof go === 'string' ? undefined : go);
  });
});
