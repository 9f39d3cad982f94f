import { writeJson, type Handler } from '@fabric-ops/ops-http';
import { createLoggingFromEnv, logspecHandler, type Logging, type LoggingRegistry } from '@fabric-ops/ops-logspec';
import type { IncomingMessage } from 'node:http';
import { isOpsServerError } from './errors.ts';
import type { SystemPart } from './part.ts';

/** The system's logger name when none is given (Fabric's `operations.runner`). */
export const DEFAULT_OPERATIONS_LOGGER_NAME = 'operations.runner';

/**
 * The given registry (either engine), or pino's built from FABRIC_LOGGING_SPEC /
 * FABRIC_LOGGING_FORMAT (throws LogspecError when invalid): an embedder who passes nothing gets
 * the pino-typed `Logging` the default type parameter promises. The bins pass the lean engine's.
 */
export function resolveLogging<L extends LoggingRegistry = Logging>(logging: L | undefined): L {
  return logging ?? (createLoggingFromEnv() as unknown as L);
}

/**
 * `/logspec`, a secure route as in Fabric. With TLS on, the audit line of each change
 * names the verified client certificate's subject.
 */
export function createLogspecPart(
  logging: LoggingRegistry,
  options: {
    /** With TLS on, ops-tls-auth's clientSubjectOf (the audit line's subject). */
    readonly identify?: ((req: IncomingMessage) => string | undefined) | undefined;
    readonly beforeSpecChange?: ((spec: string) => Promise<void>) | undefined;
  },
): SystemPart {
  const handler = logspecHandler(logging, {
    ...(options.identify === undefined ? {} : { identify: options.identify }),
    ...(options.beforeSpecChange === undefined ? {} : { beforeActivate: options.beforeSpecChange }),
  });
  if (options.beforeSpecChange === undefined) return { routes: [{ path: '/logspec', secure: true, handler }] };
  // A primary whose queue of spec changes is full refuses the change (nothing is applied) with
  // 503 and Retry-After, in /logspec's error shape, instead of the router's bare 500.
  const guarded: Handler = (req, res) => {
    const result = handler(req, res);
    if (!(result instanceof Promise)) return result;
    return result.catch((error: unknown) => {
      if (!isOpsServerError(error) || error.code !== 'SPEC_CHANGES_BUSY' || res.headersSent) throw error;
      writeJson(res, 503, { error: error.message }, { trailingNewline: true, headers: { 'Retry-After': '1' } });
    });
  };
  return { routes: [{ path: '/logspec', secure: true, handler: guarded }] };
}
