import { MAX_GO_DURATION_NANOS, parseCastDuration, parseGoBool, parseGoDuration, splitBracketList, splitFields } from './go-values.ts';

const MAX_NANOS = Number(MAX_GO_DURATION_NANOS);

export type AppKind = 'peer' | 'orderer';

/** What a key means to the operations service, the same for both files. */
export type SettingRole =
  | 'listenAddress'
  | 'tls.enabled'
  | 'tls.certFile'
  | 'tls.keyFile'
  | 'tls.clientAuthRequired'
  | 'tls.clientRootCAs'
  | 'metrics.provider'
  | 'statsd.network'
  | 'statsd.address'
  | 'statsd.writeInterval'
  | 'statsd.prefix'
  | 'otlp.enabled'
  | 'otlp.endpoint'
  | 'otlp.headers'
  | 'otlp.timeout'
  | 'otlp.interval'
  | 'health.checkTimeout'
  | 'health.cacheTTL'
  | 'health.checkInterval'
  | 'vm.endpoint';

export type ValueKind = 'string' | 'boolean' | 'duration' | 'list';

/** A parsed value: durations are nanoseconds, as Go holds them. */
export type SettingValue = string | boolean | number | readonly string[];

export interface KeySpec {
  readonly role: SettingRole;
  /** The key as Fabric's sample file spells it, one segment per mapping level. */
  readonly path: readonly string[];
  /** `path` joined with dots: the name used in messages and in `sources`. */
  readonly key: string;
  readonly envVar: string;
  readonly kind: ValueKind;
  /** The sample file's value, used when the key is absent (or written with no value). */
  readonly defaultValue: SettingValue;
}

export interface Dialect {
  readonly app: AppKind;
  readonly fileName: 'core.yaml' | 'orderer.yaml';
  readonly keys: readonly KeySpec[];
  /** viper's AllowEmptyEnv (peer) versus the orderer's viperutil, which skips empty values. */
  readonly emptyEnvOverrides: boolean;
  /** The peer joins relative TLS paths to the config file's directory; the orderer does not. */
  readonly resolvesTlsPathsAgainstConfigDir: boolean;
  /** The orderer decodes its sections exactly (unknown keys fail); the peer's viper ignores them. */
  readonly unknownKeysAreErrors: boolean;
  /** Mappings whose unknown keys are reported, with keys allowed there beyond the ones we read. */
  readonly checkedSections: readonly { readonly path: readonly string[]; readonly alsoAllowed: readonly string[] }[];
  /** Top-level sections of Fabric's file: anything else close to one we read is a misspelling. */
  readonly topLevelSections: readonly string[];
  /** The path of the statsd section, which must exist when the provider is statsd. */
  readonly statsdSection: readonly string[];
  readonly durationExample: string;
  readonly splitListText: (text: string) => string[];
  readonly parseDurationText: (text: string) => number | undefined;
  /** cast.ToDuration turns a bare YAML number into nanoseconds; the orderer's decoder refuses it. */
  readonly bareNumberIsNanoseconds: boolean;
}

function spec(prefix: string, role: SettingRole, key: string, kind: ValueKind, defaultValue: SettingValue): KeySpec {
  const path = key.split('.');
  return { role, path, key, envVar: `${prefix}_${path.join('_').toUpperCase()}`, kind, defaultValue };
}

const NANOS_PER_SECOND = 1e9;
/** ops-health's per-check timeout when none is configured. */
const DEFAULT_CHECK_TIMEOUT_NANOS = 5 * NANOS_PER_SECOND;
/** OpenTelemetry's defaults: the OTLP/HTTP receiver on this machine, a 10 s timeout, a push a minute. */
export const DEFAULT_OTLP_ENDPOINT = 'http://localhost:4318/v1/metrics';
const DEFAULT_OTLP_TIMEOUT_NANOS = 10 * NANOS_PER_SECOND;
const DEFAULT_OTLP_INTERVAL_NANOS = 60 * NANOS_PER_SECOND;

