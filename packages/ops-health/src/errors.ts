import { errorGuard, FabricOpsError } from '@fabric-ops/ops-http/errors';

/** Every failure ops-health raises, by cause. */
export type HealthErrorCode = 'ALREADY_REGISTERED' | 'INVALID_COMPONENT' | 'INVALID_CHECKER' | 'INVALID_OPTION' | 'INVALID_ENDPOINT' | 'CHECK_TIMED_OUT' | 'CHECK_DEREGISTERED';

export class HealthError extends FabricOpsError<HealthErrorCode> {
  override readonly name = 'HealthError';
}

/** True for a HealthError, also across duplicate copies of this package. */
export const isHealthError: (value: unknown) => value is HealthError = errorGuard(HealthError, 'HealthError');
