export { ConfigError, isConfigError } from './internal/errors.ts';
export type { ConfigErrorCode } from './internal/errors.ts';
export { loadOrdererConfig, loadPeerConfig, parseConfigText } from './internal/load.ts';
export type {
  HealthSettings,
  LoadedConfig,
  LoadOptions,
  MetricsSettings,
  OperationsSettings,
  OrdererConfig,
  PeerConfig,
  StatsdTarget,
  TlsLabels,
  TlsSettings,
} from './internal/load.ts';
export type { ValueSource } from './internal/resolve.ts';
export type { DockerEndpoint } from './internal/docker-endpoint.ts';
export { formatHostPort, parseHostPort } from './internal/host-port.ts';
export type { HostPort } from './internal/host-port.ts';
export { ordererConfigFromCommandLine, peerConfigFromCommandLine } from './internal/cli.ts';
export type { CommandLineOptions, CommandLineOutcome } from './internal/cli.ts';
