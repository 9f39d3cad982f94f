import { createHealthEndpoints, createHealthRegistry, type HealthOptions, type HealthRegistry, type Readiness } from '@fabric-ops/ops-health';
import type { SystemPart } from './part.ts';

/** The health concern as a system part: the /healthz family of routes, the checker registry and the readiness gates. */
export interface HealthPart extends SystemPart {
  readonly registry: HealthRegistry;
  readonly readiness: Readiness;
}

export interface HealthPartOptions {
  readonly health?: HealthOptions | undefined;
  /** /readyz waits for `readiness.signalReady()` (the bins leave this off: ready once the checks pass). */
  readonly requireReadySignal?: boolean | undefined;
}

/**
 * Serves `/healthz` (Fabric), `/healthz/<component>`, `/livez` and `/readyz`; readiness
 * turns false the moment the system begins to stop, so traffic drains first. Background
 * checks, when configured, run from start() to stop().
 */
export function createHealthPart(options: HealthPartOptions = {}): HealthPart {
  const registry = createHealthRegistry(options.health);
  const endpoints = createHealthEndpoints(registry, { requireReadySignal: options.requireReadySignal === true });
  return {
    registry,
    readiness: endpoints.readiness,
    routes: endpoints.routes,
    start: () => registry.startBackgroundChecks(),
    beginShutdown: () => endpoints.beginShutdown(),
    stop: () => registry.stopBackgroundChecks(),
  };
}
