// `@fabric-ops/ops-logspec/spec`: the grammar alone. It imports nothing from pino and of ops-http
// only the error base (`./errors`, no node builtins; inlined in the built entry), so it works where
// nothing else is installed (a config checker, a CLI, a browser build).
export { LogspecError, isLogspecError } from './errors.ts';
export type { LogspecErrorCode } from './errors.ts';
export type { Level } from './internal/levels.ts';
export { formatSpec, normaliseSpec, parseSpec } from './internal/spec.ts';
export type { ParsedSpec } from './internal/spec.ts';
