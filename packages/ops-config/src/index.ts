export { ConfigError, isConfigError } from './errors.ts';
export type { ConfigErrorCode } from './errors.ts';
export { locateConfigFile, FABRIC_SYSTEM_CONFIG_DIR } from './locate.ts';
export type { LocateOptions } from './locate.ts';
export { loadOrdererConfig, loadPeerConfig } from './load.ts';
export type { LoadedConfig, MetricsSettings, OperationsSettings, OrdererConfig, PeerConfig, StatsdSettings, TlsSettings } from './load.ts';
