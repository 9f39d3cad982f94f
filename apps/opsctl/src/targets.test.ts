import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { isOpsctlError } from './errors.ts';
import { fetchPrometheusTargets, mergeTargets, parseFileSd, targetsFromPrometheus } from './targets.ts';

function usage(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (isOpsctlError(error)) return `${error.code}: ${error.message}`;
    throw error;
  }
  throw new Error('no error');
}

describe('parseFileSd', () => {
  it('reads the JSON form with labels, hiding __ labels and credential labels from the rows', () => {
    const text = JSON.stringify([
      { targets: ['peer0.org1.example.com:9443', '10.0.0.7:9443'], labels: { org: 'org1', __scheme__: 'https' } },
      {
        targets: ['[fd00::5]:8443'],
        labels: { org: 'org2', __opsctl_cacert: 'org2/ca.pem', opsctl_cert: '/etc/org2/admin.pem', __opsctl_key: 'org2/admin-key.pem', __opsctl_server_name: 'orderer0' },
      },
    ]);
    expect(parseFileSd(text, 'fabric.json', '/srv/sd')).toEqual([
      { address: 'peer0.org1.example.com:9443', host: 'peer0.org1.example.com', port: 9443, scheme: 'https', labels: { org: 'org1' } },
      { address: '10.0.0.7:9443', host: '10.0.0.7', port: 9443, scheme: 'https', labels: { org: 'org1' } },
      {
        address: '[fd00::5]:8443',
        host: 'fd00::5',
        port: 8443,
        labels: { org: 'org2' },
        credentials: { caFile: '/srv/sd/org2/ca.pem', certFile: '/etc/org2/admin.pem', keyFile: '/srv/sd/org2/admin-key.pem', serverName: 'orderer0' },
      },
    ]);
  });

  it('reads the YAML form, and an empty file as no targets', () => {
    const yaml = '- targets:\n    - orderer0.example.com:8443\n  labels:\n    role: orderer\n';
    expect(parseFileSd(yaml, 'fabric.yml', '/')).toEqual([{ address: 'orderer0.example.com:8443', host: 'orderer0.example.com', port: 8443, labels: { role: 'orderer' } }]);
    expect(parseFileSd('', 'empty.yml', '/')).toEqual([]);
  });

  it('names the file, the group and the entry of a mistake', () => {
    expect(usage(() => parseFileSd('{targets: []}', 'f.yml', '/'))).toBe('USAGE: f.yml: expected a list of {targets: [...], labels: {...}} groups');
    expect(usage(() => parseFileSd('[{"targets": ["a:1", "peer0"]}]', 'f.json', '/'))).toBe("USAGE: f.json: group 1: targets[1]: expected host:port (e.g. 127.0.0.1:9443), got 'peer0'");
    expect(usage(() => parseFileSd('[{"targets": ["::1:9443"]}]', 'f.json', '/'))).toContain('an IPv6 address goes in brackets');
    expect(usage(() => parseFileSd('[{"target": ["a:1"]}]', 'f.json', '/'))).toBe("USAGE: f.json: group 1: unknown key 'target'; a group has targets and labels");
    expect(usage(() => parseFileSd('[{"targets": ["a:1"], "labels": {"org": 1}}]', 'f.json', '/'))).toBe('USAGE: f.json: group 1: label org must be a string');
    expect(usage(() => parseFileSd('[{"targets": ["a:1"], "labels": {"__scheme__": "ftp"}}]', 'f.json', '/'))).toBe("USAGE: f.json: group 1: __scheme__ must be http or https, got 'ftp'");
    expect(usage(() => parseFileSd('[{"targets": ["a:1"]', 'f.json', '/'))).toMatch(/^USAGE: f\.json: not a file_sd file \(JSON or YAML\): /);
  });
});

