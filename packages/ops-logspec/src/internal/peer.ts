import { createRequire } from 'node:module';
import { LogspecError } from '../errors.ts';

// The logger libraries are optional peers. The main entry loads pino only when createLogging is
// first called, so a program that logs with winston (and never installed pino) can import it.
const requirePeer = createRequire(import.meta.url);

/** The peer `name`, or a LogspecError (`PEER_MISSING`) saying what to install for `feature`. */
export function loadPeer<T>(name: string, feature: string): T {
  try {
    return requirePeer(name) as T;
  } catch (error) {
    // Only the peer itself missing, not something the installed peer fails to find.
    const missing = (error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND' && (error as Error).message.startsWith(`Cannot find module '${name}'`);
    if (!missing) throw error;
    throw new LogspecError('PEER_MISSING', `${feature} needs ${name}, an optional peer dependency of @fabric-ops/ops-logspec: npm install ${name}`, { cause: error });
  }
}
