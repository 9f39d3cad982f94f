import { describe, expect, it } from 'vitest';
import { DEFAULT_ADDRESS, parseArgs, parseTimeout, USAGE } from './args.ts';
import { isOpsctlError } from './errors.ts';

function usageError(argv: string[], env: Record<string, string> = {}): string {
  try {
    parseArgs(argv, env);
  } catch (error) {
    if (isOpsctlError(error) && error.code === 'USAGE') return error.message;
    throw error;
  }
  throw new Error(`no usage error for ${argv.join(' ')}`);
}

describe('parseArgs', () => {
  it('reads every command', () => {
    expect(parseArgs(['logspec', 'get']).command).toEqual({ kind: 'logspec-get' });
    expect(parseArgs(['logspec', 'set', 'gossip=debug:info']).command).toEqual({ kind: 'logspec-set', spec: 'gossip=debug:info' });
    expect(parseArgs(['health']).command).toEqual({ kind: 'health', endpoint: 'healthz', verbose: false });
    expect(parseArgs(['health', '--verbose', 'docker']).command).toEqual({ kind: 'health', endpoint: 'healthz', verbose: true, component: 'docker' });
    expect(parseArgs(['health', '--ready']).command).toEqual({ kind: 'health', endpoint: 'readyz', verbose: false });
    expect(parseArgs(['--live', 'health']).command).toEqual({ kind: 'health', endpoint: 'livez', verbose: false });
    expect(parseArgs(['version']).command).toEqual({ kind: 'version' });
    expect(parseArgs(['metrics', '--json'])).toMatchObject({ command: { kind: 'metrics' }, json: true });
    expect(parseArgs(['--help']).command).toEqual({ kind: 'help' });
  });

  it('takes a spec that begins with a dash after --', () => {
    expect(parseArgs(['logspec', 'set', '--', '-odd']).command).toEqual({ kind: 'logspec-set', spec: '-odd' });
  });

  it('defaults to plain HTTP on the peer sample address', () => {
    expect(parseArgs(['version']).connection).toEqual({ address: DEFAULT_ADDRESS, tls: false, timeoutMs: 10_000 });
  });

  it('turns TLS on for --cacert, --cert/--key or --tls, in either option form', () => {
    const { connection } = parseArgs(['--address=[::1]:8443', '--cacert', 'ca.pem', '--cert=c.pem', '--key', 'k.pem', 'version']);
    expect(connection).toEqual({ address: '[::1]:8443', tls: true, caFile: 'ca.pem', certFile: 'c.pem', keyFile: 'k.pem', timeoutMs: 10_000 });
    expect(parseArgs(['--tls', 'version']).connection.tls).toBe(true);
  });

  it('falls back to OPSCTL_* environment variables, options winning', () => {
    const env = { OPSCTL_ADDRESS: 'ops.example:9443', OPSCTL_CERT: 'e.pem', OPSCTL_KEY: 'ek.pem', OPSCTL_CACERT: 'eca.pem' };
    expect(parseArgs(['version'], env).connection).toMatchObject({ address: 'ops.example:9443', certFile: 'e.pem', caFile: 'eca.pem', tls: true });
    expect(parseArgs(['--address', '127.0.0.1:1', 'version'], env).connection.address).toBe('127.0.0.1:1');
  });

  it('rejects bad command lines with one line naming the problem', () => {
    expect(usageError([])).toBe('no command given; see opsctl --help');
    expect(usageError(['frobnicate'])).toContain("unknown command 'frobnicate'");
    expect(usageError(['logspec'])).toBe("'logspec' takes 'get' or 'set <spec>'");
    expect(usageError(['logspec', 'put'])).toBe("'logspec' takes 'get' or 'set <spec>', not 'put'");
    expect(usageError(['logspec', 'set'])).toContain('needs a spec');
    expect(usageError(['logspec', 'set', 'a', 'b'])).toBe("unexpected argument 'b' after 'logspec set <spec>'");
    expect(usageError(['version', '--verbose'])).toBe("--verbose only applies to 'opsctl health'");
    expect(usageError(['--cert', 'c.pem', 'version'])).toContain('--cert and --key go together');
    expect(usageError(['--address', '127.0.0.1', 'version'])).toBe("--address: expected host:port (e.g. 127.0.0.1:9443), got '127.0.0.1'");
    expect(usageError(['--address', 'h:70000', 'version'])).toContain('expected host:port');
    expect(usageError(['--address'])).toBe('--address needs a value');
    expect(usageError(['--bogus', 'version'])).toBe("unknown option '--bogus'; see opsctl --help");
    expect(usageError(['health', '--live', '--ready'])).toBe('--live and --ready exclude each other');
    expect(usageError(['health', '--ready', 'docker'])).toContain('drop --ready');
    expect(usageError(['health', 'a/b'])).toBe("health: bad component name 'a/b'");
  });
});

