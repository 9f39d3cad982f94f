// What apps, opsctl and embedders call; everything else lives in src/internal/ and is not exported.
export { ConfigError, isConfigError } from './internal/errors.ts';
export { loadOrdererConfig, loadPeerConfig, parseConfigText } from './internal/load.ts';
export type { LoadedConfig, MetricsSettings, OperationsSettings, OrdererConfig, PeerConfig, StatsdTarget, TlsSettings } from './internal/load.ts';
// The shapes the config produces, owned by the packages that read them (re-exported as types only).
export type { DockerEndpoint } from '@fabric-ops/ops-health/endpoint';
export type { HostPort } from '@fabric-ops/ops-http/go';
export type { OtlpTarget } from './internal/otlp.ts';
export { ordererConfigFromCommandLine, peerConfigFromCommandLine } from './internal/cli.ts';
export type { CommandLineOptions, CommandLineOutcome } from './internal/cli.ts';
