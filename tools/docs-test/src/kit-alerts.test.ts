// The operator kit as an operator runs it: a real Prometheus (3.x, test-kit's prometheusTool)
// loads each shipped config — prometheus.yml (one node set) and prometheus-file-sd.yml (a
// two-organisation network, jobs fabric-org1 / fabric-org2) — with alerts.yml, scrapes real peer
// and orderer bins over mutual TLS (some of them stopped, one with a failing health check), and
// the real blackbox exporter probes their /healthz with blackbox.yml. Then the rules API must
// show each alert firing for exactly the nodes that are down or sick. The test copy only
// shortens intervals and `for:` durations and points the files at this run's nodes and PKI.
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, type ExpectStatic } from 'vitest';
import { parse, stringify } from 'yaml';
import { configDir, createTestPki, freeTcpPort, prometheusTool, runAppToExit, send, spawnApp, type PemPair, type RunningApp, type TestCa, type TestPki } from '@fabric-ops/test-kit';
import { OPSCTL_BIN, ORDERER_BIN, peerLauncher, repoRoot } from './peer.ts';

const PROMETHEUS_DIR = join(repoRoot, 'deploy', 'prometheus');
const peers = peerLauncher();
const scratch: string[] = [];
const daemons: ChildProcess[] = [];
const others: RunningApp[] = [];

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  scratch.push(dir);
  return dir;
}

/** Debian's package names the binary prometheus-blackbox-exporter; upstream's release, blackbox_exporter. */
function blackboxExporterBin(): string {
  const names = ['prometheus-blackbox-exporter', 'blackbox_exporter'];
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    for (const name of names) if (dir !== '' && existsSync(join(dir, name))) return join(dir, name);
  }
  throw new Error('the blackbox exporter is not installed (apt-get install prometheus-blackbox-exporter; scripts/test-deps.sh does it)');
}

