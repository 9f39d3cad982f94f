/** Every failure ops-tls-auth raises, by cause. */
export type TlsAuthErrorCode =
  | 'FILE_UNREADABLE'
  | 'NOT_PEM'
  | 'KEY_MISMATCH'
  | 'INVALID_SETTINGS'
  | 'INVALID_ALLOW_LIST';

/** A TLS set-up failure; `message` is one line naming the config key and the file. */
export class TlsAuthError extends Error {
  override readonly name = 'TlsAuthError';
  readonly code: TlsAuthErrorCode;

  constructor(code: TlsAuthErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** True for a TlsAuthError, also across duplicate copies of this package. */
export function isTlsAuthError(value: unknown): value is TlsAuthError {
  return value instanceof TlsAuthError || (value instanceof Error && value.name === 'TlsAuthError' && 'code' in value);
}
