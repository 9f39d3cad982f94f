import { createServer } from 'node:http';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freeTcpPort, send, startPrometheus, useAppHarness, type PrometheusServer } from '@fabric-ops/test-kit';
import { afterEach, describe, expect, it } from 'vitest';

const { configDir, emptyDir, start, run } = useAppHarness(fileURLToPath(new URL('../dist/bin.cjs', import.meta.url)), 'core.yaml');

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const PROMETHEUS_PEER = 'vm:\n  endpoint: ""\noperations:\n  listenAddress: 127.0.0.1:0\nmetrics:\n  provider: prometheus\n';

// Loaded with --import ahead of the bin: a module resolution hook (on Node's hooks thread) that
// appends every `@opentelemetry/…` specifier the process resolves to a file.
const RESOLVE_RECORDER = `import { register } from 'node:module';
const hooks = \`
import { appendFileSync } from 'node:fs';
let file;
export function initialize(data) { file = data.file; }
export async function resolve(specifier, context, next) {
  if (specifier.startsWith('@opentelemetry/')) appendFileSync(file, specifier + '\\\\n');
  return next(specifier, context);
}
\`;
register('data:text/javascript,' + encodeURIComponent(hooks), { data: { file: process.env.OTEL_RECORD_FILE } });
`;

function recorder(): { env: NodeJS.ProcessEnv; resolved: () => string[] } {
  const dir = emptyDir();
  const script = join(dir, 'record.mjs');
  const file = join(dir, 'resolved.txt');
  writeFileSync(script, RESOLVE_RECORDER);
  return {
    env: { NODE_OPTIONS: `--import ${script}`, OTEL_RECORD_FILE: file },
    resolved: () => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []),
  };
}

interface Sample {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly value: number;
}

