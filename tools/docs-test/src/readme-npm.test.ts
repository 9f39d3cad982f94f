// What the root README and examples/README.md claim about installing, embedding and the metrics
// a dashboard finds, checked against the repository, the consumer test and a running peer.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send, type RunningApp } from '@fabric-ops/test-kit';
import { peerLauncher, repoRoot } from './peer.ts';

const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
const examplesReadme = readFileSync(join(repoRoot, 'examples', 'README.md'), 'utf8');
const opening = readme.slice(0, readme.indexOf('\n## '));
const npmSection = readme.slice(readme.indexOf('## Using the packages from npm'), readme.indexOf('\n## ', readme.indexOf('## Using the packages from npm') + 3));

describe('README: installing the packages', () => {
  it('does not claim the packages are on the registry', () => {
    expect(readme).not.toMatch(/published separately/i);
    expect(npmSection).toContain('not on the npm registry yet');
    expect(npmSection).not.toMatch(/^npm install @fabric-ops\//m);
  });

  it('gives the tarball recipe the consumer test runs, word for word', () => {
    const block = /```sh\n([\s\S]*?)```/.exec(npmSection)![1]!;
    const pack = block.split('\n').find((line) => line.startsWith('pnpm '))!;
    const install = block.split('\n').find((line) => line.startsWith('npm install '))!;
    const destination = /--pack-destination (\S+)$/.exec(pack)![1]!;
    expect(install).toBe(`npm install ${destination}/*.tgz`);
    // The consumer test passes the same arguments to pnpm (quotes are the shell's).
    const args = pack
      .replace(/ --pack-destination \S+$/, '')
      .split(' ')
      .slice(1)
      .map((arg) => arg.replace(/^'(.*)'$/, '$1'));
    const consumer = readFileSync(join(repoRoot, 'tools', 'consumer-test', 'src', 'consumer.test.ts'), 'utf8');
    expect(consumer).toContain(`exec('pnpm', [${[...args, '--pack-destination'].map((a) => `'${a}'`).join(', ')}, tarballs]`);
    expect(consumer).toMatch(/exec\('npm', \['install', [^\]]*\.\.\.tgz\]/);
  });
});

describe('README and examples/README.md: the examples', () => {
  const commands = [...`${readme}\n${examplesReadme}`.matchAll(/\bnode (examples\/[\w/-]+\.mjs)/g)].map((m) => m[1]!);

  it('give `node examples/…` commands for files that exist', () => {
    expect(commands.length).toBeGreaterThanOrEqual(5);
    for (const command of new Set(commands)) expect(existsSync(join(repoRoot, command)), command).toBe(true);
  });

  it('give a command for every runnable example (all but the modules they import)', () => {
    const libraries = new Set(['examples/embedding/service.mjs', 'examples/frameworks/operations.mjs']);
    for (const dir of readdirSync(join(repoRoot, 'examples'), { withFileTypes: true })) {
      if (!dir.isDirectory()) continue;
      for (const file of readdirSync(join(repoRoot, 'examples', dir.name))) {
        const path = `examples/${dir.name}/${file}`;
        if (file.endsWith('.mjs') && !libraries.has(path)) expect(examplesReadme, path).toContain(`node ${path}`);
      }
    }
  });

  it('ship no TypeScript that Node 20 cannot run as it is', () => {
    const sources = readdirSync(join(repoRoot, 'examples'), { recursive: true, encoding: 'utf8' }).filter((f) => !f.includes('node_modules'));
    expect(sources.filter((f) => /\.(ts|mts|cts)$/.test(f))).toEqual([]);
  });

  it('shows Express, Fastify and node:http side by side, each naming its runnable file', () => {
    for (const file of ['express.mjs', 'fastify.mjs', 'node-http.mjs']) {
      expect(npmSection, file).toContain(file);
      expect(existsSync(join(repoRoot, 'examples', 'frameworks', file)), file).toBe(true);
    }
  });
});

describe('README opening: which metric series a dashboard finds', () => {
  const peers = peerLauncher();
  let families: Set<string>;
  beforeAll(async () => {
    const peer: RunningApp = await peers.start({}, { CORE_VM_ENDPOINT: '' });
    // The /proc-based series appear after the first sample of the runtime timer (5 s at most).
    let body = '';
    // The network pair is read on the same timer, asynchronously: wait for it too.
    const sampled = (text: string): boolean => text.includes('# TYPE process_heap_bytes gauge') && text.includes('# TYPE process_network_transmit_bytes_total counter');
    for (const deadline = Date.now() + 20_000; !sampled(body) && Date.now() < deadline;) {
      if (body !== '') await new Promise((resolve) => setTimeout(resolve, 500));
      body = (await send(peer.address, '/metrics')).body;
    }
    families = new Set([...body.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!));
  });
  afterAll(() => peers.stopAll());

  it('qualifies "dashboards keep working": Go runtime series are named as not served', () => {
    expect(opening).toMatch(/dashboards?/);
    expect(opening).toContain("Go's runtime series are not served");
  });

  it('the families it names as served are served, and those it names as absent are absent', () => {
    expect([...families].filter((name) => name.startsWith('go_'))).toEqual([]);
    for (const absent of ['process_virtual_memory_max_bytes']) {
      expect(opening).toContain(absent);
      expect(families.has(absent), absent).toBe(false);
    }
    expect(opening).toContain('`process_network_*` as Fabric');
    for (const served of [
      'fabric_version',
      'logging_entries_checked',
      'logging_entries_written',
      'promhttp_metric_handler_requests_total',
      'process_cpu_user_seconds_total',
      'process_cpu_system_seconds_total',
      'process_heap_bytes',
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'process_network_receive_bytes_total',
      'process_network_transmit_bytes_total',
    ]) {
      expect(families.has(served), served).toBe(true);
    }
    expect([...families].some((name) => name.startsWith('nodejs_'))).toBe(true);
    for (const named of ['`fabric_version`', '`logging_entries_*`', '`promhttp_metric_handler_*`', 'process_heap_bytes', '`nodejs_*`']) expect(opening).toContain(named);
  });
});
