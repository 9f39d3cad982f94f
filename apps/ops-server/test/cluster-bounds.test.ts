// examples/cluster-service (Prometheus) against what one worker's series and greetings can do to
// the primary and every scraper: a reply past the primary's limits, series
// that are not in the exposition grammar, counter values that are not counts or go down, a
// greeting flood, and per-process series left behind by every exit. The workers load
// test/fixtures/hostile-worker.mjs, which replaces their metrics replies with what the test writes.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GREETINGS_PER_WORKER } from '../src/cluster/coordinator.ts';
import { call, hostileWorkerOptions, useClusterService, WORKERS } from './cluster-service.ts';

const dir = mkdtempSync(join(tmpdir(), 'cluster-bounds-'));
const seriesFile = join(dir, 'series.json');
const messagesFile = join(dir, 'messages.json');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MAX_WORKER_SAMPLES = 20_000;
const MAX_RETIRED_SERIES = 2_000;

const cluster = useClusterService(() => ({
  FABRIC_LOGGING_SPEC: 'info',
  NODE_OPTIONS: hostileWorkerOptions(),
  HOSTILE_SERIES: seriesFile,
  HOSTILE_MESSAGES: messagesFile,
  HOSTILE_INIT_DIR: dir,
  CLUSTER_MAX_WORKER_SAMPLES: String(MAX_WORKER_SAMPLES),
  CLUSTER_MAX_RETIRED_SERIES: String(MAX_RETIRED_SERIES),
}));

let seriesId = 0;
/** What the hostile workers report from their next reply on (see hostile-worker.mjs). */
function reportSeries(spec: object): void {
  writeFileSync(seriesFile, JSON.stringify({ ...spec, id: ++seriesId }));
}

function reportOwnSeries(): void {
  if (existsSync(seriesFile)) rmSync(seriesFile);
}

/** The value of the sample named (with labels) exactly `key`; undefined when absent. */
function sample(metrics: string, key: string): number | undefined {
  const escaped = key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const line = new RegExp(`^${escaped} (\\S+)$`, 'm').exec(metrics);
  return line === null ? undefined : Number(line[1]);
}

const dropped = (metrics: string, reason: string): number => sample(metrics, `fabric_ops_cluster_samples_dropped_total{reason="${reason}"}`) ?? 0;

const lines = (metrics: string, prefix: string): number => metrics.split('\n').filter((line) => line.startsWith(prefix)).length;

async function scrape(): Promise<string> {
  const answer = await call(cluster.opsPort, '/metrics', { timeoutMs: 20_000 });
  expect(answer.status).toBe(200);
  return answer.body;
}

/** The first scrape (polled for up to 20 s) for which `holds` is true; `what` names it on a timeout. */
function scrapeUntil(holds: (metrics: string) => boolean, what: string): Promise<string> {
  return cluster.waitFor(
    async () => {
      const metrics = await scrape();
      return holds(metrics) ? metrics : undefined;
    },
    20_000,
    what,
  );
}

/** A pid of a worker serving the application port. */
async function aWorker(): Promise<number> {
  return (JSON.parse((await call(cluster.appPort, '/whoami')).body) as { pid: number }).pid;
}

async function everyWorkerJoined(): Promise<void> {
  await cluster.waitFor(async () => ((await call(cluster.opsPort, '/readyz')).status === 200 ? true : undefined), 20_000, 'every worker joined');
}

// The text format's sample and TYPE lines (0.0.4), for checking a whole page.
const SAMPLE_LINE = /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*"(,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*")*\})? \S+$/;
const TYPE_LINE = /^# TYPE [a-zA-Z_:][a-zA-Z0-9_:]* (counter|gauge|histogram|summary|untyped)$/;

