import { createLoggingFromEnv, logspecHandler, type Logging } from '@fabric-ops/ops-logspec';
import { clientSubjectOf } from '@fabric-ops/ops-tls-auth';
import type { SystemPart } from './part.ts';

/** The system's logger name when none is given (Fabric's `operations.runner`). */
export const DEFAULT_OPERATIONS_LOGGER_NAME = 'operations.runner';

/** The given registry, or one built from FABRIC_LOGGING_SPEC / FABRIC_LOGGING_FORMAT (throws LogspecError when invalid). */
export function resolveLogging(logging: Logging | undefined): Logging {
  return logging ?? createLoggingFromEnv();
}

/**
 * `/logspec`, a secure route as in Fabric. With TLS on, the audit line of each change
 * names the verified client certificate's subject.
 */
export function createLogspecPart(
  logging: Logging,
  options: { readonly tlsEnabled: boolean; readonly beforeSpecChange?: ((spec: string) => Promise<void>) | undefined },
): SystemPart {
  const handler = logspecHandler(logging, {
    ...(options.tlsEnabled ? { identify: clientSubjectOf } : {}),
    ...(options.beforeSpecChange === undefined ? {} : { beforeActivate: options.beforeSpecChange }),
  });
  return { routes: [{ path: '/logspec', secure: true, handler }] };
}
