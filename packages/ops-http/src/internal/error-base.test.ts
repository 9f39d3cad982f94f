import { describe, expect, it } from 'vitest';
import { errorGuard, FabricOpsError } from '@fabric-ops/ops-http/errors';
import { isOpsHttpError, OpsHttpError } from './errors.ts';

class SampleError extends FabricOpsError<'ONE' | 'TWO'> {
  override readonly name = 'SampleError';
}
const isSampleError = errorGuard(SampleError, 'SampleError');

describe('FabricOpsError', () => {
  it('carries the code, the message and the cause, and is an Error', () => {
    const cause = new Error('underneath');
    const error = new SampleError('TWO', 'what went wrong', { cause });
    expect(error).toBeInstanceOf(Error);
    expect(error).toBeInstanceOf(FabricOpsError);
    expect([error.name, error.code, error.message, error.cause]).toEqual(['SampleError', 'TWO', 'what went wrong', cause]);
  });

  it('recognises a second copy of a class by its name and field, and nothing else', () => {
    const copy = Object.assign(new Error('from another copy'), { name: 'SampleError', code: 'ONE' });
    expect(isSampleError(copy)).toBe(true);
    expect(isSampleError(new SampleError('ONE', 'x'))).toBe(true);
    expect(isSampleError(Object.assign(new Error('no code'), { name: 'SampleError' }))).toBe(false);
    expect(isSampleError({ name: 'SampleError', code: 'ONE' })).toBe(false);
    expect(isSampleError(new OpsHttpError('INVALID_ROUTE', 'x'))).toBe(false);
  });

  it('carries an HTTP status as status and statusCode: 500 unless the class names the code', () => {
    expect([new SampleError('ONE', 'x').status, new SampleError('ONE', 'x').statusCode]).toEqual([500, 500]);
    const tooLarge = new OpsHttpError('BODY_TOO_LARGE', 'too large');
    expect([tooLarge.status, tooLarge.statusCode]).toEqual([413, 413]);
    expect(new OpsHttpError('BODY_ABORTED', 'x').status).toBe(400);
    expect(new OpsHttpError('INVALID_ROUTE', 'x').statusCode).toBe(500);
  });

  it("is ops-http's own error base", () => {
    const error = new OpsHttpError('BODY_TOO_LARGE', 'too large');
    expect(error).toBeInstanceOf(FabricOpsError);
    expect(isOpsHttpError(error)).toBe(true);
  });
});
