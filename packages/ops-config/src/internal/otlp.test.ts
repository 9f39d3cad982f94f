import { describe, expect, it } from 'vitest';
import { parseConfigText, type OrdererConfig, type PeerConfig } from './load.ts';
import { parseOtlpHeaders } from './otlp.ts';
import { problemsOf } from './test-problems.ts';

const peer = (text: string, env: NodeJS.ProcessEnv = {}) => parseConfigText('peer', text, { file: '/etc/hyperledger/fabric/core.yaml', env });
const orderer = (text: string, env: NodeJS.ProcessEnv = {}) => parseConfigText('orderer', text, { file: '/etc/hyperledger/fabric/orderer.yaml', env });

const PROMETHEUS_PEER = 'metrics:\n  provider: prometheus\n';
const PROMETHEUS_ORDERER = 'Metrics:\n  Provider: prometheus\n';
const otlpOf = (config: PeerConfig | OrdererConfig) => (config.metrics.provider === 'statsd' ? undefined : config.metrics.otlp);

describe('OTLP push settings', () => {
  it('is off by default, and OTEL_* variables alone other than OTEL_METRICS_EXPORTER change nothing', () => {
    const loaded = peer(PROMETHEUS_PEER, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_TIMEOUT: 'soon' });
    expect(otlpOf(loaded.config)).toBeUndefined();
    expect(loaded.config.metrics).toEqual({ provider: 'prometheus' });
  });

  it("takes core.yaml's metrics.otlp section, with OpenTelemetry's defaults for what it leaves out", () => {
    const loaded = peer(`${PROMETHEUS_PEER}  otlp:\n    enabled: true\n    headers: api-key=abc,X-Tenant=org%201\n    interval: 15s\n`);
    expect(otlpOf(loaded.config)).toEqual({
      endpoint: 'http://localhost:4318/v1/metrics',
      headers: { 'api-key': 'abc', 'x-tenant': 'org 1' },
      timeoutMs: 10_000,
      intervalMs: 15_000,
    });
    expect(loaded.warnings).toEqual([]);
  });

  it("takes orderer.yaml's Metrics.OTLP section", () => {
    const loaded = orderer(`${PROMETHEUS_ORDERER}  OTLP:\n    Enabled: true\n    Endpoint: https://otel.example:4318/v1/metrics\n    Timeout: 2s\n    Interval: 30s\n`);
    expect(otlpOf(loaded.config)).toEqual({ endpoint: 'https://otel.example:4318/v1/metrics', headers: {}, timeoutMs: 2_000, intervalMs: 30_000 });
  });

  it('OTEL_METRICS_EXPORTER=otlp turns it on; the generic endpoint gets /v1/metrics, the signal one is used as is', () => {
    const generic = peer(PROMETHEUS_PEER, { OTEL_METRICS_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' });
    expect(otlpOf(generic.config)?.endpoint).toBe('http://collector:4318/v1/metrics');
    expect(generic.sources['metrics.otlp.enabled']).toEqual({ from: 'env', variable: 'OTEL_METRICS_EXPORTER' });
    expect(generic.sources['metrics.otlp.endpoint']).toEqual({ from: 'env', variable: 'OTEL_EXPORTER_OTLP_ENDPOINT' });
    const slash = peer(PROMETHEUS_PEER, { OTEL_METRICS_EXPORTER: 'prometheus, otlp', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/base/' });
    expect(otlpOf(slash.config)?.endpoint).toBe('http://collector:4318/base/v1/metrics');
    const signal = peer(PROMETHEUS_PEER, {
      OTEL_METRICS_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://ignored:4318',
      OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://collector:4318/custom/path',
    });
    expect(otlpOf(signal.config)?.endpoint).toBe('http://collector:4318/custom/path');
  });

  it('reads headers, timeout and interval from OTEL_* (the signal variable over the generic one), in milliseconds', () => {
    const loaded = orderer(PROMETHEUS_ORDERER, {
      OTEL_METRICS_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_HEADERS: 'a=generic',
      OTEL_EXPORTER_OTLP_METRICS_HEADERS: 'authorization=Bearer%20t0k3n',
      OTEL_EXPORTER_OTLP_TIMEOUT: '2500',
      OTEL_METRIC_EXPORT_INTERVAL: '5000',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
    });
    expect(otlpOf(loaded.config)).toEqual({ endpoint: 'http://localhost:4318/v1/metrics', headers: { authorization: 'Bearer t0k3n' }, timeoutMs: 2_500, intervalMs: 5_000 });
  });

  it('our own variables beat OTEL_*, which beat the file; an empty OTEL_* variable is unset', () => {
    const text = `${PROMETHEUS_PEER}  otlp:\n    enabled: true\n    endpoint: http://file:4318/v1/metrics\n    interval: 20s\n`;
    const loaded = peer(text, {
      OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://otel:4318/v1/metrics',
      CORE_METRICS_OTLP_ENDPOINT: 'http://core:4318/v1/metrics',
      OTEL_METRIC_EXPORT_INTERVAL: '',
    });
    expect(otlpOf(loaded.config)).toMatchObject({ endpoint: 'http://core:4318/v1/metrics', intervalMs: 20_000 });
    expect(otlpOf(peer(text, { OTEL_METRICS_EXPORTER: 'none' }).config)).toBeUndefined();
    expect(otlpOf(peer(text, { CORE_METRICS_OTLP_ENABLED: 'false', OTEL_METRICS_EXPORTER: 'otlp' }).config)).toBeUndefined();
  });

  it.each([
    [{ OTEL_METRICS_EXPORTER: 'zipkin' }, 'OTEL_METRICS_EXPORTER: expected a comma-separated list of otlp, prometheus, console or none (only otlp turns the push on), got "zipkin"'],
    [{ OTEL_METRICS_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_TIMEOUT: '10s' }, 'OTEL_EXPORTER_OTLP_TIMEOUT: expected a whole number of milliseconds like 10000, got "10s"'],
    [{ OTEL_METRICS_EXPORTER: 'otlp', OTEL_METRIC_EXPORT_INTERVAL: '-1' }, 'OTEL_METRIC_EXPORT_INTERVAL: expected a whole number of milliseconds like 60000, got "-1"'],
    [
      { OTEL_METRICS_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'grpc' },
      'OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: expected http/protobuf (the one OTLP protocol the metrics push speaks), got "grpc"',
    ],
    [
      { OTEL_METRICS_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' },
      'OTEL_EXPORTER_OTLP_ENDPOINT: expected an http:// or https:// URL like http://localhost:4318/v1/metrics, got "collector:4318/v1/metrics" (scheme collector)',
    ],
    [
      { OTEL_METRICS_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_HEADERS: 'api-key' },
      'OTEL_EXPORTER_OTLP_HEADERS: expected name=value pairs separated by commas like api-key=abc,x-tenant=org1, got "api-key"',
    ],
    [
      { OTEL_METRICS_EXPORTER: 'otlp', OTEL_METRIC_EXPORT_INTERVAL: '0' },
      'OTEL_METRIC_EXPORT_INTERVAL: expected a duration from 100ms to 596h (the longest timer Node.js keeps) when metrics.otlp.enabled is true, got "0ms"',
    ],
    [
      { OTEL_METRICS_EXPORTER: 'otlp', CORE_METRICS_OTLP_INTERVAL: '1ms' },
      'CORE_METRICS_OTLP_INTERVAL: expected a duration from 100ms to 596h (the longest timer Node.js keeps) when metrics.otlp.enabled is true, got "1ms"',
    ],
  ])('refuses %j with one line naming the variable', (env, line) => {
    expect(problemsOf(() => peer(PROMETHEUS_PEER, env))).toEqual([line]);
  });

  it('needs the prometheus provider, and says so naming what turned the push on', () => {
    expect(problemsOf(() => peer('metrics:\n  provider: disabled\n', { OTEL_METRICS_EXPORTER: 'otlp' }))).toEqual([
      'OTEL_METRICS_EXPORTER: the OTLP push sends the series /metrics serves, so it needs metrics.provider prometheus, got "disabled"',
    ]);
    expect(problemsOf(() => orderer('Metrics:\n  Provider: statsd\n  Statsd:\n    Network: udp\n    Address: 127.0.0.1:8125\n  OTLP:\n    Enabled: true\n'))).toEqual([
      'orderer.yaml: Metrics.OTLP.Enabled: the OTLP push sends the series /metrics serves, so it needs Metrics.Provider prometheus, got "statsd"',
    ]);
  });

  it('names the file key for a bad value written there, and warns about a misspelt key in the section', () => {
    expect(problemsOf(() => peer(`${PROMETHEUS_PEER}  otlp:\n    enabled: true\n    endpoint: ftp://x/v1/metrics\n    timeout: 0s\n`))).toEqual([
      'core.yaml: metrics.otlp.endpoint: expected an http:// or https:// URL like http://localhost:4318/v1/metrics, got "ftp://x/v1/metrics" (scheme ftp)',
      'core.yaml: metrics.otlp.timeout: expected a duration from 1ms to 596h (the longest timer Node.js keeps) when metrics.otlp.enabled is true, got "0s"',
    ]);
    expect(peer(`${PROMETHEUS_PEER}  otlp:\n    endpoit: http://x\n`).warnings).toEqual(['core.yaml: metrics.otlp.endpoit: unknown key, ignored; did you mean endpoint?']);
    expect(problemsOf(() => orderer(`${PROMETHEUS_ORDERER}  OTLP:\n    Intervall: 1s\n`))[0]).toMatch(/^orderer\.yaml: Metrics\.OTLP\.Intervall: unknown key; did you mean Interval\?/);
  });
});

describe('OTLP environment override matrix', () => {
  const PEER_ON = `${PROMETHEUS_PEER}  otlp:\n    enabled: true\n`;
  const ORDERER_ON = `${PROMETHEUS_ORDERER}  OTLP:\n    Enabled: true\n`;
  it.each([
    ['peer', 'CORE_METRICS_OTLP_ENDPOINT', 'http://c:4318/x', { endpoint: 'http://c:4318/x' }],
    ['peer', 'CORE_METRICS_OTLP_HEADERS', 'a=b', { headers: { a: 'b' } }],
    ['peer', 'CORE_METRICS_OTLP_TIMEOUT', '3s', { timeoutMs: 3_000 }],
    ['peer', 'CORE_METRICS_OTLP_INTERVAL', '250ms', { intervalMs: 250 }],
    ['orderer', 'ORDERER_METRICS_OTLP_ENDPOINT', 'http://c:4318/x', { endpoint: 'http://c:4318/x' }],
    ['orderer', 'ORDERER_METRICS_OTLP_HEADERS', 'a=b', { headers: { a: 'b' } }],
    ['orderer', 'ORDERER_METRICS_OTLP_TIMEOUT', '3s', { timeoutMs: 3_000 }],
    ['orderer', 'ORDERER_METRICS_OTLP_INTERVAL', '250ms', { intervalMs: 250 }],
  ] as const)('%s: %s=%j', (app, name, value, expected) => {
    const load = (env: NodeJS.ProcessEnv) => (app === 'peer' ? peer(PEER_ON, env) : orderer(ORDERER_ON, env));
    expect(otlpOf(load({ [name]: value }).config)).toMatchObject(expected);
    expect(otlpOf(load({}).config)).not.toMatchObject(expected);
    expect(Object.entries(load({ [name]: value }).sources).filter(([, source]) => source.from === 'env')).toEqual([[expect.any(String), { from: 'env', variable: name }]]);
  });

  it('CORE_METRICS_OTLP_ENABLED and ORDERER_METRICS_OTLP_ENABLED turn it on', () => {
    expect(otlpOf(peer(PROMETHEUS_PEER, { CORE_METRICS_OTLP_ENABLED: 'true' }).config)).toBeDefined();
    expect(otlpOf(orderer(PROMETHEUS_ORDERER, { ORDERER_METRICS_OTLP_ENABLED: 'true' }).config)).toBeDefined();
  });
});

describe('OTLP headers as OpenTelemetry writes them', () => {
  it.each([
    ['', {}],
    ['a=1', { a: '1' }],
    [' a = x%2Cy , B=2 ,', { a: 'x,y', b: '2' }],
    ['k=a=b', { k: 'a=b' }],
  ])('%j', (text, headers) => {
    expect(parseOtlpHeaders(text)).toEqual({ headers });
  });

  it.each([['=x'], ['bad name=1'], ['a=%E0%A4%A'], ['a=x%0Ay']])('refuses %j', (text) => {
    expect(parseOtlpHeaders(text)).toHaveProperty('problem');
  });
});
