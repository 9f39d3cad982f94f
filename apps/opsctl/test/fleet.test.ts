// opsctl against a whole network: 23 real peer and orderer processes on loopback with mutual TLS
// (two organisations with their own operations CAs, some nodes stopped, one behind a rogue CA),
// a listener that never answers, and a real Prometheus discovering the same file_sd file.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import {
  createTestPki,
  ordererYaml,
  peerCoreYaml,
  runAppToExit,
  send,
  startPrometheus,
  type PeerTlsFiles,
  type PemPair,
  type PrometheusServer,
  type RunningApp,
  type TestPki,
} from '@fabric-ops/test-kit';
import { nodeLauncher, startSilentListener } from './fleet-kit.ts';

const OPSCTL = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const PEER = fileURLToPath(new URL('../../peer/dist/bin.cjs', import.meta.url));
const ORDERER = fileURLToPath(new URL('../../orderer/dist/bin.cjs', import.meta.url));
const PEER_COMMIT = 'aaa1111';
const ORDERER_COMMIT = 'bbb2222';
const JOB = 'fabric-operations';
/**
 * Per request, connect to last byte (opsctl's --timeout bounds the whole request now): long enough
 * for a loaded two-core machine, short because the hung target costs it on every run.
 */
const TIMEOUT = '5s';

interface Row {
  target: string;
  labels: Record<string, string>;
  ok: boolean;
  error?: string;
  reason?: string;
  spec?: string;
  previous_spec?: string;
  changed?: boolean;
  rolled_back?: boolean;
  dry_run?: boolean;
  Version?: string;
  CommitSHA?: string;
  failed_checks?: { component: string; reason: string }[];
  latency_ms: number;
}

/** A node of the test network and what its row must say. */
interface Member {
  readonly name: string;
  address: string;
  readonly kind: 'peer' | 'orderer' | 'listener';
  readonly org: 'org1' | 'org2';
  /** Its /logspec answers to opsctl with the credentials its labels select. */
  readonly logspecReachable: boolean;
}

const launcher = nodeLauncher();
const scratch = mkdtempSync(join(tmpdir(), 'fabric-ops-fleet-'));
let org1: TestPki;
let org2: TestPki;
let prometheus: PrometheusServer | undefined;
let silent: Awaited<ReturnType<typeof startSilentListener>>;
let fileSd: string;
const members: Member[] = [];
const byName = (name: string) => members.find((m) => m.name === name)!;

async function opsctl(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runAppToExit(OPSCTL, { args, env: { OPSCTL_ADDRESS: '', OPSCTL_CERT: '', OPSCTL_KEY: '', OPSCTL_CACERT: '' }, readyTimeoutMs: 60_000 });
}

/** The default credentials: org1's operations CA and an org1 admin client certificate. */
const org1Credentials = () => ['--cacert', org1.ca.certFile, '--cert', org1.clients.good.certFile, '--key', org1.clients.good.keyFile];
const fleetArgs = () => ['--targets', fileSd, ...org1Credentials(), '--timeout', TIMEOUT];

async function fleetJson(...args: string[]): Promise<{ code: number | null; rows: Row[]; stderr: string }> {
  const result = await opsctl(...args, '--json');
  let rows: Row[];
  try {
    rows = JSON.parse(result.stdout) as Row[];
  } catch {
    throw new Error(`not JSON (exit ${result.code}): ${result.stdout} ${result.stderr}`);
  }
  return { code: result.code, rows, stderr: result.stderr };
}

const rowOf = (rows: readonly Row[], name: string): Row => {
  const row = rows.find((r) => r.target === byName(name).address);
  if (row === undefined) throw new Error(`no row for ${name} (${byName(name).address})`);
  return row;
};

/** Reads a node's spec without opsctl, with the credentials of its organisation. */
async function specOf(member: Member): Promise<string> {
  const pki = member.org === 'org1' ? org1 : org2;
  const reply = await send(member.address, '/logspec', { tls: { ca: pki.ca.cert, cert: pki.clients.good.cert, key: pki.clients.good.key } });
  expect(reply.status).toBe(200);
  return (JSON.parse(reply.body) as { spec: string }).spec;
}

