import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent } from 'node:http';
import { peerCoreYaml, send, signalledReport, useAppHarness, useTestPki, type RunningApp, type TestCa } from '@fabric-ops/test-kit';
import { describe, expect, it } from 'vitest';

// Loaded with --import (and --expose-gc) ahead of the bin: watches the configuration step's
// modules as require() loads them, and on SIGUSR2 collects garbage, then reports which were
// loaded, which V8 has collected, and which are still in require's cache. The bin itself never
// forces a collection: a module collected here is one nothing in the bin keeps alive.
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
  globalThis.gc();
  // Finalization callbacks run after the collection, on a later turn of the loop.
  setTimeout(() => {
    const cached = Object.keys(Module._cache).filter((file) => /[\\\\/](zod|yaml|ops-config)[\\\\/]/.test(file));
    process.stderr.write('startup-modules ' + JSON.stringify({ loaded: [...loaded].sort(), collected: [...collected].sort(), cached }) + '\\n');
  }, 50);
});
`;

// Loaded with --import ahead of the bin: counts every call of v8.setFlagsFromString, whether
// made through require('node:v8') or an ES module import of it, and reports the count on SIGUSR2.
const FLAG_RECORDER = `import { createRequire, syncBuiltinESMExports } from 'node:module';
const v8 = createRequire(import.meta.url)('node:v8');
const calls = [];
const original = v8.setFlagsFromString;
v8.setFlagsFromString = (flags) => { calls.push(String(flags)); return original(flags); };
syncBuiltinESMExports();
process.on('SIGUSR2', () => process.stderr.write('v8-flag-calls ' + JSON.stringify(calls) + '\\n'));
`;

// Loaded with --import ahead of the bin: on SIGUSR2 reports the builtins node has loaded and the
// ES modules and CommonJS files the process has evaluated (by path).
const LOAD_RECORDER = `import { createRequire } from 'node:module';
const Module = createRequire(import.meta.url)('node:module');
process.on('SIGUSR2', () => {
  const builtins = process.moduleLoadList.filter((entry) => entry.startsWith('NativeModule ')).map((entry) => entry.slice('NativeModule '.length));
  process.stderr.write('loaded ' + JSON.stringify({ builtins, files: Object.keys(Module._cache) }) + '\\n');
});
`;

// Loaded with --import ahead of the bin: records every file node loads as an ES module (a hook on
// node's module loader, on its own thread), reported on SIGUSR2. The bin is CommonJS, so none
// of ours should be there: an ES copy of a package would sit beside its CommonJS one.
const ESM_RECORDER = `import { register } from 'node:module';
const hooks = \`let port;
export function initialize(data) { port = data.port; }
export async function load(url, context, next) {
  const result = await next(url, context);
  if (result.format === 'module' && url.startsWith('file:')) port.postMessage(url);
  return result;
}\`;
const { port1, port2 } = new MessageChannel();
const esm = [];
port1.on('message', (url) => esm.push(url));
port1.unref();
register('data:text/javascript,' + encodeURIComponent(hooks), { data: { port: port2 }, transferList: [port2] });
process.on('SIGUSR2', () => process.stderr.write('esm ' + JSON.stringify(esm) + '\\n'));
`;

interface StartupModules {
  readonly loaded: string[];
  readonly collected: string[];
  readonly cached: string[];
}

const { configDir, emptyDir, start } = useAppHarness(fileURLToPath(new URL('../dist/bin.cjs', import.meta.url)), 'core.yaml');

const pkiOf = useTestPki();

/** core.yaml with TLS off, no runtime check, and Prometheus. */
const PLAIN_CONFIG = 'vm:\n  endpoint: ""\noperations:\n  listenAddress: 127.0.0.1:0\nmetrics:\n  provider: prometheus\n';

/** core.yaml with TLS on (client certificates verified when given) and Prometheus. */
function tlsConfig(): string {
  return peerCoreYaml({ tls: { ...pkiOf().serverTls, clientAuthRequired: false } });
}

/** Starts the bin with `config` and `source` written to `fileName`, loaded with --import ahead of it. */
function startWith(source: string, fileName: string, config: string, nodeOptions = ''): Promise<RunningApp> {
  const preload = join(emptyDir(), fileName);
  writeFileSync(preload, source);
  return start({ FABRIC_CFG_PATH: configDir(config), NODE_OPTIONS: `${nodeOptions}--import ${preload}` });
}

