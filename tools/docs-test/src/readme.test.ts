// The root README's configuration tables and HTTP API section, checked against the running
// bins (--print-config, real requests) and against openapi.yaml.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { configDir, runAppToExit, send, type RunningApp } from '@fabric-ops/test-kit';
import { ORDERER_BIN, PEER_BIN, peerLauncher, repoRoot } from './peer.ts';

const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');

interface ConfigRow {
  readonly key: string;
  readonly defaultValue: string;
  readonly variable: string;
}

/** The rows of the first table after `heading`. */
function tableAfter(heading: string): string[][] {
  const start = readme.indexOf(heading);
  if (start < 0) throw new Error(`README has no heading ${heading}`);
  const lines = readme.slice(start).split('\n').slice(1);
  const first = lines.findIndex((line) => line.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .split(/(?<!\\)\|/)
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}

const unquote = (cell: string) => cell.replace(/^`|`$/g, '');

function configRows(heading: string): ConfigRow[] {
  return tableAfter(heading).map(([key, defaultValue, variable]) => ({ key: unquote(key!), defaultValue: unquote(defaultValue!), variable: unquote(variable!) }));
}

interface PrintedValue {
  readonly value: unknown;
  readonly source: string;
}

/** `--print-config` output → key path → value and `# default` / `# file` / `# env X`. */
function parsePrintConfig(text: string): Map<string, PrintedValue> {
  const values = new Map<string, PrintedValue>();
  const stack: { indent: number; key: string }[] = [];
  for (const line of text.split('\n')) {
    const match = /^(\s*)([A-Za-z]+):(.*)$/.exec(line);
    if (!match) continue;
    const indent = match[1]!.length;
    while (stack.length > 0 && stack[stack.length - 1]!.indent >= indent) stack.pop();
    const path = [...stack.map((s) => s.key), match[2]!].join('.');
    const rest = match[3]!.trim();
    if (rest === '') {
      stack.push({ indent, key: match[2]! });
      continue;
    }
    const comment = rest.lastIndexOf('  # ');
    values.set(path, { value: parse(rest.slice(0, comment)) as unknown, source: rest.slice(comment + 4) });
  }
  return values;
}

function shown(value: unknown): string {
  if (Array.isArray(value)) return JSON.stringify(value);
  if (value === '') return '""';
  return String(value);
}

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function printConfig(bin: string, fileName: string, env: NodeJS.ProcessEnv): Promise<Map<string, PrintedValue>> {
  const dir = configDir(fileName, '{}\n');
  dirs.push(dir);
  // runAppToExit merges into process.env, so variables from the machine are blanked explicitly.
  const blanked = Object.fromEntries(
    Object.keys(process.env)
      .filter((name) => /^(CORE|ORDERER)_/.test(name))
      .map((name) => [name, undefined]),
  );
  const result = await runAppToExit(bin, { args: ['--config', join(dir, fileName), '--print-config'], env: { ...blanked, ...env } });
  expect(result.code, result.stderr).toBe(0);
  return parsePrintConfig(result.stdout);
}

/** A value each variable accepts without tripping a cross-key rule, so its source shows. */
function sampleValue(row: ConfigRow): string {
  if (/enabled|clientauthrequired/i.test(row.key)) return 'false';
  if (/provider$/i.test(row.key)) return 'disabled';
  if (/network$/i.test(row.key)) return 'tcp';
  if (/(writeinterval|checktimeout|cachettl|timeout|interval)$/i.test(row.key)) return '7s';
  if (/clientrootcas/i.test(row.key)) return row.variable.startsWith('ORDERER_') ? '[ca.pem]' : 'ca.pem';
  if (/address$/i.test(row.key)) return '127.0.0.1:7777';
  if (/endpoint$/i.test(row.key)) return 'unix:///var/run/from-env.sock';
  return 'from-env';
}

for (const app of [
  { name: 'peer', heading: '### Peer (`core.yaml`)', bin: PEER_BIN, file: 'core.yaml', rows: 20 },
  { name: 'orderer', heading: '### Orderer (`orderer.yaml`)', bin: ORDERER_BIN, file: 'orderer.yaml', rows: 19 },
]) {
  describe(`README configuration reference: ${app.name}`, () => {
    const rows = configRows(app.heading);

    it(`lists every key the ${app.name} prints, and only those`, async () => {
      const printed = await printConfig(app.bin, app.file, {});
      expect(rows).toHaveLength(app.rows);
      expect(rows.map((row) => row.key).sort()).toEqual([...printed.keys()].sort());
    });

    it('gives the defaults the running bin applies to a file without the keys', async () => {
      const printed = await printConfig(app.bin, app.file, {});
      for (const row of rows) {
        const actual = printed.get(row.key);
        expect(actual?.source, row.key).toBe('default');
        expect(shown(actual?.value), row.key).toBe(row.defaultValue);
      }
    });

    it('names the environment variable that overrides each key', async () => {
      const env = Object.fromEntries(rows.map((row) => [row.variable, sampleValue(row)]));
      const printed = await printConfig(app.bin, app.file, env);
      for (const row of rows) expect(printed.get(row.key)?.source, row.key).toBe(`env ${row.variable}`);
    });
  });
}

describe('README HTTP API', () => {
  const openapi = parse(readFileSync(join(repoRoot, 'openapi.yaml'), 'utf8')) as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
  const rows = tableAfter('## HTTP API').map(([methods, path, answers]) => ({
    methods: methods!.split(',').map((m) => m.trim()),
    path: unquote(path!).replace('<component>', '{component}'),
    statuses: [...answers!.matchAll(/`(\d{3})[ `]/g)].map((m) => m[1]!),
  }));

  it('lists exactly the paths openapi.yaml documents, with statuses it documents', () => {
    expect([...new Set(rows.map((row) => row.path))].sort()).toEqual(Object.keys(openapi.paths).sort());
    for (const row of rows) {
      const documented = new Set(Object.values(openapi.paths[row.path]!).flatMap((op) => Object.keys(op.responses)));
      expect(row.statuses.length, row.path).toBeGreaterThan(0);
      for (const status of row.statuses) expect(documented, `${row.path} ${status}`).toContain(status);
    }
  });

  describe('example session', () => {
    const peers = peerLauncher();
    let peer: RunningApp;
    beforeAll(async () => {
      peer = await peers.start({}, { CORE_VM_ENDPOINT: 'unix:///var/run/fabric-ops-readme-test/docker.sock' });
    });
    afterAll(() => peers.stopAll());

    const session = /```console\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf('## HTTP API')))![1]!;
    const exchanges: { command: string; output: string[] }[] = [];
    for (const line of session.split('\n')) {
      if (line.startsWith('$ ')) exchanges.push({ command: line.slice(2).replace(/\s+#.*$/, ''), output: [] });
      else if (line !== '') exchanges.at(-1)!.output.push(line);
    }
    const version = (JSON.parse(readFileSync(join(repoRoot, 'apps', 'peer', 'package.json'), 'utf8')) as { version: string }).version;
    const normalise = (text: string) =>
      text
        .replace(/\d{4}-\d\d-\d\dT[\d:.]+(Z|[+-]\d\d:\d\d)/g, '<time>')
        .replace(/\(\d+(\.\d+)?(ns|µs|us|ms|s)\)/g, '(<took>)')
        .replace(/dial unix [^:]+:/g, 'dial unix <socket>:')
        .replace(/"CommitSHA":"[^"]*"/g, '"CommitSHA":"<sha>"')
        .replaceAll(`"Version":"${version}"`, '"Version":"<v>"')
        .replaceAll(`version="${version}"`, 'version="<v>"')
        .replaceAll('"Version":"0.1.0"', '"Version":"<v>"')
        .replaceAll('version="0.1.0"', 'version="<v>"');

    it('has plain-HTTP examples for every Fabric endpoint', () => {
      const plain = exchanges.filter((e) => !e.command.includes('https://'));
      for (const path of ['/logspec', '/healthz', '/version', '/metrics', '/livez']) {
        expect(
          plain.some((e) => e.command.includes(`9443${path}`)),
          path,
        ).toBe(true);
      }
    });

    it('answers each plain-HTTP example as the README shows', async () => {
      let checked = 0;
      for (const exchange of exchanges) {
        if (exchange.command.includes('https://')) continue;
        const url = /'?(127\.0\.0\.1:9443(\/[^\s']*))'?/.exec(exchange.command)!;
        const method = /-X (\w+)/.exec(exchange.command)?.[1] ?? 'GET';
        const body = /-d '([^']*)'/.exec(exchange.command)?.[1];
        const grep = /\| grep (\S+)/.exec(exchange.command)?.[1];
        // The README's metrics example assumes provider prometheus; the test peer has it.
        const reply = await send(peer.address, url[2]!, { method, ...(body === undefined ? {} : { body }) });
        let lines = reply.body.split('\n').filter((line) => line !== '');
        if (grep !== undefined) lines = lines.filter((line) => line.includes(grep));
        if (exchange.command.includes("-w '%{http_code}")) lines.push(String(reply.status));
        expect(normalise(lines.join('\n')), exchange.command).toBe(normalise(exchange.output.join('\n')));
        checked++;
      }
      expect(checked).toBeGreaterThanOrEqual(8);
    });
  });
});