const reachable = () => members.filter((m) => m.logspecReachable);

beforeAll(async () => {
  [org1, org2] = await Promise.all([createTestPki(), createTestPki()]);
  const rogueServer: PemPair = await org1.rogueCa.issue('rogue-server', {
    subject: { O: 'Rogue', CN: 'localhost' },
    extendedKeyUsage: ['serverAuth'],
    dnsNames: ['localhost'],
    ipAddresses: ['127.0.0.1'],
  });
  const org1Tls = (clientAuthRequired = true): PeerTlsFiles => ({ certFile: org1.server.certFile, keyFile: org1.server.keyFile, clientAuthRequired, clientRootCAs: [org1.ca.certFile] });
  const org2Tls: PeerTlsFiles = { certFile: org2.server.certFile, keyFile: org2.server.keyFile, clientAuthRequired: true, clientRootCAs: [org2.ca.certFile] };
  const peerEnv = { FABRIC_OPS_COMMIT_SHA: PEER_COMMIT };
  const ordererEnv = { FABRIC_OPS_COMMIT_SHA: ORDERER_COMMIT };

  const plan: { member: Omit<Member, 'address'>; start: () => Promise<RunningApp> }[] = [];
  const peer = (name: string, org: 'org1' | 'org2', tls: PeerTlsFiles, logspecReachable: boolean, vmEndpoint?: string) =>
    plan.push({ member: { name, kind: 'peer', org, logspecReachable }, start: () => launcher.start(PEER, 'core.yaml', peerCoreYaml({ tls, ...(vmEndpoint ? { vmEndpoint } : {}) }), peerEnv) });
  const orderer = (name: string, org: 'org1' | 'org2', tls: PeerTlsFiles, logspecReachable: boolean) =>
    plan.push({ member: { name, kind: 'orderer', org, logspecReachable }, start: () => launcher.start(ORDERER, 'orderer.yaml', ordererYaml({ tls }), ordererEnv) });

  for (let i = 0; i < 7; i++) peer(`org1-peer${i}`, 'org1', org1Tls(), true);
  // Its container runtime endpoint is missing: /healthz answers 503 naming the docker check.
  peer('org1-sick', 'org1', org1Tls(), true, 'unix:///nonexistent/opsctl-fleet/docker.sock');
  // Labelled with a CA but no client certificate: /logspec answers 401; the TLS layer lets it in.
  peer('org1-no-cert-optional', 'org1', org1Tls(false), false);
  // Labelled the same, but its TLS layer demands a client certificate: the handshake is refused.
  peer('org1-no-cert-required', 'org1', org1Tls(true), false);
  for (let i = 0; i < 4; i++) orderer(`org1-orderer${i}`, 'org1', org1Tls(), true);
  for (let i = 0; i < 3; i++) peer(`org2-peer${i}`, 'org2', org2Tls, true);
  for (let i = 0; i < 2; i++) orderer(`org2-orderer${i}`, 'org2', org2Tls, true);
  // Serves a certificate from a CA nobody listed.
  peer('org1-rogue', 'org1', { ...org1Tls(), certFile: rogueServer.certFile, keyFile: rogueServer.keyFile }, false);
  // Started, then killed: their ports refuse connections.
  peer('org1-stopped0', 'org1', org1Tls(), false);
  peer('org1-stopped1', 'org1', org1Tls(), false);
  orderer('org1-stopped-orderer', 'org1', org1Tls(), false);

  const started = await Promise.all(plan.map(({ start }) => start()));
  plan.forEach(({ member }, index) => members.push({ ...member, address: started[index]!.address }));
  await Promise.all(
    started
      .filter((_, index) => plan[index]!.member.name.includes('stopped'))
      .map(async (app) => {
        app.kill();
        await app.exited;
      }),
  );
  silent = await startSilentListener();
  members.push({ name: 'org1-hung', kind: 'listener', org: 'org1', address: silent.address, logspecReachable: false });

  // org2's credentials sit next to the file_sd file and are named by relative paths.
  const sdDir = join(scratch, 'sd');
  mkdirSync(join(sdDir, 'org2'), { recursive: true });
  copyFileSync(org2.ca.certFile, join(sdDir, 'org2', 'ca.pem'));
  copyFileSync(org2.clients.good.certFile, join(sdDir, 'org2', 'client.pem'));
  copyFileSync(org2.clients.good.keyFile, join(sdDir, 'org2', 'client-key.pem'));
  const addresses = (test: (m: Member) => boolean) => members.filter(test).map((m) => m.address);
  const caOnly = { __opsctl_cacert: org1.ca.certFile };
  const org2Labels = { __opsctl_cacert: 'org2/ca.pem', __opsctl_cert: 'org2/client.pem', __opsctl_key: 'org2/client-key.pem' };
  const groups = [
    { targets: addresses((m) => m.org === 'org1' && m.kind === 'peer' && !m.name.includes('no-cert')), labels: { org: 'org1', role: 'peer' } },
    { targets: addresses((m) => m.org === 'org1' && m.kind === 'orderer'), labels: { org: 'org1', role: 'orderer' } },
    { targets: addresses((m) => m.name.includes('no-cert')), labels: { org: 'org1', role: 'peer', ...caOnly } },
    { targets: addresses((m) => m.org === 'org2' && m.kind === 'peer'), labels: { org: 'org2', role: 'peer', ...org2Labels } },
    { targets: addresses((m) => m.org === 'org2' && m.kind === 'orderer'), labels: { org: 'org2', role: 'orderer', ...org2Labels } },
    { targets: [silent.address], labels: { org: 'org1', role: 'peer' } },
  ];
  fileSd = join(sdDir, 'fabric.yaml');
  writeFileSync(fileSd, stringify(groups));

  prometheus = await startPrometheus({
    job: JOB,
    fileSd,
    tls: { caFile: org1.ca.certFile, certFile: org1.clients.good.certFile, keyFile: org1.clients.good.keyFile },
    scrapeIntervalSeconds: 3,
  });
}, 180_000);

