import { errorGuard, FabricOpsError } from '@fabric-ops/ops-http/errors';

/** Every failure ops-tls-auth raises, by cause. */
export type TlsAuthErrorCode = 'FILE_UNREADABLE' | 'NOT_PEM' | 'KEY_MISMATCH' | 'INVALID_SETTINGS' | 'INVALID_ALLOW_LIST';

/** A TLS set-up failure; `message` is one line naming the config key and the file. */
export class TlsAuthError extends FabricOpsError<TlsAuthErrorCode> {
  override readonly name = 'TlsAuthError';
}

/** True for a TlsAuthError, also across duplicate copies of this package. */
export const isTlsAuthError: (value: unknown) => value is TlsAuthError = errorGuard(TlsAuthError, 'TlsAuthError');
