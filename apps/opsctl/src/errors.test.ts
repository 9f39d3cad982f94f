import { describe, expect, it } from 'vitest';
import { FabricOpsError } from '@fabric-ops/ops-http/errors';
import { exitCodeFor, isOpsctlError, OpsctlError } from './errors.ts';

describe('OpsctlError', () => {
  it("extends ops-http's one error base and keeps its code and exit code", () => {
    const error = new OpsctlError('TLS', 'handshake failed');
    expect(error).toBeInstanceOf(FabricOpsError);
    expect([error.name, error.code, exitCodeFor(error.code)]).toEqual(['OpsctlError', 'TLS', 4]);
    expect(isOpsctlError(Object.assign(new Error('copy'), { name: 'OpsctlError', code: 'USAGE' }))).toBe(true);
    expect(isOpsctlError(new Error('plain'))).toBe(false);
  });
});
