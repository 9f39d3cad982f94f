export { runAppToExit, spawnApp } from './spawn-app.ts';
export type { RunningApp, SpawnAppOptions } from './spawn-app.ts';
export { send } from './http-client.ts';
export type { Reply, SendOptions } from './http-client.ts';
export { configDir, describeAppContract } from './app-contract.ts';
export type { AppContract } from './app-contract.ts';
export { createTestPki } from './pki.ts';
export type { IntermediateOptions, IssueOptions, PemPair, TestCa, TestPki } from './pki.ts';
export {
  ACTIVATE_CASES,
  DECODE_CASES,
  ERROR_CASES,
  ERROR_START_NORMALISED,
  ERROR_START_SPEC,
  INVALID_LEVEL_NAMES,
  LOWEST_LEVEL_CASES,
  SPEC_CASES,
  VALID_LEVEL_NAMES,
} from './logspec-gold.ts';
export type { ActivateCase, DecodeCase, GoldLevel } from './logspec-gold.ts';
export { describeTlsContract, expectedOutcome } from './tls-contract.ts';
export type { TlsAppContract, TlsConfigSettings } from './tls-contract.ts';
export { assertPodmanInstalled, startPingCountingProxy, startPodmanService, startSilentSocket } from './podman.ts';
export type { PingCountingProxy, PodmanService, PodmanServiceOptions, SilentSocket } from './podman.ts';
export { describeLogspecContract } from './logspec-contract.ts';
export type { LogspecContract } from './logspec-contract.ts';
export { prometheusTool, startPrometheus } from './prometheus.ts';
export type { PrometheusServer, PrometheusTargetTls, PromSample, StartPrometheusOptions } from './prometheus.ts';
export { startStatsd } from './statsd.ts';
export type { StartStatsdOptions, StatsdDaemon, StatsdReceived } from './statsd.ts';
export { freeTcpPort, freeUdpPort } from './free-port.ts';
export { peerCoreYaml, peerLauncher } from './peer-config.ts';
export type { PeerLauncher, PeerSetup, PeerTlsFiles } from './peer-config.ts';
export { useAppHarness, useTestPki } from './app-harness.ts';
export type { AppHarness } from './app-harness.ts';
export { heapLimitsContract } from './heap-contract.ts';
