// opsctl as a library: run a command line, or parse one and run it across a fleet; parse an
// exposition page. The client, the single-target commands and the defaults stay internal.
export { runOpsctl } from './main.ts';
export type { OpsctlIo } from './main.ts';
export { parseArgs } from './args.ts';
export type { Command, ConnectionOptions, FleetOptions, HealthEndpoint, Invocation } from './args.ts';
export { runFleetCommand } from './fleet.ts';
export type { FleetFailureReason, FleetResult, FleetRow } from './fleet.ts';
export { parsePrometheusText } from './prometheus-text.ts';
export type { MetricFamily, MetricSample } from './prometheus-text.ts';
export { OpsctlError, isOpsctlError, EXIT_CODES } from './errors.ts';
export type { OpsctlErrorCode } from './errors.ts';
