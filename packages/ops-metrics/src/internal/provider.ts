import { createDisabledProvider, type DisabledProvider } from './disabled.ts';
import { MetricsError } from './errors.ts';
import { createPrometheusProvider, type PrometheusProvider } from './prometheus.ts';
import { createStatsdCaptureProvider, createStatsdProvider, type StatsdProvider } from './statsd.ts';
import type { MetricsOptions, OtlpTarget, StatsdTarget } from './types.ts';

export type AnyMetricsProvider = PrometheusProvider | StatsdProvider | DisabledProvider;

const MAX_TIMER_MS = 2_147_483_647;
/**
 * The shortest OTLP push interval: each push collects and encodes every series, so below this
 * the push becomes the node's main work, and no receiver or dashboard resolves it.
 */
export const MIN_OTLP_INTERVAL_MS = 100;

function invalid(message: string): never {
  throw new MetricsError('INVALID_SETTINGS', message);
}

function describe(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

function checkNumber(name: string, value: unknown, { min, max = Number.MAX_SAFE_INTEGER, integer = false }: { min: number; max?: number; integer?: boolean }): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max || (integer && !Number.isInteger(value))) {
    invalid(`${name} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}, got ${describe(value)}`);
  }
}

/**
 * The checks an embedder's typed options get: values TypeScript cannot rule out
 * (a port of 0, an interval of NaN, a JavaScript caller's typo). Settings that
 * came through ops-config were checked there, with the file key in the message.
 */
function checkStatsdTarget(target: StatsdTarget | undefined): void {
  if (target === null || typeof target !== 'object') invalid(`statsd: a target { network, host, port, writeIntervalMs, prefix } is required, got ${describe(target)}`);
  if (target.network !== 'udp' && target.network !== 'tcp') invalid(`statsd.network must be "udp" or "tcp", got ${describe(target.network)}`);
  if (typeof target.host !== 'string' || target.host === '') invalid(`statsd.host must be a host name or IP address, got ${describe(target.host)}`);
  if (target.host.startsWith('[')) invalid(`statsd.host must be given without brackets, got ${describe(target.host)}`);
  checkNumber('statsd.port', target.port, { min: 1, max: 65_535, integer: true });
  if (target.port === undefined) invalid('statsd.port is required');
  checkNumber('statsd.writeIntervalMs', target.writeIntervalMs, { min: 1, max: MAX_TIMER_MS });
  if (target.writeIntervalMs === undefined) invalid('statsd.writeIntervalMs is required');
  if (typeof target.prefix !== 'string') invalid(`statsd.prefix must be a string, got ${describe(target.prefix)}`);
}

function checkOtlpTarget(target: OtlpTarget, aggregated: boolean): void {
  if (target === null || typeof target !== 'object') invalid(`otlp: a target { endpoint, headers, timeoutMs, intervalMs } is required, got ${describe(target)}`);
  if (aggregated) invalid('otlp: not available with aggregate (a multi-process primary pushes only its own series)');
  let url: URL | undefined;
  try {
    url = new URL(target.endpoint);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    invalid(`otlp.endpoint must be an http:// or https:// URL, got ${describe(target.endpoint)}`);
  }
  if (target.headers === null || typeof target.headers !== 'object') invalid(`otlp.headers must be an object of header names and values, got ${describe(target.headers)}`);
  for (const [name, value] of Object.entries(target.headers)) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) invalid(`otlp.headers: ${describe(name)} is not a valid header name`);
    if (typeof value !== 'string' || /[\r\n\0]/.test(value)) invalid(`otlp.headers: the value of ${name} must be text on one line`);
  }
  checkNumber('otlp.timeoutMs', target.timeoutMs, { min: 1, max: MAX_TIMER_MS });
  if (target.timeoutMs === undefined) invalid('otlp.timeoutMs is required');
  checkNumber('otlp.intervalMs', target.intervalMs, { min: MIN_OTLP_INTERVAL_MS, max: MAX_TIMER_MS });
  if (target.intervalMs === undefined) invalid('otlp.intervalMs is required');
  const attributes = target.resourceAttributes;
  if (attributes !== undefined && typeof attributes !== 'function') {
    if (attributes === null || typeof attributes !== 'object')
      invalid(`otlp.resourceAttributes must be an object of attribute names and text values, or a function returning one, got ${describe(attributes)}`);
    for (const [name, value] of Object.entries(attributes)) {
      if (typeof value !== 'string') invalid(`otlp.resourceAttributes: the value of ${name} must be text, got ${describe(value)}`);
    }
  }
}

