// What an embedder calls. The apps' start-up sequence is `@fabric-ops/ops-server/app`, so that
// embedding the server does not install ops-config (zod, yaml).
export { createOperationsSystem } from './system.ts';
export type { OperationsLogger, OperationsSystem, OperationsSystemOptions } from './system.ts';
export { OpsServerError, isOpsServerError } from './errors.ts';
export type { OpsServerErrorCode } from './errors.ts';
export type { ListenTarget } from './listen-address.ts';
export type { VersionInfo } from './version.ts';
export { runUntilSignalled } from './run.ts';
export type { RunOptions, SignalSource } from './run.ts';
export { createOperationsCluster, workerComponent, CLUSTER_COMPONENT } from './cluster/primary.ts';
export type { ClusterMember, ClusterSettings, OperationsCluster, OperationsClusterOptions } from './cluster/primary.ts';
export { joinOperationsCluster, startOperationsWorker } from './cluster/worker.ts';
export type { ClusterWorker, ClusterWorkerOptions, OperationsWorker, OperationsWorkerOptions } from './cluster/worker.ts';
export type { GaugeRule } from './cluster/exposition.ts';
export type { WorkerStatus } from './cluster/coordinator.ts';
