import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestPki, peerCoreYaml, send, useAppHarness, type TestPki } from '@fabric-ops/test-kit';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Loaded with --import ahead of the bin: on SIGUSR2 reports the builtins node has loaded and the
// CommonJS files the process has evaluated (by path). pino and its helpers are CommonJS, so a
// pino loaded by the bin is in this list.
const LOAD_RECORDER = `import { createRequire } from 'node:module';
const Module = createRequire(import.meta.url)('node:module');
process.on('SIGUSR2', () => {
  const builtins = process.moduleLoadList.filter((entry) => entry.startsWith('NativeModule ')).map((entry) => entry.slice('NativeModule '.length));
  process.stderr.write('loaded ' + JSON.stringify({ builtins, files: Object.keys(Module._cache) }) + '\\n');
});
`;

const PINO_FILES = /[\\/]node_modules[\\/](pino|pino-std-serializers|sonic-boom|thread-stream|safe-stable-stringify|quick-format-unescaped|@pinojs[\\/]redact)[\\/]/;

let pki: TestPki;
beforeAll(async () => {
  pki = await createTestPki();
});
afterAll(() => pki.cleanup());

const { configDir, emptyDir, start } = useAppHarness(fileURLToPath(new URL('../dist/bin.cjs', import.meta.url)), 'core.yaml');

/** core.yaml with TLS on (client certificates verified when given) and Prometheus. */
function tlsConfig(): string {
  return peerCoreYaml({ tls: { ...pki.serverTls, clientAuthRequired: false } });
}

const PINO_LEVEL_NAMES: Record<number, 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal'> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };

/** The line pino itself writes for the entry `line` records (same time, logger, fields and message; this process's pid swapped for the bin's). */
function pinoLineFor(line: string): string {
  const { level, time, pid, hostname: _hostname, name, msg, ...fields } = JSON.parse(line) as Record<string, unknown>;
  let written = '';
  const logger = pino({ level: 'trace', timestamp: () => `,"time":${String(time)}` }, { write: (text: string) => void (written = text) }).child({ name });
  logger[PINO_LEVEL_NAMES[level as number]!](fields, msg as string);
  return written.replace(`"pid":${process.pid},`, `"pid":${String(pid)},`).replace(/\n$/, '');
}

describe('peer bin logging footprint', () => {
  it('with TLS on and a client CA file, never loads pino, and writes the lines pino writes', async () => {
    const recorder = join(emptyDir(), 'loaded.mjs');
    writeFileSync(recorder, LOAD_RECORDER);
    const app = await start({ FABRIC_CFG_PATH: configDir(tlsConfig()), FABRIC_LOGGING_FORMAT: 'json', NODE_OPTIONS: `--import ${recorder}` });
    const tls = { ca: pki.ca.cert, cert: pki.clients.good.cert, key: pki.clients.good.key };
    expect((await send(app.address, '/version', { tls })).status).toBe(200);
    expect((await send(app.address, '/logspec', { method: 'PUT', body: '{"spec":"info"}', tls })).status).toBe(204);

    const before = app.stderr.length;
    app.child.kill('SIGUSR2');
    let report: { builtins: string[]; files: string[] } | undefined;
    for (let attempt = 0; attempt < 200 && report === undefined; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const line = app.stderr.slice(before).find((text) => text.startsWith('loaded '));
      if (line !== undefined) report = JSON.parse(line.slice('loaded '.length)) as typeof report;
    }
    // The recorder works: TLS is on, so node:tls is listed.
    expect(report?.builtins).toContain('tls');
    expect(report?.files.filter((file) => PINO_FILES.test(file))).toEqual([]);

    // The ready line and the audit line of the spec change, byte for byte as pino writes them.
    const lines = app.stdout.filter((line) => line.startsWith('{'));
    expect(lines.map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual(expect.arrayContaining([expect.stringContaining('listening on'), 'logging spec changed']));
    for (const line of lines) expect(line).toBe(pinoLineFor(line));
    app.child.kill('SIGTERM');
    expect((await app.exited).code).toBe(0);
  }, 60_000);
});
