// The real opsctl bin against a hostile Prometheus and hostile nodes, where time and memory are
// concerned: --deadline covers discovery, the target list is read as it
// arrives, a reset mid-answer is named as one, and black holes sorted first do not starve the
// healthy nodes.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startSilentListener } from './fleet-kit.ts';
import { closeAll, runOpsctlBin, startAnswering, startRawServer } from './hostile-kit.ts';

const scratch = mkdtempSync(join(tmpdir(), 'fabric-ops-opsctl-hostile-time-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('--deadline covers discovery; the target list is read as it arrives', () => {
  it('a Prometheus that drips its answer costs --deadline, not --timeout', async () => {
    const prometheus = await startRawServer((socket, every) => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"status":"success","data":{"activeTargets":[');
      every(1_000, () => socket.write(' '));
    });
    try {
      const run = await runOpsctlBin(['--prometheus', `http://${prometheus.address}`, '--timeout', '60s', '--deadline', '2s', 'health'], { killAfterMs: 50_000 });
      expect(run.code).toBe(3);
      expect(run.stderr).toBe(`opsctl: --prometheus http://${prometheus.address}/api/v1/targets: --deadline 2s passed before the end of its answer\n`);
      expect(run.elapsedMs).toBeLessThan(20_000);
    } finally {
      await prometheus.close();
    }
  });

  it('holds one entry at a time: 24 MiB of nested empty lists before the targets cost no more than a small heap', async () => {
    const node = await startAnswering(() => ({ status: 200, body: '{"status":"OK"}' }));
    const filler = '[],'.repeat(8 * 1024 * 1024);
    const body = Buffer.from(
      `{"status":"success","data":{"droppedTargets":[${filler}[]],"activeTargets":[{"labels":{"job":"fabric-peer"},"scrapePool":"fabric-peer","scrapeUrl":"http://${node.address}/metrics"}]}}`,
    );
    const prometheus = await startAnswering(() => ({ status: 200, body }));
    try {
      // A 64 MiB old generation: JSON.parse of the whole answer needs far more.
      const run = await runOpsctlBin(['--prometheus', `http://${prometheus.address}`, '--timeout', '60s', 'health', '--json'], { nodeArgs: ['--max-old-space-size=64'], killAfterMs: 50_000 });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject([{ target: node.address, ok: true }]);
    } finally {
      await closeAll([node, prometheus]);
    }
  });

  it('stops at the first wrong entry and refuses nesting deeper than 64 levels', async () => {
    const deep = await startAnswering(() => ({ status: 200, body: `{"data":{"activeTargets":[{"labels":${'['.repeat(1_000_000)}` }));
    try {
      const run = await runOpsctlBin(['--prometheus', `http://${deep.address}`, 'health'], { killAfterMs: 40_000 });
      expect(run.code).toBe(5);
      expect(run.stderr).toBe(`opsctl: --prometheus http://${deep.address}/api/v1/targets: the answer is nested deeper than 64 levels\n`);
    } finally {
      await deep.close();
    }
  });
});

describe('a reset mid-answer, and black holes sorted first', () => {
  it('reports a reset after the status line as an incomplete answer, not as a TLS question', async () => {
    const server = await startRawServer((socket) => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"Vers', () => setTimeout(() => socket.resetAndDestroy(), 50));
    });
    try {
      const run = await runOpsctlBin(['--address', server.address, 'version'], { killAfterMs: 40_000 });
      expect(run.code).toBe(3);
      expect(run.stderr).toBe(`opsctl: http://${server.address}: the server closed the connection after its status line (200), before the end of the answer; the answer is incomplete\n`);
    } finally {
      await server.close();
    }
  });

  it('reaches every healthy node although 12 black holes sort before them', async () => {
    const holes = await Promise.all(Array.from({ length: 12 }, () => startSilentListener()));
    const healthy: Server[] = [];
    for (let i = 0; i < 12; i++) {
      const server = createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"status":"OK"}'));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.2', resolve));
      healthy.push(server);
    }
    const healthyAddresses = healthy.map((server) => `127.0.0.2:${(server.address() as { port: number }).port}`);
    try {
      const file = join(scratch, 'holes-first.json');
      writeFileSync(file, JSON.stringify([{ targets: [...holes.map((hole) => hole.address), ...healthyAddresses] }]));
      // Four slots, each black hole would hold one for the whole --timeout: 12 of them, 3 × 20 s.
      const run = await runOpsctlBin(['--targets', file, '--concurrency', '4', '--timeout', '20s', '--deadline', '8s', 'health', '--json'], { killAfterMs: 50_000 });
      expect(run.code).toBe(1);
      const rows = JSON.parse(run.stdout) as { target: string; ok: boolean; reason?: string }[];
      expect(rows.filter((row) => row.target.startsWith('127.0.0.2:') && row.ok)).toHaveLength(12);
      for (const row of rows.filter((r) => r.target.startsWith('127.0.0.1:'))) expect(row).toMatchObject({ ok: false, reason: 'deadline' });
    } finally {
      await closeAll(holes);
      for (const server of healthy) server.closeAllConnections();
      await Promise.all(healthy.map((server) => new Promise((resolve) => server.close(resolve))));
    }
  });
});
