import type { Route } from '@fabric-ops/ops-http';

/**
 * One concern plugged into the operations system (logspec, health, metrics, version):
 * the routes it serves and what it must do when the system starts and stops.
 */
export interface SystemPart {
  readonly routes?: readonly Route[];
  /** Runs before the listener opens; a throw aborts start(). */
  start?(): void | Promise<void>;
  /** Runs the moment stop() begins, before connections drain (readiness turns false here). */
  beginShutdown?(): void;
  /** Runs after the listener has closed. */
  stop?(): void | Promise<void>;
}
