// What an embedder calls. The apps' start-up sequence is `@fabric-ops/ops-server/app`, so that
// embedding the server does not install ops-config (yaml); a multi-process service's primary
// and workers are `@fabric-ops/ops-server/cluster`.
export { createOperationsSystem } from './operations-system.ts';
export type { OperationsLogger, OperationsSystem, OperationsSystemOptions } from './system.ts';
export { OpsServerError, isOpsServerError } from './errors.ts';
export type { OpsServerErrorCode } from './errors.ts';
export type { ListenTarget } from './listen-address.ts';
export type { VersionInfo } from './version.ts';
export { createServerDrain } from './drain.ts';
export type { DrainOutcome, ServerDrain, ServerDrainOptions } from './drain.ts';
export type { ShutdownHook } from './shutdown.ts';
export { runUntilSignalled } from './run.ts';
export type { RunOptions, SignalSource } from './run.ts';
