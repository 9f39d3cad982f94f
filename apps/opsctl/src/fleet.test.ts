import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { scratchDir, useCleanup } from '@fabric-ops/test-kit';
import { describe, expect, it } from 'vitest';
import type { FleetOptions } from './args.ts';
import { mapLimited, runFleetCommand, type FleetRow } from './fleet.ts';
import { fleetJson, fleetText } from './fleet-output.ts';

describe('mapLimited', () => {
  it('never runs more than the limit at once and keeps the order', async () => {
    let running = 0;
    let most = 0;
    const results = await mapLimited(
      [5, 1, 4, 2, 3, 0],
      2,
      new AbortController().signal,
      async (n) => {
        running++;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, n));
        running--;
        return n * 10;
      },
      () => -1,
    );
    expect(results).toEqual([50, 10, 40, 20, 30, 0]);
    expect(most).toBe(2);
  });

  it('answers for the items not started once the signal aborts', async () => {
    const stop = new AbortController();
    const results = await mapLimited(
      [1, 2, 3],
      1,
      stop.signal,
      async (n) => {
        stop.abort();
        return n;
      },
      (n) => -n,
    );
    expect(results).toEqual([1, -2, -3]);
  });
});

const row = (target: string, fields: Partial<FleetRow>): FleetRow => ({ target, labels: {}, ok: true, latency_ms: 5, ...fields });

describe('fleet output', () => {
  it('prints JSON rows with identity first and failure fields last', () => {
    const text = fleetJson([row('a:1', { ok: false, error: 'connection refused', reason: 'connection-refused', latency_ms: 1 }), row('b:2', { spec: 'info' })]);
    expect(text).toBe(
      '[\n{"target":"a:1","labels":{},"ok":false,"error":"connection refused","reason":"connection-refused","latency_ms":1},\n{"target":"b:2","labels":{},"ok":true,"spec":"info","latency_ms":5}\n]\n',
    );
  });

  it('summarises version drift under the table', () => {
    const rows = [
      row('a:1', { Version: '2.5.0', CommitSHA: 'abc', labels: { org: 'org1' } }),
      row('b:2', { Version: '2.5.0', CommitSHA: 'abc' }),
      row('c:3', { Version: '2.4.9', CommitSHA: 'def' }),
      row('d:4', { ok: false, error: 'no answer within 5s', reason: 'timeout' }),
    ];
    expect(fleetText({ kind: 'version' }, rows)).toBe(
      [
        'TARGET  LABELS    VERSION  COMMIT  DETAIL',
        'a:1     org=org1  2.5.0    abc',
        'b:2               2.5.0    abc',
        'c:3               2.4.9    def',
        'd:4               FAILED           timeout: no answer within 5s',
        '',
        'versions: drift, 2 builds in the fleet',
        '  VERSION  COMMIT  NODES',
        '  2.5.0    abc     2',
        '  2.4.9    def     1',
        '',
        '4 targets: 3 ok, 1 failed',
        '',
      ].join('\n'),
    );
    expect(fleetText({ kind: 'version' }, rows.slice(0, 2))).toContain('versions: no drift, every answering node runs 2.5.0 (abc)');
  });

  it('groups logspec get by spec, failures last', () => {
    const rows = [row('a:1', { spec: 'info' }), row('b:2', { spec: 'gossip=debug:info' }), row('c:3', { spec: 'info' }), row('d:4', { ok: false, error: '401', reason: 'unauthorized' })];
    expect(fleetText({ kind: 'logspec-get' }, rows)).toBe(
      ['info  (2 targets)', '  a:1', '  c:3', 'gossip=debug:info  (1 target)', '  b:2', 'FAILED  (1 target)', '  d:4  unauthorized: 401', '', '4 targets: 3 ok, 1 failed', ''].join('\n'),
    );
  });

  it('shows each logspec change, dry run and rollback', () => {
    const spec = 'gossip=debug:info';
    const text = fleetText({ kind: 'logspec-set', spec }, [
      row('a:1', { previous_spec: 'info', spec, changed: true }),
      row('b:2', { previous_spec: 'info', spec: 'info', changed: false, rolled_back: true }),
      row('c:3', { previous_spec: 'info', spec: 'info', changed: false, dry_run: true }),
      row('d:4', { ok: false, error: 'connection refused', reason: 'connection-refused' }),
    ]);
    expect(text).toContain('a:1     changed       info -> gossip=debug:info\n');
    expect(text).toContain('b:2     rolled back   info\n');
    expect(text).toContain('c:3     would change  info -> gossip=debug:info\n');
    expect(text).toContain('d:4     FAILED                                   connection-refused: connection refused\n');
    expect(text).toContain('rolled back: 1 target restored to their previous spec because a target failed');
  });
});