describe('examples/cluster-service: what one worker can send is bounded and checked', () => {
  it('keeps at most maxWorkerSamples of a reply and counts the rest as dropped', async () => {
    const pid = await aWorker();
    reportSeries({ pid, flood: 3 * MAX_WORKER_SAMPLES });
    const body = await scrapeUntil((metrics) => lines(metrics, 'hostile_flood_total{') > 0, 'the flooding worker’s series in a scrape');
    expect(lines(body, 'hostile_flood_total{')).toBe(MAX_WORKER_SAMPLES);
    expect(dropped(body, 'limit')).toBeGreaterThanOrEqual(2 * MAX_WORKER_SAMPLES);
    reportOwnSeries();
    const after = await scrapeUntil((metrics) => lines(metrics, 'hostile_flood_total{') === 0, 'the flood gone once the worker reports its own series again');
    expect(sample(after, 'fabric_ops_cluster_workers')).toBe(WORKERS);
  }, 30_000);

  it('leaves out names, labels and types outside the exposition grammar and the reserved names, and counts them', async () => {
    const before = dropped(await scrape(), 'invalid');
    const pid = await aWorker();
    reportSeries({ pid, invalid: true });
    const body = await scrapeUntil((metrics) => sample(metrics, 'hostile_valid_total') === 5, 'the valid series of the worker sending invalid ones');
    reportOwnSeries();
    for (const line of body.split('\n')) {
      if (line === '' || line.startsWith('# HELP ')) continue;
      if (line.startsWith('#')) expect(line).toMatch(TYPE_LINE);
      else expect(line).toMatch(SAMPLE_LINE);
    }
    expect(body).not.toMatch(/bad-metric-name|hostile_odd_labels|hostile_bad_label|weird_thing/);
    // The cluster's own gauge is the primary's, not 99 added by a worker.
    expect(sample(body, 'fabric_ops_cluster_workers')).toBe(WORKERS);
    expect(dropped(body, 'invalid') - before).toBeGreaterThanOrEqual(5);
  }, 30_000);

  it('refuses counter values that are not finite or are negative, and takes a decrease as that worker’s reset', async () => {
    const pid = await aWorker();
    reportSeries({ pid, counters: { hostile_count_total: 1_000_117, hostile_nan_total: 'NaN', hostile_negative_total: -1e9 } });
    const first = await scrapeUntil((metrics) => sample(metrics, 'hostile_count_total') !== undefined, 'the hostile counters in a scrape');
    expect(sample(first, 'hostile_count_total')).toBe(1_000_117);
    reportSeries({ pid, counters: { hostile_count_total: 171, hostile_nan_total: 'NaN', hostile_negative_total: -1e9 } });
    const second = await scrapeUntil((metrics) => sample(metrics, 'hostile_count_total') !== 1_000_117, 'the decreased counter reported');
    // 1,000,117 counted before the reset, 171 since.
    expect(sample(second, 'hostile_count_total')).toBe(1_000_288);
    expect(sample(second, 'fabric_ops_cluster_counter_resets_total')).toBeGreaterThanOrEqual(1);
    for (const name of ['hostile_nan_total', 'hostile_negative_total']) {
      const value = sample(second, name) ?? 0;
      expect(Number.isFinite(value) && value >= 0).toBe(true);
    }
    expect(dropped(second, 'value')).toBeGreaterThanOrEqual(4);
    // The worker's counts outlive it, and the service's counters stay numbers after it is replaced.
    await call(cluster.opsPort, '/metrics');
    process.kill(pid, 'SIGKILL');
    await everyWorkerJoined();
    reportOwnSeries();
    const replaced = await scrape();
    expect(sample(replaced, 'hostile_count_total')).toBe(1_000_288);
    expect(replaced).not.toMatch(/^hostile_\S+ (NaN|-)/m);
  }, 30_000);

  it('greets a worker that floods hellos a bounded number of times and counts the rest as dropped', async () => {
    const before = sample(await scrape(), 'fabric_ops_cluster_messages_dropped_total') ?? 0;
    const pid = await aWorker();
    const flood = 500;
    writeFileSync(messagesFile, JSON.stringify({ greetingFlood: flood }));
    process.kill(pid, 'SIGUSR2');
    const body = await scrapeUntil(
      (metrics) => (sample(metrics, 'fabric_ops_cluster_messages_dropped_total') ?? 0) - before >= flood - GREETINGS_PER_WORKER,
      'the hellos past the greeting bounds counted as dropped',
    );
    const greetings = Number(readFileSync(join(dir, `${pid}.init`), 'utf8'));
    expect(greetings).toBeLessThanOrEqual(GREETINGS_PER_WORKER);
    expect(sample(body, 'fabric_ops_cluster_workers')).toBe(WORKERS);
    expect((await call(cluster.opsPort, '/healthz')).status).toBe(200);
  }, 30_000);

  it('keeps at most maxRetiredSeries of exited workers’ series and counts what it folds and drops', async () => {
    const perProcess = 1_000;
    reportSeries({ perProcess });
    for (let exit = 0; exit < 3; exit++) {
      // Every live worker's series held, so the one killed leaves them behind.
      await scrapeUntil((metrics) => lines(metrics, 'hostile_retired_total{') >= WORKERS * perProcess, 'every worker’s per-process series in a scrape');
      process.kill(await aWorker(), 'SIGKILL');
      await everyWorkerJoined();
    }
    const body = await scrape();
    reportOwnSeries();
    expect(sample(body, 'fabric_ops_cluster_retired_series')).toBeLessThanOrEqual(MAX_RETIRED_SERIES);
    expect(sample(body, 'fabric_ops_cluster_retired_dropped_total')).toBeGreaterThanOrEqual(3 * perProcess - MAX_RETIRED_SERIES);
    expect(sample(body, 'fabric_ops_cluster_retired_folded_total')).toBeGreaterThan(0);
    expect(lines(body, 'hostile_retired_total{')).toBeLessThanOrEqual(MAX_RETIRED_SERIES + WORKERS * perProcess);
  }, 30_000);
});
