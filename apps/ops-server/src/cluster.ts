// A service on every core: the primary serves the one operations endpoint
// (createOperationsCluster), each worker joins it (startOperationsWorker, or joinOperationsCluster
// for a worker that keeps its own metrics). Its own entry, so the main one stays small.
export { createOperationsCluster, workerComponent, CLUSTER_COMPONENT } from './cluster/primary.ts';
export type { ClusterMember, ClusterSettings, OperationsCluster, OperationsClusterOptions } from './cluster/primary.ts';
export { joinOperationsCluster, startOperationsWorker } from './cluster/worker.ts';
export type { ClusterWorker, ClusterWorkerOptions, OperationsWorker, OperationsWorkerOptions } from './cluster/worker.ts';
export type { GaugeRule } from '@fabric-ops/ops-metrics/cluster';
export type { WorkerStatus } from './cluster/coordinator.ts';
export type { ClusterMetricsKind } from './cluster/protocol.ts';
