import { DEFAULT_SERVER_LIMITS } from '@fabric-ops/ops-http';
import { OpsServerError } from './errors.ts';

// What a JavaScript caller can hand createOperationsSystem, checked before anything is built:
// a missing or mistyped option is one OpsServerError `INVALID_OPTIONS` naming it, an unknown key
// (a misspelling, an option of another API) is refused rather than silently ignored. The
// concern packages check the values of the sections they own (`health`, `metrics`).

/** Every key of OperationsSystemOptions (system.ts), kept beside it. */
export const SYSTEM_OPTION_KEYS: readonly string[] = [
  'listenAddress',
  'version',
  'logger',
  'logging',
  'loggerName',
  'limits',
  'shutdownTimeoutMs',
  'shutdownDelayMs',
  'shutdownHookTimeoutMs',
  'requireReadySignal',
  'health',
  'tls',
  'tlsLabels',
  'tlsCredentials',
  'tlsClientCaStandIns',
  'tlsAllowList',
  'metrics',
];

const VERSION_KEYS = ['version', 'commitSHA'];
const TLS_KEYS = ['enabled', 'certFile', 'keyFile', 'clientAuthRequired', 'clientRootCAs'];
const LOGGER_METHODS = ['info', 'warn', 'error'];

function invalid(message: string): never {
  throw new OpsServerError('INVALID_OPTIONS', message);
}

/** A value as an error message shows it: its type, or the text itself when short. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return value.length <= 60 ? JSON.stringify(value) : `a string of ${value.length} characters`;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return typeof value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Refuses keys outside `known`, suggesting the known key spelled the same but for case. */
export function refuseUnknownKeys(where: string, value: Record<string, unknown>, known: readonly string[]): void {
  for (const key of Object.keys(value)) {
    if (known.includes(key)) continue;
    const near = known.find((candidate) => candidate.toLowerCase() === key.toLowerCase());
    const prefix = where === '' ? '' : `${where}.`;
    invalid(`unknown operations option ${prefix}${key}${near === undefined ? ` (known: ${known.join(', ')})` : ` (did you mean ${prefix}${near}?)`}`);
  }
}

function checkSection(name: string, value: unknown, known: readonly string[]): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value)) invalid(`invalid operations option ${name}: expected an object, got ${describeValue(value)}`);
  refuseUnknownKeys(name, value, known);
  return value;
}

function checkType(name: string, value: unknown, type: 'boolean' | 'string' | 'object'): void {
  if (value === undefined) return;
  const ok = type === 'object' ? isRecord(value) : typeof value === type;
  if (!ok) invalid(`invalid operations option ${name}: expected ${type === 'object' ? 'an object' : `a ${type}`}, got ${describeValue(value)}`);
}

function checkTls(value: unknown): void {
  const tls = checkSection('tls', value, TLS_KEYS);
  if (tls === undefined) return;
  checkType('tls.enabled', tls['enabled'], 'boolean');
  if (tls['enabled'] !== true) return;
  for (const key of ['certFile', 'keyFile']) {
    const path = tls[key];
    if (typeof path !== 'string' || path === '') invalid(`invalid operations option tls.${key}: TLS is enabled, expected the path of a PEM file, got ${describeValue(path)}`);
  }
  checkType('tls.clientAuthRequired', tls['clientAuthRequired'], 'boolean');
  const roots = tls['clientRootCAs'];
  if (roots !== undefined && (!Array.isArray(roots) || roots.some((path) => typeof path !== 'string' || path === ''))) {
    invalid(`invalid operations option tls.clientRootCAs: expected an array of PEM file paths, got ${Array.isArray(roots) ? 'an array holding a non-path' : describeValue(roots)}`);
  }
}

function checkLimits(value: unknown): void {
  const limits = checkSection('limits', value, Object.keys(DEFAULT_SERVER_LIMITS));
  if (limits === undefined) return;
  for (const [key, limit] of Object.entries(limits)) {
    if (limit !== undefined && (typeof limit !== 'number' || !Number.isFinite(limit) || limit < 0)) {
      invalid(`invalid operations option limits.${key}: expected a number of 0 or more, got ${describeValue(limit)}`);
    }
  }
}

function checkLoggers(options: Record<string, unknown>): void {
  const { logger, logging } = options;
  if (logger !== undefined && (!isRecord(logger) || LOGGER_METHODS.some((method) => typeof logger[method] !== 'function'))) {
    invalid(`invalid operations option logger: expected an object with ${LOGGER_METHODS.join(', ')} methods (a pino logger), got ${describeValue(logger)}`);
  }
  if (logging !== undefined && (typeof logging !== 'object' || logging === null || typeof (logging as { getLogger?: unknown }).getLogger !== 'function')) {
    invalid(`invalid operations option logging: expected a logger registry (createLogging or createLeanLogging from @fabric-ops/ops-logspec), got ${describeValue(logging)}`);
  }
  checkType('loggerName', options['loggerName'], 'string');
}

/**
 * Checks what createOperationsSystem was handed, as a JavaScript caller may hand anything. The
 * values whose rules live with their parsers (the listen address, durations, health, metrics)
 * are checked there; this makes sure each is at least present and of its kind.
 */
export function checkSystemOptions(options: unknown): asserts options is Record<string, unknown> {
  if (!isRecord(options)) invalid(`createOperationsSystem: expected options { listenAddress, version, … }, got ${describeValue(options)}`);
  refuseUnknownKeys('', options, SYSTEM_OPTION_KEYS);
  const address = options['listenAddress'];
  if (typeof address !== 'string' && !isRecord(address)) {
    invalid(`invalid operations option listenAddress: expected 'host:port' or { host, port }, got ${describeValue(address)}`);
  }
  const version = checkSection('version', options['version'], VERSION_KEYS);
  if (version === undefined) invalid("invalid operations option version: expected { version, commitSHA } (what /version reports; '' leaves a field out), got undefined");
  checkLoggers(options);
  checkLimits(options['limits']);
  checkTls(options['tls']);
  for (const key of ['requireReadySignal', 'tlsClientCaStandIns'] as const) checkType(key, options[key], 'boolean');
  for (const key of ['health', 'metrics', 'tlsLabels', 'tlsCredentials', 'tlsAllowList'] as const) checkType(key, options[key], 'object');
}
