// `@fabric-ops/ops-logspec/log4js`: Fabric's spec over log4js categories. It imports log4js (an
// optional peer dependency of the package) and no other logger library.
export { createLog4jsLogging } from './internal/log4js.ts';
export type { Log4jsLogging } from './internal/log4js.ts';
