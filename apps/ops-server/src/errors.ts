import { errorGuard, FabricOpsError } from '@fabric-ops/ops-http/errors';

export type OpsServerErrorCode =
  | 'INVALID_LISTEN_ADDRESS'
  | 'LISTEN_FAILED'
  | 'ALREADY_STARTED'
  | 'INVALID_OPTIONS'
  /** A multi-process primary already holds as many spec changes as it queues: PUT /logspec answers 503. */
  | 'SPEC_CHANGES_BUSY';

/** Failures of the operations system itself; the message is the one line an operator sees. */
export class OpsServerError extends FabricOpsError<OpsServerErrorCode> {
  override readonly name = 'OpsServerError';

  protected override statusFor(code: OpsServerErrorCode): number {
    return code === 'SPEC_CHANGES_BUSY' ? 503 : 500;
  }
}

export const isOpsServerError: (value: unknown) => value is OpsServerError = errorGuard(OpsServerError, 'OpsServerError');
