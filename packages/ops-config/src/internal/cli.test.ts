import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ordererConfigFromCommandLine, parseCommandLine, peerConfigFromCommandLine } from './cli.ts';

describe('parseCommandLine', () => {
  it.each([
    [[], { ok: true, action: 'run' }],
    [['--config', 'a.yaml'], { ok: true, action: 'run', configFile: 'a.yaml' }],
    [['--config=a.yaml', '--print-config'], { ok: true, action: 'print-config', configFile: 'a.yaml' }],
    [['--check-config'], { ok: true, action: 'check-config' }],
    [['--help'], { ok: true, action: 'help' }],
    [['-h', '--check-config'], { ok: true, action: 'help' }],
    [['--verbose'], { ok: false, message: 'unknown flag "--verbose"' }],
    [['-x'], { ok: false, message: 'unknown flag "-x"' }],
    [['start'], { ok: false, message: 'unexpected argument "start"' }],
    [['--config'], { ok: false, message: '--config needs a file path: --config <file>' }],
    [['--config='], { ok: false, message: '--config needs a file path: --config <file>' }],
    [['--config', '--print-config'], { ok: false, message: '--config needs a file path: --config <file>' }],
    [['--config', 'a', '--config', 'b'], { ok: false, message: '--config given more than once' }],
    [['--check-config', '--strict'], { ok: true, action: 'check-config', strict: true }],
    [['--print-config', '--strict'], { ok: false, message: '--strict applies to --check-config and to a run, not to --print-config' }],
    [['--print-config', '--check-config'], { ok: false, message: '--print-config and --check-config cannot be combined' }],
  ] as const)('%j', (argv, expected) => expect(parseCommandLine(argv)).toEqual(expected));
});

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function configDir(name: string, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'ops-config-cli-'));
  made.push(dir);
  writeFileSync(join(dir, name), text);
  return dir;
}

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, stdout: (text: string) => void out.push(text), stderr: (text: string) => void err.push(text) };
}

/** The peer's command line run with `argv` over a core.yaml of `text` (FABRIC_CFG_PATH, and `env`), and what it printed. */
function peerWith(text: string, argv: readonly string[], env: NodeJS.ProcessEnv = {}) {
  const dir = configDir('core.yaml', text);
  const io = capture();
  const outcome = peerConfigFromCommandLine({ argv, env: { FABRIC_CFG_PATH: dir, ...env }, ...io });
  return { dir, io, outcome };
}

describe('peerConfigFromCommandLine / ordererConfigFromCommandLine', () => {
  it('returns the loaded configuration to run with, printing nothing', () => {
    const { io, outcome } = peerWith('operations:\n  listenAddress: 127.0.0.1:7\n', []);
    expect(outcome.action).toBe('run');
    if (outcome.action === 'run') expect(outcome.loaded.config.operations.listenAddress).toEqual({ host: '127.0.0.1', port: 7 });
    expect(io.out).toEqual([]);
    expect(io.err).toEqual([]);
  });

  it('--check-config returns the loaded configuration and its warnings, printing nothing: the caller checks on and prints the verdict', () => {
    const { dir, io, outcome } = peerWith('metrics:\n  provider: Prometheus\n', ['--check-config']);
    expect(outcome.action).toBe('check-config');
    if (outcome.action !== 'check-config') return;
    expect(outcome.strict).toBe(false);
    expect(outcome.loaded.file).toBe(join(dir, 'core.yaml'));
    expect(outcome.loaded.warnings).toEqual(['core.yaml: metrics.provider: Unknown provider type: Prometheus; metrics disabled (expected prometheus, statsd or disabled)']);
    expect([io.out, io.err]).toEqual([[], []]);
  });

  it('prints each problem on its own line and exits 1, for every action', () => {
    const dir = configDir('core.yaml', 'operations:\n  tls:\n    enabled: yes\n');
    for (const argv of [[], ['--check-config'], ['--print-config']]) {
      const io = capture();
      expect(peerConfigFromCommandLine({ argv, env: { FABRIC_CFG_PATH: dir, CORE_METRICS_STATSD_WRITEINTERVAL: 'x' }, ...io })).toEqual({ action: 'exit', exitCode: 1 });
      expect(io.err.join('')).toBe('core.yaml: operations.tls.enabled: expected a boolean, got "yes"\nCORE_METRICS_STATSD_WRITEINTERVAL: expected a duration like 10s, got "x"\n');
      expect(io.out).toEqual([]);
    }
  });

  it('with TLS on, reads no TLS file: the caller loads the credentials once (a missing file is not a problem here)', () => {
    const { io, outcome } = peerWith('operations:\n  tls:\n    enabled: true\n    cert: {file: cert.pem}\n    key: {file: key.pem}\n    clientRootCAs: {files: [/nonexistent/ca.pem]}\n', [
      '--check-config',
    ]);
    expect(outcome.action).toBe('check-config');
    if (outcome.action === 'check-config') expect(outcome.loaded.config.operations.tls.clientRootCAs).toEqual(['/nonexistent/ca.pem']);
    expect(io.err).toEqual([]);
  });

  it('--strict is passed on with the warnings, for --check-config and a run', () => {
    const dir = configDir('core.yaml', 'operation:\n  listenAddress: 0.0.0.0:1\n');
    for (const [argv, action] of [
      [['--check-config', '--strict'], 'check-config'],
      [['--strict'], 'run'],
    ] as const) {
      const outcome = peerConfigFromCommandLine({ argv, env: { FABRIC_CFG_PATH: dir }, ...capture() });
      expect(outcome).toMatchObject({ action, strict: true, loaded: { warnings: ['core.yaml: operation: unknown section, ignored; did you mean operations?'] } });
    }
  });

  it('--print-config prints the effective configuration to stdout', () => {
    const { io, outcome } = peerWith('', ['--print-config'], { CORE_METRICS_STATSD_PREFIX: 'p0' });
    expect(outcome).toEqual({ action: 'exit', exitCode: 0 });
    expect(io.out.join('')).toContain('    prefix: "p0"  # env CORE_METRICS_STATSD_PREFIX\n');
  });

  it('--config <file> reads that file', () => {
    const dir = configDir('custom.yaml', 'Operations:\n  ListenAddress: 127.0.0.1:9\n');
    const outcome = ordererConfigFromCommandLine({ argv: ['--config', join(dir, 'custom.yaml')], env: {}, ...capture() });
    expect(outcome.action === 'run' && outcome.loaded.config.operations.listenAddress).toEqual({ host: '127.0.0.1', port: 9 });
  });

  it('an unknown flag is one line on stderr and exit 2', () => {
    const io = capture();
    expect(peerConfigFromCommandLine({ argv: ['--bogus'], env: {}, ...io })).toEqual({ action: 'exit', exitCode: 2 });
    expect(io.err.join('')).toBe('fabric-ops-peer: unknown flag "--bogus" (see --help)\n');
  });

  it('--help lists every option and exits 0 without reading any file', () => {
    const io = capture();
    expect(ordererConfigFromCommandLine({ argv: ['--help'], env: { FABRIC_CFG_PATH: '/nonexistent' }, ...io })).toEqual({ action: 'exit', exitCode: 0 });
    const help = io.out.join('');
    for (const option of ['--config <file>', '--print-config', '--check-config', '--help', 'ORDERER_OPERATIONS_LISTENADDRESS']) expect(help).toContain(option);
  });
});
