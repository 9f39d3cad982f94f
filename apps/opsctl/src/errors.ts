import { errorGuard, FabricOpsError } from '@fabric-ops/ops-http/errors';

/** Every way an opsctl command can fail, by cause. Each maps to one exit code. */
export type OpsctlErrorCode =
  /** Bad command line, or an unreadable --cert/--key/--cacert file. */
  | 'USAGE'
  /** Nothing answered: refused, unresolvable host, timeout, connection dropped. */
  | 'UNREACHABLE'
  /** The TLS handshake failed or the server wants a client certificate (401). */
  | 'TLS'
  /** The server answered, but not in a way the command understands (404, 5xx, bad JSON). */
  | 'UNEXPECTED_RESPONSE'
  /** The server understood and said no: unhealthy, or the logging spec was rejected. */
  | 'REFUSED';

export class OpsctlError extends FabricOpsError<OpsctlErrorCode> {
  override readonly name = 'OpsctlError';
}

/** True for an OpsctlError, also across duplicate copies of this package. */
export const isOpsctlError: (value: unknown) => value is OpsctlError = errorGuard(OpsctlError, 'OpsctlError');

/** Process exit codes; documented in the README and stable across releases. */
export const EXIT_CODES: {
  readonly OK: 0;
  readonly REFUSED: 1;
  readonly USAGE: 2;
  readonly UNREACHABLE: 3;
  readonly TLS: 4;
  readonly UNEXPECTED_RESPONSE: 5;
} = {
  OK: 0,
  REFUSED: 1,
  USAGE: 2,
  UNREACHABLE: 3,
  TLS: 4,
  UNEXPECTED_RESPONSE: 5,
} as const satisfies Record<'OK' | OpsctlErrorCode, number>;

export function exitCodeFor(code: OpsctlErrorCode): number {
  return EXIT_CODES[code];
}
