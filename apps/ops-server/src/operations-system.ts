import * as tlsAuth from '@fabric-ops/ops-tls-auth';
import { SYSTEM_EXTENSIONS } from './system-extensions.ts';
import type { Logging, LoggingRegistry } from '@fabric-ops/ops-logspec';
import { createSystem, type OperationsSystem, type OperationsSystemOptions, type SystemExtensions } from './system.ts';

// What an embedder calls, with ops-tls-auth imported: an embedder's `createOperationsSystem`
// stays synchronous with TLS on. The apps' start-up sequence (`./app`) calls createSystem itself
// and loads ops-tls-auth only when TLS is on.
export function createOperationsSystem<L extends LoggingRegistry = Logging>(options: OperationsSystemOptions<L>): OperationsSystem<L> {
  // The `./cluster` entry's primary passes its hooks here (and uses the ExtendedSystem returned).
  const extensions = (options as { readonly [SYSTEM_EXTENSIONS]?: SystemExtensions } | undefined)?.[SYSTEM_EXTENSIONS];
  return createSystem(options, { tlsAuth, ...extensions });
}
