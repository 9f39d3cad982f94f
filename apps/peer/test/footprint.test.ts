import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent } from 'node:http';
import { send, useAppHarness } from '@fabric-ops/test-kit';
import { describe, expect, it } from 'vitest';

// Loaded with --import ahead of the bin: watches the configuration step's modules as require()
// loads them, and on SIGUSR2 reports which were loaded, which V8 has since collected, and which
// are still in require's cache. It never collects garbage itself: a collected module here means
// the bin released it and collected it on its own.
const PROBE = `import { createRequire } from 'node:module';
const Module = createRequire(import.meta.url)('node:module');
const watched = new Set(['@fabric-ops/ops-config', 'yaml', 'zod']);
const loaded = new Set();
const collected = new Set();
const finalization = new FinalizationRegistry((name) => collected.add(name));
const load = Module._load;
Module._load = function (request, ...rest) {
  const exports = load.call(this, request, ...rest);
  if (watched.has(request) && !loaded.has(request)) {
    loaded.add(request);
    finalization.register(exports, request);
  }
  return exports;
};
process.on('SIGUSR2', () => {
  const cached = Object.keys(Module._cache).filter((file) => /[\\\\/](zod|yaml|ops-config)[\\\\/]/.test(file));
  process.stderr.write('startup-modules ' + JSON.stringify({ loaded: [...loaded].sort(), collected: [...collected].sort(), cached }) + '\\n');
});
`;

// Turns on V8's optimization trace (stdout) before the bin runs; set at run time, so the bin
// does not take it for an operator's compiler option.
const TRACE_OPTIMIZATION = `import { setFlagsFromString } from 'node:v8';
setFlagsFromString('--trace-opt');
`;

interface StartupModules {
  readonly loaded: string[];
  readonly collected: string[];
  readonly cached: string[];
}

const { configDir, emptyDir, start } = useAppHarness(fileURLToPath(new URL('../dist/bin.js', import.meta.url)), 'core.yaml');

describe('peer bin footprint', () => {
  it('releases the configuration step (ops-config, zod, yaml) once listening, and V8 has collected it', async () => {
    const probe = join(emptyDir(), 'probe.mjs');
    writeFileSync(probe, PROBE);
    const dir = configDir('vm:\n  endpoint: ""\noperations:\n  listenAddress: 127.0.0.1:0\nmetrics:\n  provider: prometheus\n');
    const app = await start({ FABRIC_CFG_PATH: dir, NODE_OPTIONS: `--import ${probe}` });
    expect((await send(app.address, '/version')).status).toBe(200);

    let report: StartupModules | undefined;
    for (let attempt = 0; attempt < 40; attempt++) {
      const before = app.stderr.length;
      app.child.kill('SIGUSR2');
      await new Promise((resolve) => setTimeout(resolve, 100));
      const line = app.stderr.slice(before).find((text) => text.startsWith('startup-modules '));
      if (line !== undefined) report = JSON.parse(line.slice('startup-modules '.length)) as StartupModules;
      if (report !== undefined && report.collected.length === report.loaded.length) break;
    }
    const watched = ['@fabric-ops/ops-config', 'yaml', 'zod'];
    // Loaded through require (an ES module import would not show here and could never be released)…
    expect(report?.loaded).toEqual(watched);
    // …dropped from the cache, and collected by the bin's own start-up collection.
    expect(report?.cached).toEqual([]);
    expect(report?.collected).toEqual(watched);
  }, 60_000);

  it("keeps V8's optimizing compiler off through start-up and on once listening", async () => {
    const probe = join(emptyDir(), 'trace.mjs');
    writeFileSync(probe, TRACE_OPTIMIZATION);
    const dir = configDir('vm:\n  endpoint: ""\noperations:\n  listenAddress: 127.0.0.1:0\nmetrics:\n  provider: prometheus\n');
    const app = await start({ FABRIC_CFG_PATH: dir, NODE_OPTIONS: `--import ${probe}` });
    const agent = new Agent({ keepAlive: true, maxSockets: 4 });
    try {
      const paths = ['/version', '/logspec', '/healthz', '/metrics'];
      const worker = async (offset: number): Promise<void> => {
        for (let i = 0; i < 600; i++) expect((await send(app.address, paths[(i + offset) % paths.length]!, { agent })).status).toBe(200);
      };
      await Promise.all([0, 1, 2, 3].map(worker));
    } finally {
      agent.destroy();
    }
    app.child.kill('SIGTERM');
    expect((await app.exited).code).toBe(0);
    const optimized = app.stdout.filter((line) => line.startsWith('[completed optimizing'));
    // Start-up's hot code is node's module resolution; with the compiler on, it is always optimized.
    expect(optimized.filter((line) => /normalizeString|_nodeModulePaths/.test(line))).toEqual([]);
    // The request path is optimized under load, as in any node process.
    expect(optimized.length).toBeGreaterThan(0);
  }, 60_000);
});