const defer = useCleanup();
const tempDir = (): string => scratchDir(defer, 'opsctl-fleet-unit-');

/** A loopback server answering every request with `status` and the JSON `body`, closed after the test; its `host:port`. */
async function jsonServer(status: number, body: string): Promise<string> {
  const server = createServer((_req, res) => res.writeHead(status, { 'Content-Type': 'application/json' }).end(body));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  defer(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `127.0.0.1:${(server.address() as { port: number }).port}`;
}

const fleet = (targetFiles: string[], match?: FleetOptions['match']): FleetOptions => ({
  targetFiles,
  addresses: [],
  concurrency: 4,
  deadlineMs: 10_000,
  dryRun: false,
  rollback: false,
  ...(match ? { match } : {}),
});

describe('runFleetCommand', () => {
  it('fails only the targets whose credential labels cannot be used, with reason credentials', async () => {
    const dir = tempDir();
    const plain = await jsonServer(503, '{"status":"Service Unavailable","failed_checks":[{"component":"docker","reason":"down"}]}');
    const file = join(dir, 'sd.json');
    writeFileSync(
      file,
      JSON.stringify([
        { targets: ['127.0.0.1:1'], labels: { __scheme__: 'https', __opsctl_cacert: 'missing-ca.pem' } },
        { targets: ['127.0.0.1:2'], labels: { __scheme__: 'https', __opsctl_cert: 'only-cert.pem' } },
        { targets: [plain], labels: { __scheme__: 'http' } },
      ]),
    );
    const result = await runFleetCommand({ kind: 'health', endpoint: 'healthz', verbose: false }, { address: '127.0.0.1:9443', tls: false, timeoutMs: 2_000 }, fleet([file]));
    expect(result.exitCode).toBe(1);
    expect(result.rows.map((row) => [row.target, row.reason, row.error])).toEqual([
      ['127.0.0.1:1', 'credentials', `cannot read label __opsctl_cacert file ${join(dir, 'missing-ca.pem')}: no such file or directory`],
      ['127.0.0.1:2', 'credentials', 'labels __opsctl_cert and __opsctl_key go together: give both, or neither'],
      [plain, 'unhealthy', '503 Service Unavailable: docker: down'],
    ]);
    expect(result.rows[2]).toMatchObject({ status: 'Service Unavailable', failed_checks: [{ component: 'docker', reason: 'down' }] });
  });

  it('refuses an empty target set as a usage error', async () => {
    const file = join(tempDir(), 'empty.yml');
    writeFileSync(file, '[]');
    await expect(runFleetCommand({ kind: 'version' }, { address: '127.0.0.1:9443', tls: false, timeoutMs: 1_000 }, fleet([file]))).rejects.toMatchObject({
      code: 'USAGE',
      message: `no targets in ${file}`,
    });
  });
});

describe('target selection and the rollback summary', () => {
  it('works only on the targets whose labels match, and names the labels when none does', async () => {
    const orderer = await jsonServer(200, '{"Version":"2.5.0","CommitSHA":"abc"}');
    const file = join(tempDir(), 'sd.json');
    // The peers are nowhere: only the orderer is asked.
    writeFileSync(
      file,
      JSON.stringify([
        { targets: ['127.0.0.1:1', '127.0.0.1:2'], labels: { role: 'peer', org: 'org1' } },
        { targets: [orderer], labels: { role: 'orderer', org: 'org1' } },
      ]),
    );
    const connection = { address: '127.0.0.1:9443', tls: false, timeoutMs: 2_000 };
    const both = [
      { name: 'org', value: 'org1' },
      { name: 'role', value: 'orderer' },
    ];
    const result = await runFleetCommand({ kind: 'version' }, connection, fleet([file], both));
    expect(result.rows.map((row) => [row.target, row.ok])).toEqual([[orderer, true]]);
    expect(result.exitCode).toBe(0);
    await expect(runFleetCommand({ kind: 'version' }, connection, fleet([file], [{ name: 'org', value: 'org2' }]))).rejects.toMatchObject({
      code: 'USAGE',
      message: `no target has the labels org=org2 (of 3 in ${file})`,
    });
  });

  it('counts rolled-back targets apart from the ok ones', () => {
    const rows = [
      row('a:1', { spec: 'info', previous_spec: 'info', changed: false, rolled_back: true }),
      row('b:2', { spec: 'info', previous_spec: 'info', changed: false, rolled_back: true }),
      row('c:3', { ok: false, reason: 'connection-refused', error: 'connection refused' }),
    ];
    expect(fleetText({ kind: 'logspec-set', spec: 'debug' }, rows).trimEnd().split('\n').at(-1)).toBe('3 targets: 0 ok, 2 rolled back, 1 failed');
  });
});

/** A loopback node with a /logspec that keeps what is PUT; its `host:port` and the specs it was given. */
async function logspecNode(): Promise<{ address: string; puts: string[] }> {
  const puts: string[] = [];
  let spec = 'info';
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (req.method === 'PUT') {
        spec = (JSON.parse(body) as { spec: string }).spec;
        puts.push(spec);
        res.writeHead(204).end();
      } else res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ spec }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  defer(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { address: `127.0.0.1:${(server.address() as { port: number }).port}`, puts };
}

describe('logspec set --rollback beside a target that is not an operations server', () => {
  it.each([
    ['an exporter page (200, HTML)', 200, '<html><body>Blackbox Exporter</body></html>'],
    ['404', 404, '404 page not found'],
  ])('%s: changes nothing there, and rolls nothing back on the operations servers', async (_name, status, body) => {
    const exporter = createServer((_req, res) => res.writeHead(status, { 'Content-Type': 'text/html' }).end(body));
    await new Promise<void>((resolve) => exporter.listen(0, '127.0.0.1', resolve));
    defer(() => new Promise<void>((resolve) => exporter.close(() => resolve())));
    const exporterAddress = `127.0.0.1:${(exporter.address() as { port: number }).port}`;
    const [a, b] = [await logspecNode(), await logspecNode()];
    const file = join(tempDir(), 'sd.json');
    writeFileSync(file, JSON.stringify([{ targets: [a.address, b.address, exporterAddress] }]));
    const result = await runFleetCommand({ kind: 'logspec-set', spec: 'debug' }, { address: '127.0.0.1:9443', tls: false, timeoutMs: 2_000 }, { ...fleet([file]), rollback: true });
    const byTarget = Object.fromEntries(result.rows.map((r) => [r.target, r]));
    expect(byTarget[exporterAddress]).toMatchObject({ ok: false, reason: 'not-operations-server' });
    expect(byTarget[exporterAddress]!.error).toMatch(/^not an operations server \(nothing sent\): /);
    for (const node of [a, b]) {
      expect(byTarget[node.address]).toMatchObject({ ok: true, changed: true, spec: 'debug' });
      expect(byTarget[node.address]!.rolled_back).toBeUndefined();
      expect(node.puts).toEqual(['debug']);
    }
    expect(result.exitCode).toBe(1);
  });

  it('a failing operations server still rolls the others back', async () => {
    const [a, b] = [await logspecNode(), await logspecNode()];
    const file = join(tempDir(), 'sd.json');
    writeFileSync(file, JSON.stringify([{ targets: [a.address, b.address, '127.0.0.1:1'] }]));
    const result = await runFleetCommand({ kind: 'logspec-set', spec: 'debug' }, { address: '127.0.0.1:9443', tls: false, timeoutMs: 2_000 }, { ...fleet([file]), rollback: true });
    expect(result.rows.map((r) => [r.target, r.ok, r.rolled_back ?? false])).toEqual(
      expect.arrayContaining([
        [a.address, true, true],
        [b.address, true, true],
        ['127.0.0.1:1', false, false],
      ]),
    );
    expect(a.puts).toEqual(['debug', 'info']);
  });
});
