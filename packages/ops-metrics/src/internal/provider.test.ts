import { thrownCode } from '@fabric-ops/test-kit';
import { describe, expect, it } from 'vitest';
import { isMetricsError, type MetricsErrorCode } from './errors.ts';
import { createMetricsProvider } from './provider.ts';
import { createPrometheusProvider, renderBody } from './prometheus.ts';
import { TEXT_FORMAT } from './negotiate.ts';
import type { MetricsOptions, StatsdTarget } from './types.ts';

const codeOf = (action: () => unknown): MetricsErrorCode | undefined => thrownCode(action, isMetricsError);

function recordingLogger() {
  const warnings: string[] = [];
  return { warnings, logger: { warn: (message: string) => warnings.push(message) } };
}

const TARGET: StatsdTarget = { network: 'udp', host: '127.0.0.1', port: 8125, writeIntervalMs: 10_000, prefix: '' };
const settings = (provider: 'prometheus' | 'statsd' | 'disabled'): MetricsOptions =>
  provider === 'statsd' ? { provider, statsd: TARGET } : provider === 'prometheus' ? { provider, runtimeMetrics: false } : { provider };

describe('createMetricsProvider', () => {
  it.each(['prometheus', 'statsd', 'disabled'] as const)('%s is chosen silently', (provider) => {
    const { warnings, logger } = recordingLogger();
    const options = settings(provider);
    expect(createMetricsProvider(options.provider === 'disabled' ? options : { ...options, logger }).kind).toBe(provider);
    expect(warnings).toEqual([]);
  });

  it('does not ask for a statsd block with the prometheus provider (a type-level check as much as a runtime one)', () => {
    const provider = createMetricsProvider({ provider: 'prometheus', runtimeMetrics: false });
    expect(typeof provider.handler).toBe('function');
  });

  it.each(['', 'Prometheus', 'STATSD', 'graphite'])('%j is one INVALID_SETTINGS error, never a warning', (provider) => {
    const { warnings, logger } = recordingLogger();
    let caught: unknown;
    try {
      // A JavaScript caller, or a TypeScript one with a string from elsewhere.
      createMetricsProvider(JSON.parse(JSON.stringify({ provider, logger })) as MetricsOptions);
    } catch (error) {
      caught = error;
    }
    expect(isMetricsError(caught) && caught.code).toBe('INVALID_SETTINGS');
    expect((caught as Error).message).toBe(`provider must be "prometheus", "statsd" or "disabled", got ${JSON.stringify(provider)}`);
    expect(warnings).toEqual([]);
  });

  it('defaults to disabled', () => {
    expect(createMetricsProvider().kind).toBe('disabled');
  });

  it('only prometheus serves /metrics, as a secure route', () => {
    expect(createMetricsProvider(settings('prometheus')).routes.map((r) => [r.path, r.secure])).toEqual([['/metrics', true]]);
    expect(createMetricsProvider(settings('statsd')).routes).toEqual([]);
    expect(createMetricsProvider(settings('disabled')).routes).toEqual([]);
  });

  it.each([
    [{ writeIntervalMs: 0 }, 'statsd.writeIntervalMs must be a number from 1 to 2147483647, got 0'],
    [{ writeIntervalMs: -5 }, 'got -5'],
    [{ writeIntervalMs: NaN }, 'got NaN'],
    [{ network: 'bob-the-network' }, 'statsd.network must be "udp" or "tcp", got "bob-the-network"'],
    [{ host: '' }, 'statsd.host must be a host name or IP address, got ""'],
    [{ host: '[::1]' }, 'without brackets'],
    [{ port: 99_999 }, 'statsd.port must be an integer from 1 to 65535, got 99999'],
    [{ port: 0 }, 'got 0'],
    [{ port: 1.5 }, 'got 1.5'],
  ])('statsd target %o is one MetricsError', (override, message) => {
    let caught: unknown;
    try {
      createMetricsProvider({ provider: 'statsd', statsd: { ...TARGET, ...override } as StatsdTarget });
    } catch (error) {
      caught = error;
    }
    expect(isMetricsError(caught) && caught.code).toBe('INVALID_SETTINGS');
    expect((caught as Error).message).toContain(message);
  });

  it('requires the statsd target for the statsd provider, in the types and at run time', () => {
    // @ts-expect-error a statsd provider needs its target
    expect(codeOf(() => createMetricsProvider({ provider: 'statsd' }))).toBe('INVALID_SETTINGS');
    // @ts-expect-error the prometheus provider takes no statsd block
    expect(createMetricsProvider({ provider: 'prometheus', runtimeMetrics: false, statsd: TARGET }).kind).toBe('prometheus');
  });

  it('refuses scrape options that cannot work', () => {
    expect(codeOf(() => createMetricsProvider({ provider: 'prometheus', maxInFlight: 0 }))).toBe('INVALID_SETTINGS');
    expect(codeOf(() => createMetricsProvider({ provider: 'prometheus', runtimeSampleIntervalMs: -1 }))).toBe('INVALID_SETTINGS');
  });
});

