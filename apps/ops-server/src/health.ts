import { createHealthEndpoints, createHealthRegistry, type HealthOptions, type HealthRegistry } from '@fabric-ops/ops-health';
import type { SystemPart } from './part.ts';

/** The health concern as a system part: the /healthz family of routes and the checker registry behind them. */
export interface HealthPart extends SystemPart {
  readonly registry: HealthRegistry;
}

/**
 * Serves `/healthz` (Fabric), `/healthz/<component>`, `/livez` and `/readyz`; readiness
 * turns false the moment the system begins to stop, so traffic drains first.
 */
export function createHealthPart(options: HealthOptions = {}): HealthPart {
  const registry = createHealthRegistry(options);
  const endpoints = createHealthEndpoints(registry);
  return {
    registry,
    routes: endpoints.routes,
    beginShutdown: () => endpoints.beginShutdown(),
  };
}
