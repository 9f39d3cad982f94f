// The error base every fabric-ops package extends. A separate entry so that a package's small
// entries (ops-logspec/spec, ops-health/endpoint) load this and not the HTTP plumbing.
export { errorGuard, FabricOpsError } from './internal/error-base.ts';
