import { errorGuard, FabricOpsError } from '@fabric-ops/ops-http/errors';

/** Every failure ops-logspec raises, by cause. */
export type LogspecErrorCode =
  /** A field is neither a level nor `loggers=level` (Fabric: `bad segment '<field>'`). */
  | 'BAD_SEGMENT'
  /** `=level` with nothing before the `=` (Fabric: `no logger specified in segment '<field>'`). */
  | 'NO_LOGGER'
  /** A logger name breaks Fabric's naming rule (Fabric: `bad logger name '<name>'`). */
  | 'BAD_LOGGER_NAME'
  /** `FABRIC_LOGGING_FORMAT` (or the `format` option) names no known output format. */
  | 'INVALID_FORMAT'
  /** A `/logspec` PUT body that Go's `json.Decoder` would refuse; the message is Go's. */
  | 'INVALID_BODY'
  /** An adapter's logger library (an optional peer dependency) is not installed. */
  | 'PEER_MISSING'
  /** Options that contradict each other, or an adapter given something it cannot follow. */
  | 'INVALID_OPTIONS';

/** The codes a `/logspec` PUT body can cause: a handler surfacing one answers 400, as Fabric does. */
const CLIENT_CODES: ReadonlySet<LogspecErrorCode> = new Set(['BAD_SEGMENT', 'NO_LOGGER', 'BAD_LOGGER_NAME', 'INVALID_BODY']);

export class LogspecError extends FabricOpsError<LogspecErrorCode> {
  override readonly name = 'LogspecError';

  protected override statusFor(code: LogspecErrorCode): number {
    return CLIENT_CODES.has(code) ? 400 : 500;
  }
}

/** True for a LogspecError, also across duplicate copies of this package. */
export const isLogspecError: (value: unknown) => value is LogspecError = errorGuard(LogspecError, 'LogspecError');
