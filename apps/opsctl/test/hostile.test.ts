// The real opsctl bin against servers that drip, stall or answer odd JSON, and against files that
// are not files: every run ends within its bound, with one line naming the problem and the
// documented exit code (README, "Exit codes").
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runOpsctlBin, startAnswering, startRawServer, type Hostile } from './hostile-kit.ts';

const scratch = mkdtempSync(join(tmpdir(), 'fabric-ops-opsctl-hostile-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Generous: a loaded two-core machine starts node slowly; a hang is killed at 40 s and fails. */
const ENDS_WITHIN_MS = 20_000;

async function withServer<T>(server: Hostile, body: (server: Hostile) => Promise<T>): Promise<T> {
  try {
    return await body(server);
  } finally {
    await server.close();
  }
}

const oneLine = (stderr: string): string => {
  expect(stderr.endsWith('\n')).toBe(true);
  expect(stderr.trimEnd().split('\n')).toHaveLength(1);
  return stderr.trimEnd();
};

describe('one bound per request, from connect to the last byte', () => {
  const dripBody = () =>
    startRawServer((socket, every) => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n');
      every(1_000, () => socket.write(' '));
    });

  it('gives up on an answer that drips a byte a second after --timeout', async () => {
    await withServer(await dripBody(), async (server) => {
      const run = await runOpsctlBin(['--address', server.address, '--timeout', '3s', 'version'], { killAfterMs: 40_000 });
      expect(run.code).toBe(3);
      expect(oneLine(run.stderr)).toBe(`opsctl: http://${server.address}: no complete answer within 3s`);
      expect(run.elapsedMs).toBeLessThan(ENDS_WITHIN_MS);
    });
  });

  it('gives up on headers that drip a byte a second after --timeout', async () => {
    const server = await startRawServer((socket, every) => {
      socket.write('HTTP/1.1 200 OK\r\nX-Drip: ');
      every(1_000, () => socket.write('a'));
    });
    await withServer(server, async () => {
      const run = await runOpsctlBin(['--address', server.address, '--timeout', '3s', 'health'], { killAfterMs: 40_000 });
      expect(run.code).toBe(3);
      expect(oneLine(run.stderr)).toBe(`opsctl: http://${server.address}: no answer within 3s`);
      expect(run.elapsedMs).toBeLessThan(ENDS_WITHIN_MS);
    });
  });

  it('gives up on a TLS handshake that drips a byte a second after --timeout', async () => {
    // A handshake record header announcing 16 KiB, then its bytes one a second.
    const server = await startRawServer((socket, every) => {
      socket.write(Buffer.from([0x16, 0x03, 0x03, 0x40, 0x00]));
      every(1_000, () => socket.write(Buffer.from([0x02])));
    });
    await withServer(server, async () => {
      const run = await runOpsctlBin(['--address', server.address, '--tls', '--timeout', '3s', 'logspec', 'get'], { killAfterMs: 40_000 });
      expect(run.code).toBe(3);
      expect(oneLine(run.stderr)).toBe(`opsctl: https://${server.address}: no TLS handshake within 3s`);
      expect(run.elapsedMs).toBeLessThan(ENDS_WITHIN_MS);
    });
  });

  it('spends one --timeout, not two, on a server that never speaks TLS', async () => {
    const server = await startRawServer(() => undefined);
    await withServer(server, async () => {
      const run = await runOpsctlBin(['--address', server.address, '--tls', '--timeout', '4s', 'version'], { killAfterMs: 40_000 });
      expect(run.code).toBe(3);
      expect(oneLine(run.stderr)).toBe(`opsctl: https://${server.address}: no TLS handshake within 4s`);
      // Measured on the server, without the child's start-up: one 4 s bound closes the
      // connection; the idle timer used to fire once before the handshake and again after.
      expect(server.connectionMs).toHaveLength(1);
      expect(server.connectionMs[0]).toBeLessThan(7_000);
    });
  });

  it('takes --deadline for one target too: it bounds the whole command', async () => {
    await withServer(await dripBody(), async (server) => {
      const run = await runOpsctlBin(['--address', server.address, '--timeout', '5m', '--deadline', '3s', 'version', '--json'], { killAfterMs: 40_000 });
      expect(run.code).toBe(3);
      expect(oneLine(run.stderr)).toBe(`opsctl: http://${server.address}: --deadline passed before the answer`);
      expect(JSON.parse(run.stdout)).toEqual({ error: `http://${server.address}: --deadline passed before the answer`, code: 'UNREACHABLE' });
      expect(run.elapsedMs).toBeLessThan(ENDS_WITHIN_MS);
    });
  });
});

describe('files that are not regular files of a sane size', () => {
  const fifo = join(scratch, 'fifo.pem');
  execFileSync('mkfifo', [fifo]);
  const loop = join(scratch, 'loop.pem');
  symlinkSync(loop, loop);
  const directory = join(scratch, 'a-directory');
  mkdirSync(directory);
  const sparse = join(scratch, 'sparse.pem');
  writeFileSync(sparse, '');
  truncateSync(sparse, 2 * 1024 ** 3);
  const small = join(scratch, 'small.pem');
  writeFileSync(small, 'not a certificate, but a small regular file\n');

  const cases: [string, string[], string][] = [
    ['/dev/zero as --cacert', ['--cacert', '/dev/zero', 'version'], 'cannot read --cacert file /dev/zero: not a regular file (a character device)'],
    ['a FIFO as --key', ['--cert', small, '--key', fifo, 'version'], `cannot read --key file ${fifo}: not a regular file (a named pipe (FIFO))`],
    ['a symlink loop as --cacert', ['--cacert', loop, 'version'], `cannot read --cacert file ${loop}: too many levels of symbolic links`],
    ['a 2 GB sparse file as --cacert', ['--cacert', sparse, 'version'], `cannot read --cacert file ${sparse}: larger than 1048576 bytes`],
    ['/dev/zero as --targets', ['--targets', '/dev/zero', 'health'], 'cannot read --targets file /dev/zero: not a regular file (a character device)'],
    ['a FIFO as --targets', ['--targets', fifo, 'health'], `cannot read --targets file ${fifo}: not a regular file (a named pipe (FIFO))`],
    ['a directory as --targets', ['--targets', directory, 'health'], `cannot read --targets file ${directory}: is a directory`],
  ];
  it.each(cases)('%s: one line, exit 2, no read', async (_name, args, message) => {
    const run = await runOpsctlBin(['--address', '127.0.0.1:1', ...args], { killAfterMs: 40_000 });
    expect(run.code).toBe(2);
    expect(oneLine(run.stderr)).toBe(`opsctl: ${message}`);
    expect(run.elapsedMs).toBeLessThan(ENDS_WITHIN_MS);
  });

  it('fails only the row of a target whose labels name /dev/zero or a FIFO, within --deadline', async () => {
    const plain = await startAnswering(() => ({ status: 200, body: '{"Version":"2.5.0","CommitSHA":"abc1234"}' }));
    await withServer(plain, async () => {
      const file = join(scratch, 'labelled.json');
      writeFileSync(
        file,
        JSON.stringify([
          { targets: ['127.0.0.1:2'], labels: { __scheme__: 'https', __opsctl_cacert: '/dev/zero', node: 'zero' } },
          { targets: ['127.0.0.1:3'], labels: { __scheme__: 'https', __opsctl_cert: fifo, __opsctl_key: fifo, node: 'fifo' } },
          { targets: [plain.address], labels: { node: 'plain' } },
        ]),
      );
      const run = await runOpsctlBin(['--targets', file, '--deadline', '6s', '--timeout', '3s', 'version', '--json'], { killAfterMs: 40_000 });
      expect(run.code).toBe(1);
      const rows = JSON.parse(run.stdout) as { labels: { node: string }; ok: boolean; reason?: string; error?: string }[];
      const row = (node: string) => rows.find((r) => r.labels.node === node)!;
      expect(row('zero')).toMatchObject({ ok: false, reason: 'credentials', error: 'cannot read label __opsctl_cacert file /dev/zero: not a regular file (a character device)' });
      expect(row('fifo')).toMatchObject({ ok: false, reason: 'credentials' });
      expect(row('fifo').error).toMatch(/^cannot read label __opsctl_(cert|key) file .*fifo\.pem: not a regular file \(a named pipe \(FIFO\)\)$/);
      expect(row('plain')).toMatchObject({ ok: true });
      expect(run.elapsedMs).toBeLessThan(ENDS_WITHIN_MS);
    });
  });

  it('fails the row of a target whose credential labels, from a --prometheus answer, name a FIFO', async () => {
    const prometheus = await startAnswering(() => ({
      status: 200,
      body: JSON.stringify({
        status: 'success',
        data: {
          activeTargets: [
            { discoveredLabels: { __opsctl_cacert: fifo }, labels: { job: 'fabric-peer', instance: '127.0.0.1:4' }, scrapePool: 'fabric-peer', scrapeUrl: 'https://127.0.0.1:4/metrics' },
          ],
        },
      }),
    }));
    await withServer(prometheus, async () => {
      const run = await runOpsctlBin(['--prometheus', `http://${prometheus.address}`, '--deadline', '6s', '--timeout', '3s', 'health', '--json'], { killAfterMs: 40_000 });
      expect(run.code).toBe(1);
      expect(JSON.parse(run.stdout)).toMatchObject([
        { target: '127.0.0.1:4', ok: false, reason: 'credentials', error: `cannot read label __opsctl_cacert file ${fifo}: not a regular file (a named pipe (FIFO))` },
      ]);
      expect(run.elapsedMs).toBeLessThan(ENDS_WITHIN_MS);
    });
  });
});

describe('answers of an unexpected shape', () => {
  const answering = (status: number, body: string) => startAnswering(() => ({ status, body }));
  const cases: [string, number, string, string[], string][] = [
    ['health answering null', 200, 'null', ['health'], '/healthz: expected a JSON object, got null'],
    ['health answering failed_checks 5', 503, '{"failed_checks":5}', ['health'], '/healthz: "failed_checks" is a number, expected a list'],
    [
      'health answering a failed check without a reason',
      503,
      '{"status":"Service Unavailable","failed_checks":[{"component":"docker"}]}',
      ['health', '--verbose'],
      '/healthz: failed_checks[0]: the answer has no "reason" string',
    ],
    ['version answering "x"', 200, '"x"', ['version'], '/version: expected a JSON object, got a string'],
    ['version answering 5', 200, '5', ['version'], '/version: expected a JSON object, got a number'],
    ['version answering []', 200, '[]', ['version', '--json'], '/version: expected a JSON object, got a list'],
    ['version answering {}', 200, '{}', ['version'], '/version: the answer has no "Version" string'],
    ['version answering a numeric Version', 200, '{"Version":2,"CommitSHA":"abc"}', ['version'], '/version: "Version" is a number, expected a string'],
    ['logspec get answering null', 200, 'null', ['logspec', 'get'], '/logspec: expected a JSON object, got null'],
  ];
  it.each(cases)('%s: a named error, exit 5', async (_name, status, body, args, message) => {
    await withServer(await answering(status, body), async (server) => {
      const run = await runOpsctlBin(['--address', server.address, '--timeout', '10s', ...args], { killAfterMs: 40_000 });
      expect(oneLine(run.stderr)).toBe(`opsctl: http://${server.address}${message}`);
      expect(run.code).toBe(5);
      if (args.includes('--json')) expect(JSON.parse(run.stdout)).toEqual({ error: `http://${server.address}${message}`, code: 'UNEXPECTED_RESPONSE' });
      else expect(run.stdout).toBe('');
    });
  });

  it('a logspec set refused with a null body still says why', async () => {
    await withServer(await answering(400, 'null'), async (server) => {
      const run = await runOpsctlBin(['--address', server.address, 'logspec', 'set', 'info'], { killAfterMs: 40_000 });
      expect(run.code).toBe(1);
      expect(oneLine(run.stderr)).toBe('opsctl: logspec rejected: null');
    });
  });

  it.each([
    ['a null target', '{"status":"success","data":{"activeTargets":[null]}}', 'data.activeTargets[0]: expected a target object, got null'],
    [
      'labels that are not strings',
      '{"status":"success","data":{"activeTargets":[{"labels":{"job":5},"scrapeUrl":"http://127.0.0.1:9/metrics"}]}}',
      'data.activeTargets[0].labels: label job is a number, expected a string',
    ],
    ['a scrapeUrl that is not a string', '{"status":"success","data":{"activeTargets":[{"scrapeUrl":7}]}}', 'data.activeTargets[0]: no valid scrapeUrl (a number)'],
  ])('--prometheus answering %s: a named error, exit 5', async (_name, body, message) => {
    await withServer(await answering(200, body), async (prometheus) => {
      const run = await runOpsctlBin(['--prometheus', `http://${prometheus.address}`, 'health'], { killAfterMs: 40_000 });
      expect(oneLine(run.stderr)).toBe(`opsctl: --prometheus http://${prometheus.address}: ${message}`);
      expect(run.code).toBe(5);
    });
  });

  it('a fleet row of a node answering odd JSON fails as unexpected-response, naming the field', async () => {
    const odd = await answering(200, '{"Version":["2.5.0"],"CommitSHA":"abc"}');
    const nulls = await answering(200, 'null');
    try {
      const run = await runOpsctlBin(['--address', odd.address, '--address', nulls.address, 'version', '--json'], { killAfterMs: 40_000 });
      expect(run.code).toBe(1);
      const rows = JSON.parse(run.stdout) as { target: string; reason?: string; error?: string }[];
      expect(rows.find((r) => r.target === odd.address)).toMatchObject({ reason: 'unexpected-response', error: '/version: "Version" is a list, expected a string' });
      expect(rows.find((r) => r.target === nulls.address)).toMatchObject({ reason: 'unexpected-response', error: '/version: expected a JSON object, got null' });
    } finally {
      await odd.close();
      await nulls.close();
    }
  });
});

describe('metrics --json memory', () => {
  it('holds a small multiple of the answer for a 30 MB label value', async () => {
    const value = 'v'.repeat(30 * 1024 * 1024);
    const page = Buffer.from(`# HELP big A metric with one huge label.\n# TYPE big gauge\nbig{huge="${value}",small="a\\"b\\\\c\\nd"} 1\n`);
    const preload = join(scratch, 'report-max-rss.mjs');
    // The peak resident size of the whole opsctl process, written last on stderr.
    writeFileSync(preload, "process.on('exit', () => process.stderr.write(`max-rss-kib ${process.resourceUsage().maxRSS}\\n`));\n");
    await withServer(await startAnswering(() => ({ status: 200, body: page, type: 'text/plain; version=0.0.4' })), async (server) => {
      const run = await runOpsctlBin(['--address', server.address, '--timeout', '60s', 'metrics', '--json'], { nodeArgs: ['--import', preload], killAfterMs: 120_000 });
      expect(run.code).toBe(0);
      const families = JSON.parse(run.stdout) as { name: string; samples: { labels: Record<string, string> }[] }[];
      expect(families).toHaveLength(1);
      expect(families[0]!.samples[0]!.labels['huge']).toBe(value);
      expect(families[0]!.samples[0]!.labels['small']).toBe('a"b\\c\nd');
      const maxRssBytes = Number(/max-rss-kib (\d+)/.exec(run.stderr)?.[1]) * 1024;
      expect(maxRssBytes).toBeGreaterThan(page.length);
      expect(maxRssBytes).toBeLessThanOrEqual(8 * page.length);
    });
  });

  it('writes a page of a million tiny samples within a 48 MiB heap', async () => {
    // `a 1` a million times: a sample object each used to cost about 60 times the page.
    const page = Buffer.from(`# TYPE a gauge\n${'a 1\n'.repeat(1024 * 1024)}`);
    await withServer(await startAnswering(() => ({ status: 200, body: page, type: 'text/plain; version=0.0.4' })), async (server) => {
      const run = await runOpsctlBin(['--address', server.address, '--timeout', '60s', 'metrics', '--json'], { nodeArgs: ['--max-old-space-size=48'], killAfterMs: 120_000 });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const families = JSON.parse(run.stdout) as { name: string; samples: unknown[] }[];
      expect(families.map((family) => [family.name, family.samples.length])).toEqual([['a', 1024 * 1024]]);
    });
  });
});