describe.each(['prometheus', 'statsd', 'disabled'] as const)('the %s provider API', (kind) => {
  const provider = () => createMetricsProvider(settings(kind));
  const opts = { namespace: 'ns', subsystem: 'sub', name: 'n', help: 'h', labelNames: ['channel', 'type'], statsdFormat: '%{#fqname}.%{channel}' };

  it('accepts complete label sets through with()', () => {
    const counter = provider().newCounter(opts);
    expect(codeOf(() => counter.with('channel', 'c', 'type', 't').add(1))).toBeUndefined();
    expect(codeOf(() => counter.with('channel', 'c').with('type', 't').add(2))).toBeUndefined();
    expect(codeOf(() => counter.with('type', 't', 'channel').add(1))).toBeUndefined();
  });

  it('rejects a label that was not declared', () => {
    const gauge = provider().newGauge(opts);
    expect(codeOf(() => gauge.with('chaincode', 'cc'))).toBe('INVALID_LABEL_NAME');
    expect(codeOf(() => gauge.with('channel', 'c', 'bogus', 'x'))).toBe('INVALID_LABEL_NAME');
  });

  it('rejects recording before every label has a value', () => {
    const histogram = provider().newHistogram(opts);
    expect(codeOf(() => histogram.observe(1))).toBe('MISSING_LABEL_VALUE');
    expect(codeOf(() => histogram.with('type', 't').observe(1))).toBe('MISSING_LABEL_VALUE');
  });

  it('rejects a StatsD template naming an undeclared label', () => {
    expect(codeOf(() => provider().newCounter({ ...opts, statsdFormat: '%{#fqname}.%{peer}' }))).toBe('INVALID_METRIC_OPTIONS');
  });

  it('rejects invalid values', () => {
    const p = provider();
    const counter = p.newCounter({ name: 'c', help: 'h' });
    expect(codeOf(() => counter.add(-1))).toBe('INVALID_VALUE');
    expect(codeOf(() => counter.add(NaN))).toBe('INVALID_VALUE');
    expect(codeOf(() => counter.add(Infinity))).toBe('INVALID_VALUE');
    expect(codeOf(() => p.newHistogram({ name: 'h', help: 'h' }).observe(NaN))).toBe('INVALID_VALUE');
    expect(codeOf(() => p.newGauge({ name: 'g', help: 'h' }).set(-3))).toBeUndefined();
  });

  it('returns the same metric for the same declaration and refuses a conflicting one', () => {
    const p = provider();
    p.newCounter(opts);
    expect(codeOf(() => p.newCounter(opts))).toBeUndefined();
    expect(codeOf(() => p.newGauge(opts))).toBe('DUPLICATE_METRIC');
    expect(codeOf(() => p.newCounter({ ...opts, labelNames: ['channel'], statsdFormat: '%{#fqname}' }))).toBe('DUPLICATE_METRIC');
  });

  it.each([
    [{ name: '' }],
    [{ name: 'bad-name' }],
    [{ name: 'x', labelNames: ['le'] }],
    [{ name: 'x', labelNames: ['__x'] }],
    [{ name: 'x', labelNames: ['a', 'a'] }],
    [{ name: 'x', labelNames: ['bad-label'] }],
  ])('refuses options %o', (override) => {
    expect(codeOf(() => provider().newCounter({ help: 'h', ...override }))).toBe('INVALID_METRIC_OPTIONS');
  });

  it('refuses unsorted buckets', () => {
    expect(codeOf(() => provider().newHistogram({ name: 'h', help: 'h', buckets: [1, 0.5] }))).toBe('INVALID_METRIC_OPTIONS');
  });
});

describe('with() pairs', () => {
  it('gives an odd trailing key the value "unknown"', async () => {
    const provider = createPrometheusProvider({ runtimeMetrics: false });
    provider
      .newCounter({ name: 'odd', help: 'h', labelNames: ['a', 'b'] })
      .with('a', '1', 'b')
      .add(1);
    const text = (await renderBody(provider, TEXT_FORMAT)).toString();
    expect(text).toContain('odd{a="1",b="unknown"} 1');
  });

  it('lets a later value for the same label win', async () => {
    const provider = createPrometheusProvider({ runtimeMetrics: false });
    provider
      .newCounter({ name: 'later', help: 'h', labelNames: ['a'] })
      .with('a', '1')
      .with('a', '2')
      .add(1);
    const text = (await renderBody(provider, TEXT_FORMAT)).toString();
    expect(text).toContain('later{a="2"} 1');
    expect(text).not.toContain('later{a="1"}');
  });

  it('bounds the series per metric and warns once', async () => {
    const { warnings, logger } = recordingLogger();
    const provider = createPrometheusProvider({ runtimeMetrics: false, maxSeriesPerMetric: 3, logger });
    const counter = provider.newCounter({ name: 'capped', help: 'h', labelNames: ['i'] });
    for (let i = 0; i < 10; i++) counter.with('i', String(i)).add(1);
    const text = (await renderBody(provider, TEXT_FORMAT)).toString();
    expect(text.split('\n').filter((l) => l.startsWith('capped{'))).toHaveLength(3);
    expect(warnings).toEqual(['metric capped reached 3 series; values for new label combinations are dropped']);
  });
});
