// The operator kit under deploy/, validated by the real tools: promtool, Prometheus scraping a
// real peer over mutual TLS, and the probe definitions run against a real peer.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { createTestPki, freeTcpPort, prometheusTool, send, type RunningApp, type TestPki } from '@fabric-ops/test-kit';
import { peerLauncher, repoRoot } from './peer.ts';

const run = promisify(execFile);
const PROMETHEUS_DIR = join(repoRoot, 'deploy', 'prometheus');
const scratch: string[] = [];
const peers = peerLauncher();

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  scratch.push(dir);
  return dir;
}

async function promtool(args: readonly string[], cwd: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(prometheusTool('promtool'), args, { cwd, timeout: 60_000 });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

/** A copy of deploy/prometheus whose tls/ files come from this run's PKI. */
function prometheusConfigCopy(pki: TestPki): string {
  const dir = tempDir('fabric-ops-prom-');
  cpSync(PROMETHEUS_DIR, dir, { recursive: true });
  mkdirSync(join(dir, 'tls'), { recursive: true });
  writeFileSync(join(dir, 'tls', 'ops-ca.pem'), pki.ca.cert);
  writeFileSync(join(dir, 'tls', 'prometheus.pem'), pki.clients.good.cert);
  writeFileSync(join(dir, 'tls', 'prometheus-key.pem'), pki.clients.good.key);
  return dir;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}

let pki: TestPki;
const prometheusProcesses: ChildProcess[] = [];

beforeAll(async () => {
  pki = await createTestPki();
}, 120_000);

afterAll(async () => {
  for (const child of prometheusProcesses) child.kill('SIGKILL');
  peers.stopAll();
  await pki?.cleanup();
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

describe('deploy/prometheus', () => {
  it('alerts.yml passes promtool check rules', async () => {
    const result = await promtool(['check', 'rules', 'alerts.yml'], PROMETHEUS_DIR);
    expect(result.output).toContain('SUCCESS: 4 rules found');
    expect(result.code).toBe(0);
  });

  it('alerts.yml passes its unit tests (promtool test rules alerts.test.yml)', async () => {
    const result = await promtool(['test', 'rules', 'alerts.test.yml'], PROMETHEUS_DIR);
    expect(result.output).toContain('SUCCESS');
    expect(result.code).toBe(0);
  });

  it('the unit tests would catch a broken alert: a weakened rule fails them', async () => {
    const dir = tempDir('fabric-ops-rules-');
    cpSync(PROMETHEUS_DIR, dir, { recursive: true });
    const rules = readFileSync(join(dir, 'alerts.yml'), 'utf8').replace('== 0\n        for: 1m', '== 0\n        for: 10m');
    writeFileSync(join(dir, 'alerts.yml'), rules);
    const result = await promtool(['test', 'rules', 'alerts.test.yml'], dir);
    expect(result.code).not.toBe(0);
    expect(result.output).toContain('FabricOpsHealthCheckFailing');
  });

  it('prometheus.yml passes promtool check config with real certificate files', async () => {
    const dir = prometheusConfigCopy(pki);
    const result = await promtool(['check', 'config', 'prometheus.yml'], dir);
    expect(result.output).toContain('is valid prometheus config file syntax');
    expect(result.code).toBe(0);
  });

  it('lets a real Prometheus scrape a peer over mutual TLS (clientAuthRequired true) and load the alerts', async () => {
    const peer: RunningApp = await peers.start({
      tls: { certFile: pki.server.certFile, keyFile: pki.server.keyFile, clientAuthRequired: true, clientRootCAs: [pki.ca.certFile] },
    });
    const dir = prometheusConfigCopy(pki);
    const config = parse(readFileSync(join(dir, 'prometheus.yml'), 'utf8')) as {
      global: Record<string, string>;
      scrape_configs: { job_name: string; static_configs: { targets: string[]; labels?: Record<string, string> }[]; tls_config: Record<string, string> }[];
    };
    config.global['scrape_interval'] = '1s';
    config.global['scrape_timeout'] = '1s';
    config.global['evaluation_interval'] = '1s';
    const peerJob = config.scrape_configs.find((job) => job.job_name === 'fabric-peer')!;
    peerJob.static_configs = [{ targets: [peer.address] }];
    // The test PKI's server certificate names 127.0.0.1, so the address verifies as is.
    config.scrape_configs = [peerJob];
    writeFileSync(join(dir, 'prometheus.yml'), stringify(config, { aliasDuplicateObjects: false }));

    const port = await freeTcpPort();
    const child = spawn(prometheusTool('prometheus'), [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`], {
      cwd: dir,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    prometheusProcesses.push(child);
    let log = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (log = (log + chunk).slice(-20_000)));
    const api = `127.0.0.1:${port}`;

    const target = await until(
      'the peer target to be up',
      async () => {
        if (child.exitCode !== null) throw new Error(`prometheus exited with ${child.exitCode}`);
        const reply = await send(api, '/api/v1/targets');
        const body = JSON.parse(reply.body) as { data: { activeTargets: { health: string; lastError: string; scrapeUrl: string }[] } };
        const found = body.data.activeTargets[0];
        return found?.health === 'up' ? found : undefined;
      },
      60_000,
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\nprometheus log:\n${log}`);
    });
    expect(target.scrapeUrl).toBe(`https://${peer.address}/metrics`);

    const version = await until('fabric_version in the TSDB', async () => {
      const reply = await send(api, `/api/v1/query?query=${encodeURIComponent('fabric_version{job="fabric-peer"}')}`);
      const body = JSON.parse(reply.body) as { data: { result: { metric: Record<string, string> }[] } };
      return body.data.result[0]?.metric;
    });
    expect(version['version']).toMatch(/^\d+\.\d+\.\d+/);

    const rules = JSON.parse((await send(api, '/api/v1/rules')).body) as { data: { groups: { rules: { name: string; health: string }[] }[] } };
    const loaded = rules.data.groups.flatMap((group) => group.rules);
    expect(loaded.map((rule) => rule.name).sort()).toEqual(['FabricOpsHealthCheckFailing', 'FabricOpsHealthzFailing', 'FabricOpsStaleVersion', 'FabricOpsTargetDown']);
    // Every alert expression evaluates without error against the real data.
    await until('the rules to evaluate', async () => {
      const again = JSON.parse((await send(api, '/api/v1/rules')).body) as typeof rules;
      const all = again.data.groups.flatMap((group) => group.rules);
      return all.every((rule) => rule.health === 'ok') ? true : undefined;
    });
  });
});

describe('deploy/kubernetes', () => {
  const documents = parseAllDocuments(readFileSync(join(repoRoot, 'deploy', 'kubernetes', 'peer-probes.yaml'), 'utf8')).map((doc) => doc.toJS() as Record<string, unknown>);

  interface Probe {
    httpGet?: { path: string; port: string; scheme: string };
    exec?: { command: string[] };
  }
  interface Container {
    livenessProbe: Probe;
    readinessProbe: Probe;
    startupProbe?: Probe;
  }
  const containersOf = (doc: Record<string, unknown>): Container[] => {
    const spec = doc['spec'] as { template?: { spec: { containers: Container[] } }; containers?: Container[] };
    return spec.template?.spec.containers ?? spec.containers ?? [];
  };

  it('probes /livez for liveness and /readyz for readiness', () => {
    const [deployment] = documents;
    const [container] = containersOf(deployment!);
    expect(container?.livenessProbe.httpGet?.path).toBe('/livez');
    expect(container?.startupProbe?.httpGet?.path).toBe('/livez');
    expect(container?.readinessProbe.httpGet?.path).toBe('/readyz');
  });

  const envOf = (doc: Record<string, unknown>, name: string): string | undefined => {
    const spec = doc['spec'] as { template?: { spec: { containers: { env?: { name: string; value: string }[] }[] } }; containers?: { env?: { name: string; value: string }[] }[] };
    const [container] = spec.template?.spec.containers ?? spec.containers ?? [];
    return container?.env?.find((entry) => entry.name === name)?.value;
  };
  const seconds = (duration: string): number => {
    const match = /^(\d+(?:\.\d+)?)(ms|s)$/.exec(duration);
    if (match === null) throw new Error(`unexpected duration ${duration}`);
    return Number(match[1]) / (match[2] === 'ms' ? 1000 : 1);
  };

  it('gives every readiness probe more time than one health check, so a hung check is a named 503', () => {
    for (const doc of documents) {
      const checkTimeout = envOf(doc, 'CORE_OPERATIONS_HEALTH_CHECKTIMEOUT');
      expect(checkTimeout, 'the manifest sets the check timeout it is sized against').toBeDefined();
      const [container] = containersOf(doc);
      const probe = container!.readinessProbe as Probe & { timeoutSeconds: number };
      expect(probe.timeoutSeconds).toBeGreaterThanOrEqual(seconds(checkTimeout!) + 1);
      const command = probe.exec?.command;
      if (command !== undefined) {
        const clientTimeout = seconds(command[command.indexOf('--timeout') + 1]!);
        expect(clientTimeout).toBeGreaterThan(seconds(checkTimeout!));
        expect(clientTimeout).toBeLessThan(probe.timeoutSeconds);
      }
    }
  });

  it('with its check timeout, a hung container runtime turns /readyz into a 503 naming docker within the probe timeout', async () => {
    const dir = tempDir('fabric-ops-hung-');
    const socketPath = join(dir, 'docker.sock');
    const hung = createNetServer(() => {});
    await new Promise<void>((resolve) => hung.listen(socketPath, resolve));
    try {
      const [deployment] = documents;
      const checkTimeout = envOf(deployment!, 'CORE_OPERATIONS_HEALTH_CHECKTIMEOUT')!;
      const peer = await peers.start({}, { CORE_VM_ENDPOINT: `unix://${socketPath}`, CORE_OPERATIONS_HEALTH_CHECKTIMEOUT: checkTimeout });
      const probe = containersOf(deployment!)[0]!.readinessProbe as Probe & { timeoutSeconds: number };
      const started = Date.now();
      const answer = await send(peer.address, '/readyz');
      expect(Date.now() - started).toBeLessThan(probe.timeoutSeconds * 1000);
      expect(answer.status).toBe(503);
      expect(answer.body).toContain('"component":"docker"');
    } finally {
      hung.close();
    }
  }, 30_000);
  // Each container's probes against a peer with its env and mounts: manifest-probes.test.ts.
});

describe('deploy/grafana', () => {
  interface Panel {
    id: number;
    type: string;
    title: string;
    gridPos: { h: number; w: number; x: number; y: number };
    targets?: { refId: string; expr: string }[];
  }
  const dashboard = JSON.parse(readFileSync(join(repoRoot, 'deploy', 'grafana', 'fabric-ops-dashboard.json'), 'utf8')) as {
    uid: string;
    title: string;
    panels: Panel[];
    templating: { list: { name: string }[] };
    __inputs?: { name: string }[];
  };
  const graphPanels = dashboard.panels.filter((panel) => panel.type !== 'row');
  const expressions = graphPanels.flatMap((panel) => (panel.targets ?? []).map((target) => ({ panel: panel.title, expr: target.expr })));
  // What Grafana substitutes before the query reaches Prometheus.
  const concrete = (expr: string) => expr.replaceAll('$__rate_interval', '1m').replaceAll('$job', '.+').replaceAll('$instance', '.+');

  it('is a dashboard Grafana can import: unique panel ids, a grid of 24 columns, variables it uses defined', () => {
    expect(dashboard.uid).toBe('fabric-ops');
    const ids = dashboard.panels.map((panel) => panel.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const panel of dashboard.panels) {
      expect(panel.gridPos.x + panel.gridPos.w, panel.title).toBeLessThanOrEqual(24);
    }
    for (const panel of graphPanels) expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
    const variables = new Set(dashboard.templating.list.map((variable) => variable.name));
    for (const { expr } of expressions) {
      for (const [, name] of expr.matchAll(/\$(\w+)/g)) if (!name!.startsWith('__')) expect(variables, `$${name}`).toContain(name);
    }
  });

  it('declares no import input that nothing uses (Grafana would ask for it on import)', () => {
    const text = JSON.stringify({ ...dashboard, __inputs: undefined });
    for (const input of dashboard.__inputs ?? []) expect(text, input.name).toContain(`\${${input.name}}`);
  });

  it('every panel query is valid PromQL (promtool check rules)', async () => {
    const dir = tempDir('fabric-ops-dash-');
    const rules = { groups: [{ name: 'dashboard', rules: expressions.map(({ expr }, i) => ({ record: `dashboard:query_${i}`, expr: concrete(expr) })) }] };
    writeFileSync(join(dir, 'queries.yml'), stringify(rules));
    const result = await promtool(['check', 'rules', 'queries.yml'], dir);
    expect(result.output).toContain(`SUCCESS: ${expressions.length} rules found`);
    expect(result.code).toBe(0);
  });

  it('queries only metrics the peer really serves (runtime, health, logging)', async () => {
    // A runtime endpoint nobody serves, so the docker checker exists and reports its gauge.
    const peer = await peers.start();
    const sick = await peers.start({}, { CORE_VM_ENDPOINT: 'unix:///nonexistent/fabric-ops-dash/docker.sock' });
    await send(sick.address, '/healthz');
    const served = new Set<string>();
    // Series with labels appear once something is recorded (as with Go's client): the GC
    // histogram after the first collection, which a few scrapes' worth of allocation brings.
    const deadline = Date.now() + 20_000;
    do {
      for (const app of [peer, sick]) {
        const page = await send(app.address, '/metrics');
        expect(page.status).toBe(200);
        for (const [, name] of page.body.matchAll(/^# TYPE (\S+) /gm)) served.add(name!);
      }
    } while (!served.has('nodejs_gc_duration_seconds') && Date.now() < deadline);
    const used = new Set<string>();
    for (const { expr } of expressions) {
      for (const [, name] of concrete(expr).matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\{/g)) used.add(name!);
    }
    used.delete('up');
    expect(used.size).toBeGreaterThan(8);
    for (const name of used) {
      const family = served.has(name) ? name : name.replace(/_(bucket|sum|count)$/, '');
      expect(served, name).toContain(family);
    }
  });
});