export const PEER_DIALECT: Dialect = {
  app: 'peer',
  fileName: 'core.yaml',
  keys: [
    spec('CORE', 'listenAddress', 'operations.listenAddress', 'string', '127.0.0.1:9443'),
    spec('CORE', 'tls.enabled', 'operations.tls.enabled', 'boolean', false),
    spec('CORE', 'tls.certFile', 'operations.tls.cert.file', 'string', ''),
    spec('CORE', 'tls.keyFile', 'operations.tls.key.file', 'string', ''),
    spec('CORE', 'tls.clientAuthRequired', 'operations.tls.clientAuthRequired', 'boolean', false),
    spec('CORE', 'tls.clientRootCAs', 'operations.tls.clientRootCAs.files', 'list', []),
    spec('CORE', 'health.checkTimeout', 'operations.health.checkTimeout', 'duration', DEFAULT_CHECK_TIMEOUT_NANOS),
    spec('CORE', 'health.cacheTTL', 'operations.health.cacheTTL', 'duration', 0),
    spec('CORE', 'health.checkInterval', 'operations.health.checkInterval', 'duration', 0),
    spec('CORE', 'metrics.provider', 'metrics.provider', 'string', 'disabled'),
    spec('CORE', 'statsd.network', 'metrics.statsd.network', 'string', 'udp'),
    spec('CORE', 'statsd.address', 'metrics.statsd.address', 'string', '127.0.0.1:8125'),
    spec('CORE', 'statsd.writeInterval', 'metrics.statsd.writeInterval', 'duration', 10 * NANOS_PER_SECOND),
    spec('CORE', 'statsd.prefix', 'metrics.statsd.prefix', 'string', ''),
    spec('CORE', 'otlp.enabled', 'metrics.otlp.enabled', 'boolean', false),
    spec('CORE', 'otlp.endpoint', 'metrics.otlp.endpoint', 'string', DEFAULT_OTLP_ENDPOINT),
    spec('CORE', 'otlp.headers', 'metrics.otlp.headers', 'string', ''),
    spec('CORE', 'otlp.timeout', 'metrics.otlp.timeout', 'duration', DEFAULT_OTLP_TIMEOUT_NANOS),
    spec('CORE', 'otlp.interval', 'metrics.otlp.interval', 'duration', DEFAULT_OTLP_INTERVAL_NANOS),
    spec('CORE', 'vm.endpoint', 'vm.endpoint', 'string', 'unix:///var/run/docker.sock'),
  ],
  emptyEnvOverrides: true,
  resolvesTlsPathsAgainstConfigDir: true,
  unknownKeysAreErrors: false,
  checkedSections: [
    { path: ['operations'], alsoAllowed: [] },
    { path: ['operations', 'tls'], alsoAllowed: [] },
    { path: ['operations', 'tls', 'cert'], alsoAllowed: [] },
    { path: ['operations', 'tls', 'key'], alsoAllowed: [] },
    { path: ['operations', 'tls', 'clientRootCAs'], alsoAllowed: [] },
    { path: ['operations', 'health'], alsoAllowed: [] },
    { path: ['metrics'], alsoAllowed: [] },
    { path: ['metrics', 'statsd'], alsoAllowed: [] },
    { path: ['metrics', 'otlp'], alsoAllowed: [] },
  ],
  topLevelSections: ['peer', 'vm', 'chaincode', 'ledger', 'operations', 'metrics'],
  statsdSection: ['metrics', 'statsd'],
  durationExample: '10s',
  splitListText: splitFields,
  parseDurationText: parseCastDuration,
  bareNumberIsNanoseconds: true,
};

