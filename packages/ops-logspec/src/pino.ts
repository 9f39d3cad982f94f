// `@fabric-ops/ops-logspec/pino`: Fabric's spec over pino loggers, the same registry the main
// entry exports, beside `./winston`, `./bunyan` and `./log4js`.
export { createLogging, createLoggingFromEnv } from './index.ts';
export type { LogFormat, Logging } from './index.ts';