afterAll(async () => {
  launcher.stopAll();
  await prometheus?.stop();
  await silent?.close();
  await Promise.all([org1?.cleanup(), org2?.cleanup()]);
  rmSync(scratch, { recursive: true, force: true });
});

describe('opsctl against a network of peers and orderers', () => {
  it('runs health on every target, naming each failure with its own reason', async () => {
    expect(members.filter((m) => m.kind !== 'listener')).toHaveLength(23);
    const { code, rows, stderr } = await fleetJson('health', ...fleetArgs());
    expect(stderr).toBe('');
    expect(code).toBe(1);
    expect(rows.map((r) => r.target).sort()).toEqual(members.map((m) => m.address).sort());
    const reasons = Object.fromEntries(members.map((m) => [m.name, rowOf(rows, m.name).reason ?? 'ok']));
    expect(reasons).toEqual({
      ...Object.fromEntries(members.map((m) => [m.name, 'ok'])),
      'org1-sick': 'unhealthy',
      'org1-no-cert-required': 'tls-refused',
      'org1-rogue': 'untrusted-certificate',
      'org1-stopped0': 'connection-refused',
      'org1-stopped1': 'connection-refused',
      'org1-stopped-orderer': 'connection-refused',
      'org1-hung': 'timeout',
    });
    expect(rowOf(rows, 'org1-sick')).toMatchObject({ ok: false, failed_checks: [{ component: 'docker' }], error: expect.stringMatching(/^503 Service Unavailable: docker: /) });
    expect(rowOf(rows, 'org1-hung').error).toBe(`no TLS handshake within ${TIMEOUT}`);
    expect(rowOf(rows, 'org1-rogue').error).toMatch(/^server certificate not trusted/);
    expect(rowOf(rows, 'org1-stopped0').error).toBe('connection refused');
    expect(rowOf(rows, 'org2-peer0')).toMatchObject({ ok: true, labels: { org: 'org2', role: 'peer' } });
    for (const row of rows) expect(row.ok).toBe(row.reason === undefined);
  });

  it('prints a table on stdout and nothing else', async () => {
    const result = await opsctl('health', ...fleetArgs());
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('');
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^TARGET +LABELS +HEALTH +LATENCY +DETAIL$/);
    expect(lines.at(-1)).toBe('24 targets: 17 ok, 7 failed');
    expect(lines.find((line) => line.startsWith(`${byName('org1-stopped0').address} `))).toMatch(/org=org1,role=peer +FAILED +\d+ms +connection-refused: connection refused$/);
    expect(lines.find((line) => line.startsWith(`${byName('org2-orderer0').address} `))).toMatch(/org=org2,role=orderer +OK +\d+ms$/);
  });

  it('uses the default credentials where no label names others: org2 nodes then fail', async () => {
    const { code, rows } = await fleetJson('--address', byName('org2-peer0').address, '--address', byName('org1-peer0').address, ...org1Credentials(), 'version');
    expect(code).toBe(1);
    expect(rowOf(rows, 'org2-peer0')).toMatchObject({ ok: false, reason: 'untrusted-certificate' });
    expect(rowOf(rows, 'org1-peer0')).toMatchObject({ ok: true, CommitSHA: PEER_COMMIT });
  });

  it('reports each version with a drift summary', async () => {
    const { code, rows } = await fleetJson('version', ...fleetArgs());
    expect(code).toBe(1);
    for (const member of members) {
      const row = rowOf(rows, member.name);
      if (['org1-rogue', 'org1-no-cert-required', 'org1-hung'].includes(member.name) || member.name.includes('stopped')) {
        expect(row.ok).toBe(false);
      } else {
        expect(row).toMatchObject({ ok: true, CommitSHA: member.kind === 'peer' ? PEER_COMMIT : ORDERER_COMMIT, Version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
      }
    }
    const human = await opsctl('version', ...fleetArgs());
    expect(human.stdout).toContain('versions: drift, 2 builds in the fleet');
    expect(human.stdout).toMatch(new RegExp(`${PEER_COMMIT} +12\\n`));
    expect(human.stdout).toMatch(new RegExp(`${ORDERER_COMMIT} +6\\n`));
  });

  it('reads every logging spec, grouped by spec, with 401 named', async () => {
    const { rows } = await fleetJson('logspec', 'get', ...fleetArgs());
    for (const member of reachable()) expect(rowOf(rows, member.name)).toMatchObject({ ok: true, spec: 'info' });
    expect(rowOf(rows, 'org1-no-cert-optional')).toMatchObject({ ok: false, reason: 'unauthorized', error: expect.stringContaining('401') });
    const human = await opsctl('logspec', 'get', ...fleetArgs());
    expect(human.stdout.split('\n')[0]).toBe(`info  (${reachable().length} targets)`);
    expect(human.stdout).toContain('FAILED  (7 targets)');
  });

  it('gives the same rows from --targets and from the Prometheus that scrapes the same file', async () => {
    // Prometheus scrapes the org1 nodes that accept its org1 client certificate.
    const deadline = Date.now() + 45_000;
    let up = 0;
    while (Date.now() < deadline) {
      up = Number((await prometheus!.query(`count(up{job="${JOB}"} == 1)`))[0]?.value[1] ?? 0);
      if (up === 14) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(up).toBe(14);
    const fromFile = await fleetJson('logspec', 'get', ...fleetArgs());
    const fromPrometheus = await fleetJson('logspec', 'get', '--prometheus', prometheus!.url, '--job', JOB, ...org1Credentials(), '--timeout', TIMEOUT);
    expect(fromPrometheus.code).toBe(fromFile.code);
    const comparable = (rows: Row[]) => rows.map(({ latency_ms: _latency, labels: { job: _job, ...labels }, ...rest }) => ({ ...rest, labels }));
    expect(comparable(fromPrometheus.rows)).toEqual(comparable(fromFile.rows));
    expect(fromPrometheus.rows.every((row) => row.labels['job'] === JOB)).toBe(true);
    const otherJob = await opsctl('health', '--prometheus', prometheus!.url, '--job', 'nosuchjob', ...org1Credentials());
    expect(otherJob).toMatchObject({ code: 2, stdout: '', stderr: `opsctl: no targets in ${prometheus!.url} job nosuchjob\n` });
  });

  it('shows a dry run without changing any node', async () => {
    const { code, rows } = await fleetJson('logspec', 'set', 'gossip=debug:info', '--dry-run', ...fleetArgs());
    expect(code).toBe(1);
    for (const member of reachable()) expect(rowOf(rows, member.name)).toMatchObject({ ok: true, dry_run: true, changed: false, spec: 'info' });
    for (const member of reachable()) expect(await specOf(member)).toBe('info');
  });

  it('sets the spec on every reachable node, reading back what each made of it', async () => {
    const { code, rows } = await fleetJson('logspec', 'set', 'gossip=debug:info', ...fleetArgs());
    expect(code).toBe(1);
    expect(reachable()).toHaveLength(17);
    for (const member of reachable()) {
      expect(rowOf(rows, member.name)).toMatchObject({ ok: true, changed: true, previous_spec: 'info', spec: 'gossip=debug:info' });
      expect(await specOf(member)).toBe('gossip=debug:info');
    }
    expect(rows.filter((row) => !row.ok)).toHaveLength(7);
  });

  it('with --rollback, restores every changed node when any target failed', async () => {
    const { code, rows } = await fleetJson('logspec', 'set', 'ledger=warn:info', '--rollback', ...fleetArgs());
    expect(code).toBe(1);
    for (const member of reachable()) {
      expect(rowOf(rows, member.name)).toMatchObject({ ok: true, rolled_back: true, previous_spec: 'gossip=debug:info', spec: 'gossip=debug:info' });
      expect(await specOf(member)).toBe('gossip=debug:info');
    }
    // Without a failing target nothing is rolled back, and the exit code is 0.
    const healthyOnly = reachable()
      .filter((m) => m.org === 'org1' && !m.name.includes('sick'))
      .flatMap((m) => ['--address', m.address]);
    const clean = await fleetJson('logspec', 'set', 'info', '--rollback', ...healthyOnly, ...org1Credentials(), '--timeout', TIMEOUT);
    expect(clean.code).toBe(0);
    expect(clean.rows.every((row) => row.ok && row.changed === true && row.rolled_back === undefined)).toBe(true);
  });

  it('stops at --deadline, naming the targets it could not finish or start', async () => {
    const silentTwo = await startSilentListener();
    try {
      const { code, rows } = await fleetJson('health', '--address', silent.address, '--address', silentTwo.address, '--concurrency', '1', '--deadline', '1s', '--timeout', '20s');
      expect(code).toBe(1);
      // The first silent node gives its slot up after 0.1 s and waits on its own; the second is
      // asked then, and both are still waiting when the deadline passes.
      expect(rows.map((row) => [row.reason, row.error])).toEqual([
        ['deadline', '--deadline passed before the answer'],
        ['deadline', '--deadline passed before the answer'],
      ]);
    } finally {
      await silentTwo.close();
    }
  });

  it('exits 2 on a usage error without contacting any target', async () => {
    expect(await opsctl('health', '--targets', join(scratch, 'missing.yaml'))).toEqual({
      code: 2,
      stdout: '',
      stderr: `opsctl: cannot read --targets file ${join(scratch, 'missing.yaml')}: no such file or directory\n`,
    });
    expect((await opsctl('metrics', ...fleetArgs())).code).toBe(2);
  });
});
