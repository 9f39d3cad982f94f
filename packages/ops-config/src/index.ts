export { ConfigError, isConfigError } from './errors.ts';
export type { ConfigErrorCode } from './errors.ts';
export { locateConfigFile, FABRIC_SYSTEM_CONFIG_DIR } from './locate.ts';
export type { LocateOptions } from './locate.ts';
export { loadOrdererConfig, loadPeerConfig, parseConfigText } from './load.ts';
export type {
  LoadedConfig,
  LoadOptions,
  MetricsSettings,
  OperationsSettings,
  OrdererConfig,
  PeerConfig,
  StatsdSettings,
  TlsSettings,
  ValueSource,
} from './load.ts';
export type { AppKind } from './keys.ts';
export { renderEffectiveConfig } from './print.ts';
export { ordererConfigFromCommandLine, parseCommandLine, peerConfigFromCommandLine, USAGE_EXIT_CODE } from './cli.ts';
export type { CommandLineAction, CommandLineOptions, CommandLineOutcome, ParsedCommandLine } from './cli.ts';
export { formatGoDuration, parseGoBool, parseGoDuration } from './go-values.ts';