describe('parseTimeout', () => {
  it('reads ms, s, m and bare seconds', () => {
    expect(parseTimeout('500ms')).toBe(500);
    expect(parseTimeout('5s')).toBe(5_000);
    expect(parseTimeout('1m')).toBe(60_000);
    expect(parseTimeout('2.5')).toBe(2_500);
  });

  it('refuses zero and nonsense', () => {
    expect(() => parseTimeout('0s')).toThrow('must be more than zero');
    expect(() => parseTimeout('soon')).toThrow("expected a duration like 5s or 500ms, got 'soon'");
  });
});

describe('parseArgs for a set of targets', () => {
  it('keeps one --address the old way, with no fleet', () => {
    expect(parseArgs(['--address', '127.0.0.1:1', 'health']).fleet).toBeUndefined();
  });

  it('turns --targets, --prometheus or several --address into a fleet with its defaults', () => {
    expect(parseArgs(['--targets', 'a.yml', '--targets', 'b.json', 'health']).fleet).toEqual({
      targetFiles: ['a.yml', 'b.json'],
      addresses: [],
      concurrency: 16,
      deadlineMs: 60_000,
      dryRun: false,
      rollback: false,
    });
    expect(parseArgs(['--address', 'a:1', '--address', '[::1]:2', 'version']).fleet).toMatchObject({ addresses: ['a:1', '[::1]:2'] });
    expect(parseArgs(['--prometheus', 'http://prom:9090/', '--job', 'fabric', '--job', 'ops', '--concurrency', '4', '--deadline', '30s', 'logspec', 'set', 'info', '--rollback']).fleet).toEqual({
      targetFiles: [],
      addresses: [],
      prometheusUrl: 'http://prom:9090',
      jobs: ['fabric', 'ops'],
      concurrency: 4,
      deadlineMs: 30_000,
      dryRun: false,
      rollback: true,
    });
  });

  it('rejects fleet options without a fleet, and one-target commands with one', () => {
    expect(usageError(['--concurrency', '4', 'health'])).toBe('--concurrency applies to a set of targets (--targets, --prometheus, or --address more than once)');
    expect(usageError(['--dry-run', 'logspec', 'set', 'info'])).toContain('--dry-run applies to a set of targets');
    expect(usageError(['--targets', 'f', 'metrics'])).toContain("'metrics' reads one target");
    expect(usageError(['--targets', 'f', 'health', '--verbose'])).toContain('--verbose prints one server');
    expect(usageError(['--targets', 'f', 'logspec', 'get', '--rollback'])).toBe("--rollback only applies to 'opsctl logspec set'");
    expect(usageError(['--targets', 'f', 'logspec', 'set', 'info', '--rollback', '--dry-run'])).toContain('nothing to --rollback');
    expect(usageError(['--targets', 'f', '--job', 'x', 'health'])).toBe('--job picks a scrape job of --prometheus; give --prometheus too');
    expect(usageError(['--targets', 'f', '--concurrency', '0', 'health'])).toBe("--concurrency: expected a whole number from 1 to 1024, got '0'");
    expect(usageError(['--targets', 'f', '--deadline', 'soon', 'health'])).toBe("--deadline: expected a duration like 5s or 500ms, got 'soon'");
    expect(usageError(['--prometheus', 'prom:9090', 'health'])).toContain('--prometheus: expected an http or https URL');
    expect(usageError(['--address', 'a:1', '--address', 'b', 'health'])).toBe("--address: expected host:port (e.g. 127.0.0.1:9443), got 'b'");
  });
});

describe('target selection, --version and the help text', () => {
  const fleetArgs = ['--targets', 'sd.yml'];

  it('reads --match name=value (repeatable, all must hold) and --role as match role=', () => {
    expect(parseArgs([...fleetArgs, '--match', 'org=org1', '--match=zone=a=b', 'health']).fleet?.match).toEqual([
      { name: 'org', value: 'org1' },
      { name: 'zone', value: 'a=b' },
    ]);
    expect(parseArgs([...fleetArgs, '--role', 'orderer', 'version']).fleet?.match).toEqual([{ name: 'role', value: 'orderer' }]);
    expect(parseArgs([...fleetArgs, 'version']).fleet?.match).toBeUndefined();
  });

  it('names what is wrong with a selection', () => {
    expect(usageError([...fleetArgs, '--match', 'org', 'health'])).toBe("--match: expected <label name>=<value>, e.g. org=org1, got 'org'");
    expect(usageError([...fleetArgs, '--match', '1x=y', 'health'])).toBe("--match: expected <label name>=<value>, e.g. org=org1, got '1x=y'");
    expect(usageError([...fleetArgs, '--role', 'client', 'health'])).toBe("--role: expected peer or orderer, got 'client'");
    expect(usageError(['--role', 'peer', 'health'])).toBe('--role applies to a set of targets (--targets, --prometheus, or --address more than once)');
  });

  it('answers --version, and the help names every environment variable', () => {
    expect(parseArgs(['--version']).command).toEqual({ kind: 'version-of-opsctl' });
    const help = USAGE;
    for (const name of ['OPSCTL_ADDRESS', 'OPSCTL_CACERT', 'OPSCTL_CERT', 'OPSCTL_KEY']) expect(help).toContain(name);
    expect(help).toContain('--version');
    expect(help).toContain('--match');
  });
});
