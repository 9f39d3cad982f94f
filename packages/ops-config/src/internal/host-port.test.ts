import { describe, expect, it } from 'vitest';
import { isConfigError } from './errors.ts';
import { parseHostPort } from './host-port.ts';

// The grammar itself (Go's net.SplitHostPort) is ops-http's splitHostPort, tested there.
describe('parseHostPort', () => {
  it('gives the parsed address', () => {
    expect(parseHostPort('[::1]:9443')).toEqual({ host: '::1', port: 9443 });
    expect(parseHostPort(':0')).toEqual({ host: '', port: 0 });
  });

  it("throws a ConfigError whose one problem is Go's text", () => {
    let caught: unknown;
    try {
      parseHostPort('127.0.0.1');
    } catch (error) {
      caught = error;
    }
    expect(isConfigError(caught) && caught.problems).toEqual(['address 127.0.0.1: missing port in address']);
  });
});
