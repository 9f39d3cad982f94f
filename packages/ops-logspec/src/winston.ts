// `@fabric-ops/ops-logspec/winston`: Fabric's spec over winston loggers. It imports winston
// (an optional peer dependency of the package) and no other logger library.
export { createWinstonLogging } from './internal/winston.ts';
export type { WinstonLogging } from './internal/winston.ts';