function checkOptions(options: MetricsOptions): void {
  if (options === null || typeof options !== 'object') invalid(`metrics options must be an object, got ${describe(options)}`);
  switch (options.provider) {
    case 'prometheus':
      checkNumber('maxInFlight', options.maxInFlight, { min: 1, integer: true });
      checkNumber('timeoutMs', options.timeoutMs, { min: 1, max: MAX_TIMER_MS });
      checkNumber('maxSeriesPerMetric', options.maxSeriesPerMetric, { min: 0, integer: true });
      checkNumber('runtimeSampleIntervalMs', options.runtimeSampleIntervalMs, { min: 1, max: MAX_TIMER_MS });
      if (options.registry !== undefined && typeof options.registry?.getMetricsAsJSON !== 'function') {
        invalid('registry must be a prom-client Registry (something with getMetricsAsJSON())');
      }
      if (options.otlp !== undefined) checkOtlpTarget(options.otlp, options.aggregate !== undefined);
      return;
    case 'statsd':
      if (options.statsd === undefined && 'capture' in options && options.capture === true) {
        checkNumber('maxSeriesPerMetric', options.maxSeriesPerMetric, { min: 0, integer: true });
        return;
      }
      if ('capture' in options) invalid('statsd: capture: true takes no target (a capture-mode provider sends nothing)');
      checkStatsdTarget(options.statsd);
      if (options.aggregate !== undefined && typeof options.aggregate !== 'function') invalid('statsd: aggregate must be a function');
      checkNumber('maxPendingLines', options.maxPendingLines, { min: 0, integer: true });
      checkNumber('maxSocketBufferBytes', options.maxSocketBufferBytes, { min: 1, integer: true });
      checkNumber('maxSeriesPerMetric', options.maxSeriesPerMetric, { min: 0, integer: true });
      checkNumber('initialBackoffMs', options.initialBackoffMs, { min: 1, max: MAX_TIMER_MS });
      checkNumber('maxBackoffMs', options.maxBackoffMs, { min: 1, max: MAX_TIMER_MS });
      return;
    case 'disabled':
      return;
    default:
      invalid(`provider must be "prometheus", "statsd" or "disabled", got ${describe((options as { provider?: unknown }).provider)}`);
  }
}

/**
 * The provider `options.provider` names, with only that provider's settings.
 * Throws a MetricsError (INVALID_SETTINGS) for a value that cannot work; it never
 * warns or guesses. Default: metrics disabled.
 */
export function createMetricsProvider(options: Extract<MetricsOptions, { provider: 'prometheus' }>): PrometheusProvider;
export function createMetricsProvider(options: Extract<MetricsOptions, { provider: 'statsd' }>): StatsdProvider;
export function createMetricsProvider(options?: Extract<MetricsOptions, { provider: 'disabled' }>): DisabledProvider;
export function createMetricsProvider(options?: MetricsOptions): AnyMetricsProvider;
export function createMetricsProvider(options: MetricsOptions = { provider: 'disabled' }): AnyMetricsProvider {
  checkOptions(options);
  switch (options.provider) {
    case 'prometheus':
      return createPrometheusProvider(options);
    case 'statsd':
      return options.statsd === undefined ? createStatsdCaptureProvider(options) : createStatsdProvider(options.statsd, options);
    case 'disabled':
      return createDisabledProvider();
  }
}