describe('targetsFromPrometheus', () => {
  const body = {
    status: 'success',
    data: {
      activeTargets: [
        {
          discoveredLabels: { __address__: '127.0.0.1:9443', __scheme__: 'https', __opsctl_cacert: 'ca.pem', __meta_filepath: '/etc/prometheus/sd/fabric.yml', org: 'org1', job: 'fabric' },
          labels: { instance: '127.0.0.1:9443', job: 'fabric', org: 'org1' },
          scrapePool: 'fabric',
          scrapeUrl: 'https://127.0.0.1:9443/metrics',
        },
        { discoveredLabels: {}, labels: { instance: 'peer1', job: 'fabric' }, scrapePool: 'fabric', scrapeUrl: 'http://[::1]:9444/metrics' },
        { discoveredLabels: {}, labels: { instance: 'localhost:9090', job: 'prometheus' }, scrapePool: 'prometheus', scrapeUrl: 'http://localhost:9090/metrics' },
      ],
    },
  };

  it('takes address and scheme from the scrape URL, credentials from the discovered labels, and filters by job', () => {
    expect(targetsFromPrometheus(body, 'p', ['fabric'])).toEqual([
      { address: '127.0.0.1:9443', host: '127.0.0.1', port: 9443, scheme: 'https', labels: { job: 'fabric', org: 'org1' }, credentials: { caFile: '/etc/prometheus/sd/ca.pem' } },
      { address: '[::1]:9444', host: '::1', port: 9444, scheme: 'http', labels: { instance: 'peer1', job: 'fabric' } },
    ]);
    expect(targetsFromPrometheus(body, 'p', ['fabric', 'prometheus'])).toHaveLength(3);
  });

  it('without --job takes only the jobs named fabric-<something>, and never an exporter probing for a target', () => {
    const probe = (job: string, target: string) => ({
      discoveredLabels: { __address__: target },
      labels: { instance: target, job },
      scrapePool: job,
      scrapeUrl: `http://127.0.0.1:9115/probe?module=fabric_healthz&target=${encodeURIComponent(`https://${target}/healthz`)}`,
    });
    const fleet = {
      data: {
        activeTargets: [
          ...body.data.activeTargets,
          { discoveredLabels: {}, labels: { instance: '10.0.0.1:9443', job: 'fabric-org1' }, scrapePool: 'fabric-org1', scrapeUrl: 'https://10.0.0.1:9443/metrics' },
          { discoveredLabels: {}, labels: { instance: '10.0.0.2:8443', job: 'fabric-orderer' }, scrapePool: 'fabric-orderer', scrapeUrl: 'https://10.0.0.2:8443/metrics' },
          probe('blackbox-fabric-healthz', '10.0.0.1:9443'),
          // An exporter's probe job named like an operations job is still not one.
          probe('fabric-healthz', '10.0.0.2:8443'),
        ],
      },
    };
    expect(targetsFromPrometheus(fleet, 'p').map((t) => `${t.labels['job']} ${t.address}`)).toEqual(['fabric-org1 10.0.0.1:9443', 'fabric-orderer 10.0.0.2:8443']);
    expect(targetsFromPrometheus(fleet, 'p', ['blackbox-fabric-healthz', 'fabric-healthz'])).toEqual([]);
    expect(targetsFromPrometheus(fleet, 'p', ['fabric-orderer', 'prometheus']).map((t) => t.address)).toEqual(['localhost:9090', '10.0.0.2:8443']);
  });

  it('refuses an answer without the target list', () => {
    expect(usage(() => targetsFromPrometheus({ status: 'error' }, 'p'))).toBe('UNEXPECTED_RESPONSE: p: the answer has no data.activeTargets list');
  });
});

describe('mergeTargets', () => {
  it('keeps the first of each address and orders by host, then port as a number', () => {
    const a = parseFileSd('[{"targets": ["127.0.0.1:10000", "127.0.0.1:9000"], "labels": {"from": "a"}}]', 'a', '/');
    const b = parseFileSd('[{"targets": ["127.0.0.1:9000", "10.0.0.1:1"], "labels": {"from": "b"}}]', 'b', '/');
    expect(mergeTargets([a, b]).map((t) => [t.address, t.labels['from']])).toEqual([
      ['10.0.0.1:1', 'b'],
      ['127.0.0.1:9000', 'a'],
      ['127.0.0.1:10000', 'a'],
    ]);
  });
});

describe('fetchPrometheusTargets', () => {
  async function withServer(answer: (url: string) => [number, string], run: (base: string) => Promise<void>): Promise<void> {
    const server = createServer((req, res) => {
      const [status, body] = answer(req.url ?? '');
      res.writeHead(status, { 'Content-Type': 'application/json' }).end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      await run(`http://127.0.0.1:${(server.address() as { port: number }).port}`);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  }

  it('asks /api/v1/targets for the active targets', async () => {
    const body = { status: 'success', data: { activeTargets: [{ labels: { job: 'fabric-peer' }, scrapePool: 'fabric-peer', scrapeUrl: 'https://10.0.0.1:9443/metrics' }] } };
    let asked = '';
    await withServer(
      (url) => {
        asked = url;
        return [200, JSON.stringify(body)];
      },
      async (base) => {
        expect((await fetchPrometheusTargets(base, undefined, { timeoutMs: 5_000 })).map((t) => t.address)).toEqual(['10.0.0.1:9443']);
      },
    );
    expect(asked).toBe('/api/v1/targets?state=active');
  });

  it('names a bad answer or an unreachable server', async () => {
    await withServer(
      () => [500, 'oops'],
      async (base) => {
        await expect(fetchPrometheusTargets(base, undefined, { timeoutMs: 5_000 })).rejects.toMatchObject({
          code: 'UNEXPECTED_RESPONSE',
          message: `--prometheus ${base}/api/v1/targets: unexpected status 500`,
        });
      },
    );
    await withServer(
      () => [200, '<html>'],
      async (base) => {
        await expect(fetchPrometheusTargets(base, undefined, { timeoutMs: 5_000 })).rejects.toMatchObject({
          code: 'UNEXPECTED_RESPONSE',
          message: `--prometheus ${base}/api/v1/targets: the answer is not JSON`,
        });
      },
    );
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(closed.address() as { port: number }).port}`;
    await new Promise((resolve) => closed.close(resolve));
    await expect(fetchPrometheusTargets(base, undefined, { timeoutMs: 5_000 })).rejects.toMatchObject({ code: 'UNREACHABLE', message: `--prometheus ${base}: connection refused` });
  });
});
