import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeTcpPort } from './free-port.ts';

export interface PrometheusTargetTls {
  readonly caFile: string;
  readonly certFile: string;
  readonly keyFile: string;
  /** Name to verify the server certificate against. Default: the target's host. */
  readonly serverName?: string;
}

export interface StartPrometheusOptions {
  /** `host:port` of the operations server; without it (and `fileSd`) nothing is scraped (an OTLP receiver only). */
  readonly target?: string;
  /** A file_sd file (YAML or JSON target groups) the job discovers its targets from, instead of `target`. */
  readonly fileSd?: string;
  /** The scrape job's name. Default `operations`. */
  readonly job?: string;
  /** Scrape over HTTPS presenting this client certificate; plain HTTP without it. */
  readonly tls?: PrometheusTargetTls;
  readonly scrapeIntervalSeconds?: number;
  /**
   * The job's `scrape_protocols`, e.g. `['PrometheusProto']`. Default: Prometheus's own
   * (3.x: OpenMetrics first, then the text formats; UTF-8 names allowed).
   */
  readonly scrapeProtocols?: readonly string[];
  /** More command-line flags, e.g. `--web.enable-otlp-receiver`. */
  readonly extraArgs?: readonly string[];
  /** The config file's `otlp:` block (with `--web.enable-otlp-receiver` among extraArgs). */
  readonly otlp?: { readonly translationStrategy?: string };
}

/**
 * Where the Prometheus 3 tools the tests use are: `$FABRIC_OPS_PROMETHEUS_BIN_DIR`, else Go's
 * install directory (`$GOBIN`, `$GOPATH/bin`, `~/go/bin`: scripts/test-deps.sh builds
 * Prometheus 3.16 there with `go install`), else the name alone (PATH).
 */
export function prometheusTool(name: 'prometheus' | 'promtool'): string {
  const dirs = [process.env['FABRIC_OPS_PROMETHEUS_BIN_DIR'], process.env['GOBIN'], process.env['GOPATH'] === undefined ? undefined : join(process.env['GOPATH'], 'bin'), join(homedir(), 'go', 'bin')];
  for (const dir of dirs) {
    if (dir !== undefined && dir !== '' && existsSync(join(dir, name))) return join(dir, name);
  }
  return name;
}

/**
 * `promtool check metrics` (see prometheusTool) over an exposition body: its exit code, and what
 * it printed on stdout and stderr together (empty when the body passes every check).
 */
export function promtoolCheckMetrics(body: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(prometheusTool('promtool'), ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
    child.stdin.end(body);
  });
}

export interface PromSample {
  readonly metric: Record<string, string>;
  readonly value: [number, string];
}

export interface PrometheusServer {
  /** `http://127.0.0.1:<port>` of the Prometheus web API. */
  readonly url: string;
  /** An instant query through `/api/v1/query`. */
  query(expression: string): Promise<PromSample[]>;
  /** Polls a query until `check` holds; rejects with the last result and the scrape state on timeout. */
  waitFor(expression: string, check: (samples: PromSample[]) => boolean, timeoutMs?: number): Promise<PromSample[]>;
  /** The scrape targets and their last errors (`/api/v1/targets`). */
  targets(): Promise<unknown>;
  stop(): Promise<void>;
}

/**
 * The real `prometheus` (see prometheusTool) on a random loopback port, with a generated config that
 * scrapes one operations server (`/metrics`), or those a file_sd file lists, every second (or
 * `scrapeIntervalSeconds`), over mutual TLS when asked.
 */
export async function startPrometheus(options: StartPrometheusOptions): Promise<PrometheusServer> {
  const dir = await mkdtemp(join(tmpdir(), 'fabric-ops-prometheus-'));
  const interval = options.scrapeIntervalSeconds ?? 1;
  const lines = ['global:', `  scrape_interval: ${interval}s`, `  scrape_timeout: ${interval}s`];
  if (options.otlp?.translationStrategy !== undefined) lines.push('otlp:', `  translation_strategy: ${options.otlp.translationStrategy}`);
  const scrapes = options.target !== undefined || options.fileSd !== undefined;
  if (scrapes) lines.push('scrape_configs:', `  - job_name: ${JSON.stringify(options.job ?? 'operations')}`, '    metrics_path: /metrics', `    scheme: ${options.tls ? 'https' : 'http'}`);
  if (scrapes && options.scrapeProtocols !== undefined) lines.push(`    scrape_protocols: [${options.scrapeProtocols.join(', ')}]`);
  if (scrapes && options.tls) {
    lines.push(
      '    tls_config:',
      `      ca_file: ${JSON.stringify(options.tls.caFile)}`,
      `      cert_file: ${JSON.stringify(options.tls.certFile)}`,
      `      key_file: ${JSON.stringify(options.tls.keyFile)}`,
    );
    if (options.tls.serverName !== undefined) lines.push(`      server_name: ${JSON.stringify(options.tls.serverName)}`);
  }
  if (options.target !== undefined) lines.push('    static_configs:', `      - targets: [${JSON.stringify(options.target)}]`);
  if (options.fileSd !== undefined) lines.push('    file_sd_configs:', `      - files: [${JSON.stringify(options.fileSd)}]`);
  lines.push('');
  const configFile = join(dir, 'prometheus.yml');
  await writeFile(configFile, lines.join('\n'));

  let child: ChildProcess | undefined;
  let output = '';
  let url = '';
  for (let attempt = 0; attempt < 3 && child === undefined; attempt++) {
    const port = await freeTcpPort();
    url = `http://127.0.0.1:${port}`;
    const candidate = spawn(
      prometheusTool('prometheus'),
      [`--config.file=${configFile}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn', ...(options.extraArgs ?? [])],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    candidate.stdout!.setEncoding('utf8').on('data', (c: string) => (output += c));
    candidate.stderr!.setEncoding('utf8').on('data', (c: string) => (output += c));
    let exited = false;
    candidate.once('exit', () => (exited = true));
    candidate.once('error', (error) => {
      exited = true;
      output += String(error);
    });
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (exited) break;
      const ready = await fetch(`${url}/-/ready`).then(
        (r) => r.ok,
        () => false,
      );
      if (ready) {
        child = candidate;
        break;
      }
      if (Date.now() > deadline) {
        candidate.kill('SIGKILL');
        throw new Error(`prometheus not ready within 30 s: ${output}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  if (child === undefined) {
    await rm(dir, { recursive: true, force: true });
    throw new Error(`prometheus did not start: ${output}`);
  }
  const running = child;

  const query = async (expression: string): Promise<PromSample[]> => {
    const reply = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(expression)}`);
    const body = (await reply.json()) as { status: string; data?: { result: PromSample[] }; error?: string };
    if (body.status !== 'success') throw new Error(`prometheus query ${expression} failed: ${body.error ?? reply.status}`);
    return body.data?.result ?? [];
  };
  const targets = async () => ((await (await fetch(`${url}/api/v1/targets`)).json()) as { data: unknown }).data;
  return {
    url,
    query,
    targets,
    async waitFor(expression, check, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      let last: PromSample[] = [];
      for (;;) {
        last = await query(expression);
        if (check(last)) return last;
        if (Date.now() > deadline) {
          throw new Error(`prometheus: ${expression} never matched; last ${JSON.stringify(last)}; targets ${JSON.stringify(await targets())}`);
        }
        await new Promise((r) => setTimeout(r, 250));
      }
    },
    async stop() {
      if (running.exitCode === null && running.signalCode === null) {
        const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
        running.kill('SIGTERM');
        const force = setTimeout(() => running.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(force);
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
