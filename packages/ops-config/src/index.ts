// What apps, opsctl and embedders call; everything else lives in src/internal/ and is not exported.
export { ConfigError, isConfigError } from './internal/errors.ts';
export { loadOrdererConfig, loadPeerConfig, parseConfigText } from './internal/load.ts';
export type { LoadedConfig, MetricsSettings, OperationsSettings, OrdererConfig, PeerConfig, StatsdTarget, TlsSettings } from './internal/load.ts';
export type { DockerEndpoint } from './internal/docker-endpoint.ts';
export { parseHostPort } from './internal/host-port.ts';
export type { HostPort } from './internal/host-port.ts';
export type { OtlpTarget } from './internal/otlp.ts';
export { ordererConfigFromCommandLine, peerConfigFromCommandLine } from './internal/cli.ts';