export const ORDERER_DIALECT: Dialect = {
  app: 'orderer',
  fileName: 'orderer.yaml',
  keys: [
    spec('ORDERER', 'listenAddress', 'Operations.ListenAddress', 'string', '127.0.0.1:8443'),
    spec('ORDERER', 'tls.enabled', 'Operations.TLS.Enabled', 'boolean', false),
    spec('ORDERER', 'tls.certFile', 'Operations.TLS.Certificate', 'string', ''),
    spec('ORDERER', 'tls.keyFile', 'Operations.TLS.PrivateKey', 'string', ''),
    spec('ORDERER', 'tls.clientAuthRequired', 'Operations.TLS.ClientAuthRequired', 'boolean', false),
    spec('ORDERER', 'tls.clientRootCAs', 'Operations.TLS.ClientRootCAs', 'list', []),
    spec('ORDERER', 'health.checkTimeout', 'Operations.Health.CheckTimeout', 'duration', DEFAULT_CHECK_TIMEOUT_NANOS),
    spec('ORDERER', 'health.cacheTTL', 'Operations.Health.CacheTTL', 'duration', 0),
    spec('ORDERER', 'health.checkInterval', 'Operations.Health.CheckInterval', 'duration', 0),
    spec('ORDERER', 'metrics.provider', 'Metrics.Provider', 'string', 'disabled'),
    spec('ORDERER', 'statsd.network', 'Metrics.Statsd.Network', 'string', 'udp'),
    spec('ORDERER', 'statsd.address', 'Metrics.Statsd.Address', 'string', '127.0.0.1:8125'),
    spec('ORDERER', 'statsd.writeInterval', 'Metrics.Statsd.WriteInterval', 'duration', 30 * NANOS_PER_SECOND),
    spec('ORDERER', 'statsd.prefix', 'Metrics.Statsd.Prefix', 'string', ''),
    spec('ORDERER', 'otlp.enabled', 'Metrics.OTLP.Enabled', 'boolean', false),
    spec('ORDERER', 'otlp.endpoint', 'Metrics.OTLP.Endpoint', 'string', DEFAULT_OTLP_ENDPOINT),
    spec('ORDERER', 'otlp.headers', 'Metrics.OTLP.Headers', 'string', ''),
    spec('ORDERER', 'otlp.timeout', 'Metrics.OTLP.Timeout', 'duration', DEFAULT_OTLP_TIMEOUT_NANOS),
    spec('ORDERER', 'otlp.interval', 'Metrics.OTLP.Interval', 'duration', DEFAULT_OTLP_INTERVAL_NANOS),
  ],
  emptyEnvOverrides: false,
  resolvesTlsPathsAgainstConfigDir: false,
  unknownKeysAreErrors: true,
  checkedSections: [
    { path: ['Operations'], alsoAllowed: [] },
    // Fabric's TLS struct carries these too; operations never reads them, but a file may set them.
    { path: ['Operations', 'TLS'], alsoAllowed: ['RootCAs', 'TLSHandshakeTimeShift', 'TimeShift'] },
    { path: ['Operations', 'Health'], alsoAllowed: [] },
    { path: ['Metrics'], alsoAllowed: [] },
    { path: ['Metrics', 'Statsd'], alsoAllowed: [] },
    { path: ['Metrics', 'OTLP'], alsoAllowed: [] },
  ],
  topLevelSections: ['General', 'FileLedger', 'Debug', 'Operations', 'Metrics', 'Admin', 'ChannelParticipation', 'Consensus', 'Kafka', 'RAMLedger'],
  statsdSection: ['Metrics', 'Statsd'],
  durationExample: '30s',
  splitListText: splitBracketList,
  parseDurationText: parseGoDuration,
  bareNumberIsNanoseconds: false,
};

export function dialectFor(app: AppKind): Dialect {
  return app === 'peer' ? PEER_DIALECT : ORDERER_DIALECT;
}

const MAX_SHOWN = 80;

/** A value as a message shows it: quoted text (cut short), bare numbers, or what it is. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') {
    const shown = value.length > MAX_SHOWN ? `${value.slice(0, MAX_SHOWN)}…` : value;
    return JSON.stringify(shown);
  }
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value === null || value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (value instanceof Uint8Array) return 'binary data';
  if (typeof value === 'object') return 'a mapping';
  return typeof value;
}

/** Where in a list value a problem is (`[1]`), and what it is. */
export interface LeafIssue {
  readonly path: readonly number[];
  readonly message: string;
}

