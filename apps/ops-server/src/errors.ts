export type OpsServerErrorCode =
  | 'INVALID_LISTEN_ADDRESS'
  | 'LISTEN_FAILED'
  | 'ALREADY_STARTED'
  | 'INVALID_OPTIONS'
  /** A multi-process primary already holds as many spec changes as it queues: PUT /logspec answers 503. */
  | 'SPEC_CHANGES_BUSY';

/** Failures of the operations system itself; the message is the one line an operator sees. */
export class OpsServerError extends Error {
  override readonly name = 'OpsServerError';
  readonly code: OpsServerErrorCode;

  constructor(code: OpsServerErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

export function isOpsServerError(value: unknown): value is OpsServerError {
  return value instanceof OpsServerError || (value instanceof Error && value.name === 'OpsServerError' && 'code' in value);
}
