/** Every failure ops-http raises, by cause. */
export type OpsHttpErrorCode =
  | 'BODY_TOO_LARGE'
  | 'BODY_ABORTED'
  | 'BAD_REQUEST_TARGET'
  | 'DUPLICATE_ROUTE'
  | 'INVALID_ROUTE';

export class OpsHttpError extends Error {
  override readonly name = 'OpsHttpError';
  readonly code: OpsHttpErrorCode;

  constructor(code: OpsHttpErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** True for an OpsHttpError, also across duplicate copies of this package. */
export function isOpsHttpError(value: unknown): value is OpsHttpError {
  return value instanceof OpsHttpError || (value instanceof Error && value.name === 'OpsHttpError' && 'code' in value);
}

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