/** A graceful stop: SIGTERM, and exit code 0. */
async function expectCleanStop(app: RunningApp): Promise<void> {
  app.child.kill('SIGTERM');
  expect((await app.exited).code).toBe(0);
}

/** Sends SIGUSR2 and resolves the JSON the probe reports on the stderr line starting with `prefix`. */
async function reported<T>(app: RunningApp, prefix: string): Promise<T> {
  return JSON.parse(await signalledReport(app, prefix)) as T;
}

/** The builtins a CommonJS node:https hello loads once listening (what any such server pays). */
function httpsHelloBuiltins(): string[] {
  const source = "const s = require('node:https').createServer({}, () => {}); s.listen(0, '127.0.0.1', () => { console.log(JSON.stringify(process.moduleLoadList)); s.close(); });";
  const list = JSON.parse(execFileSync(process.execPath, ['-e', source], { encoding: 'utf8' })) as string[];
  return list.filter((entry) => entry.startsWith('NativeModule ')).map((entry) => entry.slice('NativeModule '.length));
}

describe('peer bin footprint', () => {
  it('releases the configuration step (ops-config, with yaml inside it) once listening, so a full collection frees it, and loads no zod or yaml package', async () => {
    const app = await startWith(PROBE, 'probe.mjs', PLAIN_CONFIG, '--expose-gc ');
    expect((await send(app.address, '/version')).status).toBe(200);

    let report: StartupModules | undefined;
    for (let attempt = 0; attempt < 100; attempt++) {
      const before = app.stderr.length;
      app.child.kill('SIGUSR2');
      await new Promise((resolve) => setTimeout(resolve, 200));
      const line = app.stderr.slice(before).find((text) => text.startsWith('startup-modules '));
      if (line !== undefined) report = JSON.parse(line.slice('startup-modules '.length)) as StartupModules;
      if (report !== undefined && report.collected.length === report.loaded.length) break;
    }
    const watched = ['@fabric-ops/ops-config'];
    // Loaded through require (an ES module import would not show here and could never be released),
    // yaml inside ops-config's one file: as a package of its own it is 72 files to resolve and load…
    expect(report?.loaded).toEqual(watched);
    // …dropped from the cache, and nothing keeps them alive: V8's next full collection frees them.
    expect(report?.cached).toEqual([]);
    expect(report?.collected).toEqual(watched);
  }, 60_000);

  it('with TLS off, serves /version, /metrics and /healthz without loading node:zlib, node:tls, node:https or ops-tls-auth', async () => {
    const app = await startWith(LOAD_RECORDER, 'loaded.mjs', PLAIN_CONFIG);
    for (const path of ['/version', '/metrics', '/healthz']) expect((await send(app.address, path)).status).toBe(200);
    const report = () => reported<{ builtins: string[]; files: string[] }>(app, 'loaded ');
    const idle = await report();
    // The recorder works: what every such server loads is listed.
    expect(idle.builtins).toContain('http');
    // Loaded on first use only: zlib on a compressed scrape, TLS with TLS on. Some Node lines
    // (24) load node:tls and node:zlib for any ES module importing node:http: what a plain ES
    // module http hello on this node loads is not the bin's doing.
    const hello = JSON.parse(
      execFileSync(process.execPath, ['--input-type=module', '-e', "import { createServer } from 'node:http'; createServer(); console.log(JSON.stringify(process.moduleLoadList))"], {
        encoding: 'utf8',
      }),
    ) as string[];
    const lazy = ['zlib', 'tls', 'https', '_tls_wrap'].filter((name) => !hello.includes(`NativeModule ${name}`));
    expect(lazy).toContain('https');
    expect(idle.builtins.filter((name) => lazy.includes(name))).toEqual([]);
    // The bin loads every package through require (CommonJS): ops-tls-auth and its go-x509 would be in require's cache.
    expect(idle.files.filter((file) => /ops-tls-auth|go-x509/.test(file))).toEqual([]);

    // A gzip scrape loads node:zlib then, and is answered compressed.
    const gzipped = await send(app.address, '/metrics', { headers: { 'Accept-Encoding': 'gzip' } });
    expect(gzipped.status).toBe(200);
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect((await report()).builtins).toContain('zlib');
    await expectCleanStop(app);
  }, 60_000);

  it('changes no V8 flag at run time, through start-up, load and a graceful stop', async () => {
    const app = await startWith(FLAG_RECORDER, 'flags.mjs', PLAIN_CONFIG);
    const agent = new Agent({ keepAlive: true, maxSockets: 4 });
    try {
      const paths = ['/version', '/logspec', '/healthz', '/metrics'];
      const worker = async (offset: number): Promise<void> => {
        for (let i = 0; i < 100; i++) expect((await send(app.address, paths[(i + offset) % paths.length]!, { agent })).status).toBe(200);
      };
      await Promise.all([0, 1, 2, 3].map(worker));
    } finally {
      agent.destroy();
    }
    app.child.kill('SIGUSR2');
    let line: string | undefined;
    for (let attempt = 0; attempt < 200 && line === undefined; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      line = app.stderr.find((text) => text.startsWith('v8-flag-calls '));
    }
    expect(line).toBe('v8-flag-calls []');
    await expectCleanStop(app);
  }, 120_000);

  it('with TLS on and Prometheus, idle, loads no node:worker_threads, node:dns/promises or node:dgram beyond an https hello; an ordinary client certificate neither; the first chain that needs a verifier thread loads worker_threads', async () => {
    const app = await startWith(LOAD_RECORDER, 'loaded.mjs', tlsConfig());
    // No client certificate yet (so no /metrics, which wants one): the verifier threads have not started.
    for (const path of ['/version', '/healthz']) expect((await send(app.address, path, { tls: { ca: pkiOf().ca.cert } })).status).toBe(200);
    const idle = await reported<{ builtins: string[]; files: string[] }>(app, 'loaded ');
    // The recorder works: TLS is on, so node:tls is listed, and ops-tls-auth came through require.
    expect(idle.builtins).toContain('tls');
    expect(idle.files.some((file) => /ops-tls-auth[\\/]dist[\\/]index\.cjs$/.test(file))).toBe(true);
    const hello = httpsHelloBuiltins();
    const lazy = ['worker_threads', 'dns/promises', 'dgram'].filter((name) => !hello.includes(name));
    expect(lazy).toContain('worker_threads');
    expect(lazy).toContain('dns/promises');
    expect(idle.builtins.filter((name) => lazy.includes(name))).toEqual([]);

    // An ordinary client's chain is decided on the event loop: still no worker_threads.
    const client = { ca: pkiOf().ca.cert, cert: pkiOf().clients.good.cert, key: pkiOf().clients.good.key };
    expect((await send(app.address, '/logspec', { tls: client })).status).toBe(200);
    expect((await reported<{ builtins: string[] }>(app, 'loaded ')).builtins.filter((name) => lazy.includes(name))).toEqual([]);
    // A chain past the small-chain size (a leaf under four intermediates: five certificates on
    // its issuer path, five signatures) starts a verifier thread: worker_threads is loaded then.
    let issuer: TestCa = pkiOf().ca;
    const intermediates: string[] = [];
    for (let level = 1; level <= 4; level++) {
      issuer = await issuer.issueIntermediate(`footprint-level-${level}`);
      intermediates.unshift(issuer.cert);
    }
    const deep = await issuer.issue('footprint-deep', { subject: { O: 'Org1', CN: 'deep' }, extendedKeyUsage: ['clientAuth'] });
    const longChain = { ca: pkiOf().ca.cert, cert: deep.cert + intermediates.join(''), key: deep.key };
    expect((await send(app.address, '/logspec', { tls: longChain })).status).toBe(200);
    expect((await reported<{ builtins: string[] }>(app, 'loaded ')).builtins).toContain('worker_threads');
    await expectCleanStop(app);
  }, 60_000);

  it('with TLS on, loads none of its files as an ES module (the bin and every package through require, ops-tls-auth too)', async () => {
    const app = await startWith(ESM_RECORDER, 'esm.mjs', tlsConfig());
    expect((await send(app.address, '/version', { tls: { ca: pkiOf().ca.cert } })).status).toBe(200);
    const esm = await reported<string[]>(app, 'esm ');
    expect(esm.filter((url) => !url.endsWith('/esm.mjs'))).toEqual([]);
    await expectCleanStop(app);
  }, 60_000);
});