/** The text exposition's samples (the peer's own /metrics; label values as Prometheus unescapes them). */
function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match === null) throw new Error(`unparsed exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
      labels[pair[1]!] = pair[2]!.replace(/\\(.)/g, (_, ch: string) => (ch === 'n' ? '\n' : ch));
    }
    samples.push({ name: match[1]!, labels, value: Number(match[3]!.replace('+Inf', 'Infinity')) });
  }
  return samples;
}

/** One series' identity: its name and labels in order, without an empty label (Prometheus drops those). */
function seriesKey(name: string, labels: Record<string, string>): string {
  const pairs = Object.entries(labels)
    .filter(([, value]) => value !== '')
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([key, value]) => `${key}=${JSON.stringify(value)}`);
  return `${name}{${pairs.join(',')}}`;
}

async function otlpReceiver(): Promise<PrometheusServer> {
  // UnderscoreEscapingWithoutSuffixes: no unit or `_total` suffix is added, so a counter keeps
  // the name /metrics gives it (Prometheus's default strategy would add `_total`).
  const prometheus = await startPrometheus({ extraArgs: ['--web.enable-otlp-receiver'], otlp: { translationStrategy: 'UnderscoreEscapingWithoutSuffixes' } });
  cleanups.push(() => prometheus.stop());
  return prometheus;
}

describe('peer: OTLP push (OTEL_METRICS_EXPORTER=otlp) into a real Prometheus 3 OTLP receiver', () => {
  it('Prometheus holds every series /metrics serves, under the same names and labels, with the same values', async () => {
    const prometheus = await otlpReceiver();
    const probe = recorder();
    const app = await start({
      FABRIC_CFG_PATH: configDir(PROMETHEUS_PEER),
      OTEL_METRICS_EXPORTER: 'otlp',
      // the generic endpoint: /v1/metrics is appended, which is where Prometheus receives OTLP
      OTEL_EXPORTER_OTLP_ENDPOINT: `${prometheus.url}/api/v1/otlp`,
      OTEL_METRIC_EXPORT_INTERVAL: '500',
      OTEL_SERVICE_NAME: 'peer0-org1',
      ...probe.env,
    });
    expect(app.stdout.concat(app.stderr).some((line) => line.includes(`OTLP push to ${prometheus.url}/api/v1/otlp/v1/metrics`))).toBe(true);
    expect((await send(app.address, '/healthz')).status).toBe(200);
    const first = parseExposition((await send(app.address, '/metrics')).body);
    const wanted = new Map(first.map((sample) => [seriesKey(sample.name, sample.labels), sample]));
    expect(wanted.size).toBeGreaterThan(50);
    for (const family of ['fabric_version', 'logging_entries_checked', 'promhttp_metric_handler_requests_total', 'nodejs_heap_size_used_bytes', 'process_cpu_seconds_total']) {
      expect([...wanted.values()].some((sample) => sample.name === family)).toBe(true);
    }

    // Resource attributes become job (service.name) and target_info, which /metrics does not have.
    const pushed = await prometheus.waitFor(
      '{job="peer0-org1",__name__!="target_info"}',
      (samples) => {
        const held = new Set(samples.map(({ metric: { __name__, job: _job, instance: _instance, ...labels } }) => seriesKey(__name__!, labels)));
        return [...wanted.keys()].every((key) => held.has(key));
      },
      20_000,
    );
    const held = new Map(pushed.map(({ metric: { __name__, job: _job, instance: _instance, ...labels }, value }) => [seriesKey(__name__!, labels), Number(value[1])]));
    // Nothing beyond what /metrics serves (a series created after the scrape aside: none is, here).
    const extra = [...held.keys()].filter((key) => !wanted.has(key));
    const again = new Map(parseExposition((await send(app.address, '/metrics')).body).map((sample) => [seriesKey(sample.name, sample.labels), sample]));
    expect(extra.filter((key) => !again.has(key))).toEqual([]);

    // Values: every series whose value did not move between the two scrapes reads the same.
    // (A scrape counts itself in promhttp_metric_handler_requests_in_flight, 1 while it is served; a push reads 0.)
    const steady = [...wanted].filter(([key, sample]) => again.get(key)?.value === sample.value && !key.startsWith('promhttp_metric_handler_requests_in_flight'));
    expect(held.get('promhttp_metric_handler_requests_in_flight{}')).toBe(0);
    expect(steady.length).toBeGreaterThan(20);
    for (const [key, sample] of steady) expect([key, held.get(key)]).toEqual([key, sample.value]);
    expect(held.get('fabric_version{version="' + first.find((s) => s.name === 'fabric_version')!.labels['version'] + '"}')).toBe(1);
    // histograms arrive as OTLP histograms and are stored as Prometheus's classic _bucket/_sum/_count
    expect([...held.keys()].some((key) => key.startsWith('nodejs_gc_duration_seconds_bucket{') && key.includes('le="+Inf"'))).toBe(true);

    // The exporter was loaded (so the recorder below sees a load when there is one).
    expect(probe.resolved()).toContain('@opentelemetry/exporter-metrics-otlp-proto');
  }, 60_000);

  it('two nodes with default settings push as two instances, and the shipped TargetDown expression names the one that stops', async () => {
    const prometheus = await otlpReceiver();
    const env = { FABRIC_CFG_PATH: configDir(PROMETHEUS_PEER), OTEL_METRICS_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: `${prometheus.url}/api/v1/otlp`, OTEL_METRIC_EXPORT_INTERVAL: '300' };
    const nodes = [await start(env), await start(env)];
    // job from service.name, instance from service.instance.id: <host name>:<bound port>
    const instances = nodes.map((node) => `${hostname()}:${/:(\d+)$/.exec(node.address)![1]}`);
    const versions = await prometheus.waitFor('fabric_version', (samples) => samples.length === 2, 20_000);
    expect(versions.map((sample) => [sample.metric['job'], sample.metric['instance']]).sort()).toEqual(instances.map((instance) => ['fabric-ops', instance]).sort());
    await prometheus.waitFor('target_info{job="fabric-ops"}', (samples) => samples.length === 2, 10_000);

    // The shipped rule's expression, its 3-minute silence shortened to 2 s.
    const rules = readFileSync(fileURLToPath(new URL('../../../deploy/prometheus/alerts.yml', import.meta.url)), 'utf8');
    const targetDown = /- alert: FabricOpsTargetDown[\s\S]*?expr: \|\n([\s\S]*?)\n\s+for:/.exec(rules)![1]!.replace('[3m]', '[2s]');
    expect(await prometheus.query(targetDown)).toEqual([]);
    nodes[0]!.kill();
    await nodes[0]!.exited;
    const down = await prometheus.waitFor(targetDown, (samples) => samples.length > 0, 15_000);
    expect(down.map((sample) => sample.metric)).toEqual([{ job: 'fabric-ops', instance: instances[0] }]);
  }, 60_000);

  it('without OTEL_METRICS_EXPORTER nothing of OpenTelemetry is loaded, even with other OTEL_* variables set', async () => {
    const probe = recorder();
    const app = await start({
      FABRIC_CFG_PATH: configDir(PROMETHEUS_PEER),
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      ...probe.env,
    });
    expect((await send(app.address, '/metrics')).status).toBe(200);
    expect((await send(app.address, '/healthz')).status).toBe(200);
    expect(probe.resolved()).toEqual([]);
    expect(app.stdout.concat(app.stderr).some((line) => line.includes('OTLP'))).toBe(false);
  }, 30_000);

  it('a receiver that is down at start: the peer serves as usual, logs each failed push once, and says when pushes get through', async () => {
    const port = await freeTcpPort();
    const app = await start({
      FABRIC_CFG_PATH: configDir(PROMETHEUS_PEER),
      OTEL_METRICS_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: `http://127.0.0.1:${port}/v1/metrics`,
      OTEL_EXPORTER_OTLP_TIMEOUT: '300',
      OTEL_METRIC_EXPORT_INTERVAL: '200',
    });
    const log = () => app.stdout.concat(app.stderr);
    const failures = () => log().filter((line) => line.includes(`OTLP push to http://127.0.0.1:${port}/v1/metrics failed`));
    for (let i = 0; failures().length < 2; i++) {
      expect(i).toBeLessThan(200);
      await new Promise((r) => setTimeout(r, 100));
    }
    // never blocked: the endpoints answer while pushes fail
    expect((await send(app.address, '/metrics')).status).toBe(200);
    expect((await send(app.address, '/healthz')).status).toBe(200);

    let received = 0;
    const receiver = createServer((req, res) => {
      req.resume().on('end', () => {
        received++;
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(port, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => receiver.close(() => resolve())));
    for (let i = 0; !log().some((line) => line.includes('succeeded again after')); i++) {
      expect(i).toBeLessThan(200);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(received).toBeGreaterThan(0);
  }, 60_000);

  it('--check-config and a start give the same line for a bad OTEL_* value', async () => {
    const bad = { FABRIC_CFG_PATH: configDir(PROMETHEUS_PEER), OTEL_METRICS_EXPORTER: 'otlp', OTEL_METRIC_EXPORT_INTERVAL: '10s' };
    const line = 'OTEL_METRIC_EXPORT_INTERVAL: expected a whole number of milliseconds like 60000, got "10s"\n';
    expect(await run(bad, ['--check-config'])).toEqual({ code: 1, stdout: '', stderr: line });
    expect(await run(bad, [])).toEqual({ code: 1, stdout: '', stderr: line });
    // (OTLP without the prometheus provider is refused by the same check: ops-config's otlp.test.ts.)
  }, 30_000);
});
