/** Every failure ops-health raises, by cause. */
export type HealthErrorCode =
  | 'ALREADY_REGISTERED'
  | 'INVALID_COMPONENT'
  | 'INVALID_CHECKER'
  | 'INVALID_OPTION'
  | 'INVALID_ENDPOINT'
  | 'CHECK_TIMED_OUT'
  | 'CHECK_DEREGISTERED';

export class HealthError extends Error {
  override readonly name = 'HealthError';
  readonly code: HealthErrorCode;

  constructor(code: HealthErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** True for a HealthError, also across duplicate copies of this package. */
export function isHealthError(value: unknown): value is HealthError {
  return value instanceof HealthError || (value instanceof Error && value.name === 'HealthError' && 'code' in value);
}
