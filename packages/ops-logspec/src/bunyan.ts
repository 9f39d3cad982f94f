// `@fabric-ops/ops-logspec/bunyan`: Fabric's spec over bunyan loggers. It imports bunyan (an
// optional peer dependency of the package) and no other logger library.
export { createBunyanLogging } from './internal/bunyan.ts';
export type { BunyanLogging } from './internal/bunyan.ts';
