export { createHealthRegistry } from './registry.ts';
export type { Checker, HealthObserver, HealthOptions, HealthRegistry, HealthReport, RegisterOptions } from './registry.ts';
export { createHealthEndpoints } from './handlers.ts';
export type { HealthEndpoints } from './handlers.ts';
export type { Readiness } from './internal/readiness.ts';
export { dockerChecker, parseDockerEndpoint, DOCKER_COMPONENT } from './docker.ts';
export type { DockerEndpoint } from './internal/endpoint.ts';
export { HealthError, isHealthError } from './errors.ts';
export type { HealthErrorCode } from './errors.ts';