/** One raw value (YAML node or environment text) read as its setting, or every issue with it. */
export type LeafResult = { readonly ok: true; readonly value: SettingValue } | { readonly ok: false; readonly issues: readonly LeafIssue[] };

type LeafReader = (raw: unknown) => LeafResult;

const fail = (message: string): LeafResult => ({ ok: false, issues: [{ path: [], message }] });

const readString: LeafReader = (raw) => {
  if (typeof raw === 'string') return { ok: true, value: raw };
  // viper's cast.ToString turns scalars into text, so `prefix: 123` means "123"
  if (typeof raw === 'number' || typeof raw === 'boolean' || typeof raw === 'bigint') return { ok: true, value: String(raw) };
  return fail(`expected a string, got ${describeValue(raw)}`);
};

const readBoolean: LeafReader = (raw) => {
  if (typeof raw === 'boolean') return { ok: true, value: raw };
  if (typeof raw === 'string') {
    const parsed = parseGoBool(raw);
    if (parsed !== undefined) return { ok: true, value: parsed };
  }
  if (raw === 0 || raw === 1) return { ok: true, value: raw === 1 };
  return fail(`expected a boolean, got ${describeValue(raw)}`);
};

function durationReader(dialect: Dialect): LeafReader {
  const expectation = `expected a duration like ${dialect.durationExample}`;
  return (raw) => {
    if (typeof raw === 'number' && Number.isFinite(raw) && Math.abs(raw) < MAX_NANOS) {
      // Go's Duration is whole nanoseconds: cast truncates a fractional number
      if (dialect.bareNumberIsNanoseconds) return { ok: true, value: Math.trunc(raw) + 0 };
      return fail(`${expectation}, got ${describeValue(raw)} (a unit is required: ns, us, ms, s, m or h)`);
    }
    if (typeof raw === 'string') {
      const nanos = dialect.parseDurationText(raw);
      if (nanos !== undefined && Number.isFinite(nanos)) return { ok: true, value: nanos };
      const hint = /^[-+]?\d+(\.\d*)?$/.test(raw) ? ' (a unit is required: ns, us, ms, s, m or h)' : '';
      return fail(`${expectation}, got ${describeValue(raw)}${hint}`);
    }
    return fail(`${expectation}, got ${describeValue(raw)}`);
  };
}

function listReader(dialect: Dialect): LeafReader {
  return (raw) => {
    if (typeof raw === 'string') return { ok: true, value: dialect.splitListText(raw) };
    if (!Array.isArray(raw)) return fail(`expected a list of file paths, got ${describeValue(raw)}`);
    const paths: string[] = [];
    const issues: LeafIssue[] = [];
    raw.forEach((entry: unknown, index) => {
      if ((typeof entry === 'string' && entry !== '') || typeof entry === 'number') paths.push(String(entry));
      else issues.push({ path: [index], message: `expected a file path, got ${describeValue(entry)}` });
    });
    return issues.length > 0 ? { ok: false, issues } : { ok: true, value: paths };
  };
}

const readersByDialect = new WeakMap<Dialect, Readonly<Record<ValueKind, LeafReader>>>();

/**
 * Reads one raw value (YAML node or environment text) as its setting: each kind's rules are
 * Go's (strconv, time, spf13/cast), and a list reports every bad entry with its position.
 */
export function readLeaf(kind: ValueKind, dialect: Dialect, raw: unknown): LeafResult {
  let readers = readersByDialect.get(dialect);
  if (readers === undefined) {
    readers = { string: readString, boolean: readBoolean, duration: durationReader(dialect), list: listReader(dialect) };
    readersByDialect.set(dialect, readers);
  }
  return readers[kind](raw);
}

/** The value an empty environment variable stands for on the peer (viper reads "" as the zero value). */
export function zeroValue(kind: ValueKind): SettingValue {
  switch (kind) {
    case 'string':
      return '';
    case 'boolean':
      return false;
    case 'duration':
      return 0;
    case 'list':
      return [];
  }
}
