import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
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
});