/** Starts a daemon and polls `readyUrl` until it answers 2xx; rejects with its output if it exits or never does. */
async function startDaemon(program: string, args: readonly string[], readyUrl: string, cwd: string): Promise<ChildProcess> {
  const child = spawn(program, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  daemons.push(child);
  let output = '';
  const keep = (chunk: string) => (output = (output + chunk).slice(-20_000));
  child.stdout!.setEncoding('utf8').on('data', keep);
  child.stderr!.setEncoding('utf8').on('data', keep);
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${program} exited: ${output}`);
    if (
      await fetch(readyUrl).then(
        (reply) => reply.ok,
        () => false,
      )
    )
      return child;
    if (Date.now() > deadline) throw new Error(`${program} not ready within 30 s: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

let pki: TestPki;
let org1: Org;
let org2: Org;
/** Org1: healthy, failing its docker check (checked in the background), and stopped. */
let healthy: RunningApp;
let sick: RunningApp;
let stopped: string;
/** Org1's CA, labelled orderer-org in the fleet file. */
let orderer: RunningApp;
/** Org2: healthy, and stopped. */
let healthyOrg2: RunningApp;
let stoppedOrg2: string;
/** One healthy node per organisation with clientAuthRequired true: the blackbox probe needs its organisation's certificate. */
let requiredOrg1: RunningApp;
let requiredOrg2: RunningApp;
let blackboxAddress: string;

interface Org {
  readonly ca: { readonly certFile: string; readonly cert: string };
  readonly client: PemPair;
  readonly tls: { certFile: string; keyFile: string; clientAuthRequired: boolean; clientRootCAs: string[] };
}

/** /metrics wants Prometheus's client certificate; /healthz, as in Fabric, none. */
function orgOf(ca: TestCa, server: PemPair, client: PemPair): Org {
  return { ca, client, tls: { certFile: server.certFile, keyFile: server.keyFile, clientAuthRequired: false, clientRootCAs: [ca.certFile] } };
}

async function startStopped(org: Org): Promise<string> {
  const peer = await peers.start({ tls: org.tls });
  peer.kill();
  await peer.exited;
  return peer.address;
}

beforeAll(async () => {
  pki = await createTestPki();
  org1 = orgOf(pki.ca, pki.server, pki.clients.good);
  // Org2 runs its own operations CA: the PKI's second root, which org1's nodes do not trust.
  const [server2, client2] = await Promise.all([
    pki.rogueCa.issue('org2-server', { subject: { O: 'Org2', CN: 'peer' }, extendedKeyUsage: ['serverAuth'], dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] }),
    pki.rogueCa.issue('org2-prometheus', { subject: { O: 'Org2', CN: 'prometheus' }, extendedKeyUsage: ['clientAuth'] }),
  ]);
  org2 = orgOf(pki.rogueCa, server2, client2);
  const ordererYaml = [
    'Operations:',
    '  ListenAddress: 127.0.0.1:0',
    '  TLS:',
    '    Enabled: true',
    `    Certificate: ${JSON.stringify(org1.tls.certFile)}`,
    `    PrivateKey: ${JSON.stringify(org1.tls.keyFile)}`,
    '    ClientAuthRequired: false',
    `    ClientRootCAs: [${JSON.stringify(org1.ca.certFile)}]`,
    'Metrics:',
    '  Provider: prometheus',
    '',
  ].join('\n');
  [healthy, sick, stopped, orderer, healthyOrg2, stoppedOrg2, requiredOrg1, requiredOrg2] = await Promise.all([
    peers.start({ tls: org1.tls }),
    // A container runtime nobody serves: the docker check fails. Nobody asks its /healthz
    // before the first test; the key below makes the checks run on their own.
    peers.start({ tls: org1.tls, vmEndpoint: 'unix:///nonexistent/fabric-ops-kit/docker.sock' }, { CORE_OPERATIONS_HEALTH_CHECKINTERVAL: '500ms' }),
    startStopped(org1),
    spawnApp(ORDERER_BIN, { env: { FABRIC_CFG_PATH: configDir('orderer.yaml', ordererYaml), FABRIC_LOGGING_SPEC: 'info' } }),
    peers.start({ tls: org2.tls }),
    startStopped(org2),
    peers.start({ tls: { ...org1.tls, clientAuthRequired: true } }),
    peers.start({ tls: { ...org2.tls, clientAuthRequired: true } }),
  ]);
  others.push(orderer);

  // blackbox.yml as shipped, its /etc/prometheus/tls/ files from this run's PKI (laid out as kitCopy's tls/).
  const blackboxDir = tempDir('fabric-ops-blackbox-');
  writeTlsFiles(join(blackboxDir, 'tls'));
  writeFileSync(join(blackboxDir, 'tls', 'ops-cas.pem'), org1.ca.cert + org2.ca.cert);
  const shipped = readFileSync(join(PROMETHEUS_DIR, 'blackbox.yml'), 'utf8');
  const module = shipped.replaceAll('/etc/prometheus/tls/', `${join(blackboxDir, 'tls')}/`);
  expect(module).not.toContain('/etc/prometheus');
  writeFileSync(join(blackboxDir, 'blackbox.yml'), module);
  blackboxAddress = `127.0.0.1:${await freeTcpPort()}`;
  await startDaemon(blackboxExporterBin(), [`--config.file=${join(blackboxDir, 'blackbox.yml')}`, `--web.listen-address=${blackboxAddress}`], `http://${blackboxAddress}/-/healthy`, blackboxDir);
}, 120_000);

afterAll(async () => {
  for (const child of daemons) child.kill('SIGKILL');
  for (const app of others) app.kill();
  peers.stopAll();
  await pki?.cleanup();
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

/**
 * A copy of deploy/prometheus as an operator would lay it out, with this run's TLS files, the
 * blackbox exporter's address, 1 s intervals and 1 s `for:` durations.
 */
/** The tls/ layout the configs name: Org1's CA and client certificate at the top, Org2's under org2/. */
function writeTlsFiles(tls: string): void {
  mkdirSync(join(tls, 'org2'), { recursive: true });
  for (const [sub, org] of [
    ['', org1],
    ['org2', org2],
  ] as const) {
    writeFileSync(join(tls, sub, 'ops-ca.pem'), org.ca.cert);
    writeFileSync(join(tls, sub, 'prometheus.pem'), org.client.cert);
    writeFileSync(join(tls, sub, 'prometheus-key.pem'), org.client.key);
  }
}

function kitCopy(): string {
  const dir = tempDir('fabric-ops-kit-');
  cpSync(PROMETHEUS_DIR, dir, { recursive: true });
  writeTlsFiles(join(dir, 'tls'));
  const alerts = readFileSync(join(dir, 'alerts.yml'), 'utf8');
  const shortened = alerts.replace(/^(\s+)for: \d+m$/gm, '$1for: 1s');
  expect(shortened.match(/for: 1s/g)).toHaveLength(alerts.match(/^\s+for: /gm)!.length);
  writeFileSync(join(dir, 'alerts.yml'), shortened);
  return dir;
}

interface ScrapeJob {
  job_name: string;
  static_configs?: { targets: string[]; labels?: Record<string, string> }[];
  relabel_configs?: { replacement?: string }[];
}
interface PrometheusConfig {
  global: Record<string, string>;
  scrape_configs: ScrapeJob[];
}

/** The config with 1 s intervals and the blackbox job pointed at this run's exporter. */
function shortenConfig(config: PrometheusConfig): void {
  config.global['scrape_interval'] = '1s';
  config.global['scrape_timeout'] = '1s';
  config.global['evaluation_interval'] = '1s';
  const probe = config.scrape_configs.find((job) => job.job_name === 'blackbox-fabric-healthz');
  const exporter = probe?.relabel_configs?.find((rule) => rule.replacement === '127.0.0.1:9115');
  expect(exporter, 'the blackbox job sends its probes to the exporter on 127.0.0.1:9115').toBeDefined();
  exporter!.replacement = blackboxAddress;
}

async function startPrometheus(dir: string, configName: string): Promise<string> {
  const port = await freeTcpPort();
  const api = `http://127.0.0.1:${port}`;
  await startDaemon(
    prometheusTool('prometheus'),
    [`--config.file=${join(dir, configName)}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
    `${api}/-/ready`,
    dir,
  );
  return api;
}

interface AlertingRule {
  name: string;
  health: string;
  lastError?: string;
  alerts: { state: string; labels: Record<string, string> }[];
}

async function alertingRules(api: string): Promise<AlertingRule[]> {
  const body = (await (await fetch(`${api}/api/v1/rules?type=alert`)).json()) as { data: { groups: { rules: AlertingRule[] }[] } };
  return body.data.groups.flatMap((group) => group.rules);
}

type Firing = Record<string, string[]>;

/** Which instances each alert fires for (`job/instance`), sorted. */
function firingOf(rules: readonly AlertingRule[]): Firing {
  return Object.fromEntries(
    rules.map((rule) => [
      rule.name,
      rule.alerts
        .filter((alert) => alert.state === 'firing')
        .map((alert) => `${alert.labels['job']}/${alert.labels['instance']}${alert.labels['component'] ? `/${alert.labels['component']}` : ''}`)
        .sort(),
    ]),
  );
}

/** Polls the rules API until every rule is healthy and the firing alerts are `expected`. */
async function expectFiring(api: string, expected: Firing): Promise<AlertingRule[]> {
  const deadline = Date.now() + 25_000;
  let rules: AlertingRule[] = [];
  for (;;) {
    rules = await alertingRules(api);
    if (rules.every((rule) => rule.health === 'ok') && JSON.stringify(firingOf(rules)) === JSON.stringify(expected)) return rules;
    if (Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const targets = await (await fetch(`${api}/api/v1/targets`)).json();
  expect(firingOf(rules), `targets: ${JSON.stringify(targets)}`).toEqual(expected);
  for (const rule of rules) expect(rule.health, `${rule.name}: ${rule.lastError}`).toBe('ok');
  return rules;
}

describe('operations.health.checkInterval (CORE_OPERATIONS_HEALTH_CHECKINTERVAL)', () => {
  it('puts health_check_status in /metrics with nobody asking /healthz', async () => {
    // Only /metrics is asked here, which runs no check: the gauge can come from the background runs alone.
    const deadline = Date.now() + 15_000;
    let page = '';
    do {
      page = (await send(sick.address, '/metrics', { tls: { ca: org1.ca.cert, cert: org1.client.cert, key: org1.client.key } })).body;
      if (/^health_check_status\{component="docker"\} 0$/m.test(page)) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    } while (Date.now() < deadline);
    expect(page).toMatch(/^health_check_status\{component="docker"\} 0$/m);
  });
});

interface OpsctlRow {
  target: string;
  ok: boolean;
  reason?: string;
  changed?: boolean;
  rolled_back?: boolean;
  labels: Record<string, string>;
}

async function opsctlJson(args: readonly string[]): Promise<{ code: number | null; rows: OpsctlRow[]; stderr: string }> {
  const org1Files = ['--cacert', org1.ca.certFile, '--cert', org1.client.certFile, '--key', org1.client.keyFile, '--timeout', '3s'];
  const result = await runAppToExit(OPSCTL_BIN, { args: [...org1Files, ...args, '--json'] });
  return { code: result.code, rows: result.stdout.trim() === '' ? [] : (JSON.parse(result.stdout) as OpsctlRow[]), stderr: result.stderr };
}

/**
 * opsctl --prometheus over this config's Prometheus: only the operations targets (the fabric-*
 * jobs, never the blackbox exporter that probes them), each organisation through its own
 * credential labels; and an exporter among the targets of `logspec set --rollback` changes nothing
 * and rolls nothing back.
 * `expect` is the calling test's own: the tests here run concurrently, and `expect.poll` needs to know
 * which test it belongs to.
 */
async function opsctlThroughPrometheus(expect: ExpectStatic, api: string, addresses: Record<string, string[]>): Promise<void> {
  await expect.poll(async () => (await opsctlJson(['--prometheus', api, 'health'])).rows.length, { timeout: 20_000 }).toBe(Object.values(addresses).flat().length);
  const health = await opsctlJson(['--prometheus', api, 'health']);
  expect(health.rows.map((row) => row.target).sort()).toEqual(Object.values(addresses).flat().sort());
  expect(health.rows.map((row) => row.target)).not.toContain(blackboxAddress);
  const failed = Object.fromEntries(health.rows.filter((row) => !row.ok).map((row) => [row.target, row.reason]));
  expect(failed).toEqual({ [stopped]: 'connection-refused', [stoppedOrg2]: 'connection-refused', [sick.address]: 'unhealthy' });

  const probeJob = await runAppToExit(OPSCTL_BIN, { args: ['--prometheus', api, '--job', 'blackbox-fabric-healthz', 'health'] });
  expect({ code: probeJob.code, stderr: probeJob.stderr }).toEqual({ code: 2, stderr: `opsctl: no targets in ${api} job blackbox-fabric-healthz\n` });

  // The exporter's address as a target, as the blackbox job's scrape URL gives it (plain HTTP).
  const file = join(tempDir('fabric-ops-kit-sd-'), 'mixed.yml');
  writeFileSync(
    file,
    stringify([
      { targets: [blackboxAddress], labels: { __scheme__: 'http' } },
      { targets: [healthy.address, requiredOrg1.address], labels: { __scheme__: 'https' } },
    ]),
  );
  const set = await opsctlJson(['--targets', file, '--rollback', 'logspec', 'set', 'debug']);
  try {
    const rows = Object.fromEntries(set.rows.map((row) => [row.target, row]));
    expect(rows[blackboxAddress]).toMatchObject({ ok: false, reason: 'not-operations-server' });
    for (const node of [healthy.address, requiredOrg1.address]) expect(rows[node]).toMatchObject({ ok: true, changed: true });
    expect(set.rows.some((row) => row.rolled_back === true)).toBe(false);
    expect(set.code).toBe(1);
  } finally {
    await opsctlJson(['--address', healthy.address, '--address', requiredOrg1.address, 'logspec', 'set', 'info']);
  }
}

// The two configs run side by side, each with its own Prometheus, to keep the file short.
describe.concurrent('deploy/prometheus alerts fire through each shipped config', () => {
  it('prometheus.yml (jobs fabric-peer, fabric-orderer): a stopped peer, a failing check and a failing /healthz', async () => {
    const dir = kitCopy();
    const config = parse(readFileSync(join(dir, 'prometheus.yml'), 'utf8')) as PrometheusConfig;
    shortenConfig(config);
    const jobs = Object.fromEntries(config.scrape_configs.map((job) => [job.job_name, job]));
    expect(Object.keys(jobs).sort()).toEqual(['blackbox-fabric-healthz', 'fabric-orderer', 'fabric-peer']);
    jobs['fabric-peer']!.static_configs = [{ targets: [healthy.address, sick.address, stopped, requiredOrg1.address], labels: { org: 'org1' } }];
    jobs['fabric-orderer']!.static_configs = [{ targets: [orderer.address], labels: { org: 'orderer-org' } }];
    jobs['blackbox-fabric-healthz']!.static_configs = [{ targets: [healthy.address, sick.address, stopped, orderer.address, requiredOrg1.address] }];
    writeFileSync(join(dir, 'prometheus.yml'), stringify(config, { aliasDuplicateObjects: false }));

    const api = await startPrometheus(dir, 'prometheus.yml');
    await expectFiring(api, {
      FabricOpsTargetDown: [`fabric-peer/${stopped}`],
      FabricOpsHealthCheckFailing: [`fabric-peer/${sick.address}/docker`],
      // One version across the fleet: evaluated, nothing stale.
      FabricOpsStaleVersion: [],
      FabricOpsHealthzFailing: [`blackbox-fabric-healthz/${sick.address}`, `blackbox-fabric-healthz/${stopped}`].sort(),
    });
  });

  it('prometheus-file-sd.yml (jobs fabric-org1, fabric-org2, one CA each): the same alerts, in both organisations', async ({ expect }) => {
    const dir = kitCopy();
    const config = parse(readFileSync(join(dir, 'prometheus-file-sd.yml'), 'utf8')) as PrometheusConfig;
    shortenConfig(config);
    expect(config.scrape_configs.map((job) => job.job_name).sort()).toEqual(['blackbox-fabric-healthz', 'fabric-org1', 'fabric-org2']);
    writeFileSync(join(dir, 'prometheus-file-sd.yml'), stringify(config, { aliasDuplicateObjects: false }));
    // The shipped target file's shape (org and role labels), with this run's addresses.
    const groups = parse(readFileSync(join(dir, 'file_sd', 'fabric-network.yml'), 'utf8')) as { targets: string[]; labels: Record<string, string> }[];
    const addresses: Record<string, string[]> = {
      org1: [healthy.address, sick.address, stopped, requiredOrg1.address],
      'orderer-org': [orderer.address],
      org2: [healthyOrg2.address, stoppedOrg2, requiredOrg2.address],
    };
    expect(groups.map((group) => group.labels['org']).sort()).toEqual(Object.keys(addresses).sort());
    for (const group of groups) group.targets = addresses[group.labels['org']!]!;
    // Org2's opsctl credentials, from this run's PKI.
    const org2Labels: Record<string, string> = { __opsctl_cacert: org2.ca.certFile, __opsctl_cert: org2.client.certFile, __opsctl_key: org2.client.keyFile };
    for (const group of groups) for (const name of Object.keys(group.labels)) if (org2Labels[name] !== undefined) group.labels[name] = org2Labels[name];
    writeFileSync(join(dir, 'file_sd', 'fabric-network.yml'), stringify(groups));

    const api = await startPrometheus(dir, 'prometheus-file-sd.yml');
    await expectFiring(api, {
      FabricOpsTargetDown: [`fabric-org1/${stopped}`, `fabric-org2/${stoppedOrg2}`].sort(),
      FabricOpsHealthCheckFailing: [`fabric-org1/${sick.address}/docker`],
      FabricOpsStaleVersion: [],
      FabricOpsHealthzFailing: [`blackbox-fabric-healthz/${sick.address}`, `blackbox-fabric-healthz/${stopped}`, `blackbox-fabric-healthz/${stoppedOrg2}`].sort(),
    });
    // Each organisation's healthy nodes were scraped through their own CA's job.
    const up = (await (await fetch(`${api}/api/v1/query?query=${encodeURIComponent('up{job=~"fabric-.+"} == 1')}`)).json()) as { data: { result: { metric: Record<string, string> }[] } };
    expect(up.data.result.map((sample) => `${sample.metric['job']}/${sample.metric['instance']}`).sort()).toEqual(
      [
        `fabric-org1/${healthy.address}`,
        `fabric-org1/${sick.address}`,
        `fabric-org1/${orderer.address}`,
        `fabric-org1/${requiredOrg1.address}`,
        `fabric-org2/${healthyOrg2.address}`,
        `fabric-org2/${requiredOrg2.address}`,
      ].sort(),
    );
    await opsctlThroughPrometheus(expect, api, addresses);
  });
});
