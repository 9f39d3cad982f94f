import { errorGuard, FabricOpsError } from './error-base.ts';

/** Every failure ops-http raises, by cause. */
export type OpsHttpErrorCode = 'BODY_TOO_LARGE' | 'BODY_ABORTED' | 'BAD_REQUEST_TARGET' | 'DUPLICATE_ROUTE' | 'INVALID_ROUTE';

export class OpsHttpError extends FabricOpsError<OpsHttpErrorCode> {
  override readonly name = 'OpsHttpError';

  protected override statusFor(code: OpsHttpErrorCode): number {
    return httpStatusFor(code);
  }
}

/** True for an OpsHttpError, also across duplicate copies of this package. */
export const isOpsHttpError: (value: unknown) => value is OpsHttpError = errorGuard(OpsHttpError, 'OpsHttpError');

/** The one place where ops-http failures become HTTP statuses. */
export function httpStatusFor(code: OpsHttpErrorCode): number {
  switch (code) {
    case 'BODY_TOO_LARGE':
      return 413;
    case 'BODY_ABORTED':
    case 'BAD_REQUEST_TARGET':
      return 400;
    case 'DUPLICATE_ROUTE':
    case 'INVALID_ROUTE':
      return 500;
  }
}
