import { isAbsolute, resolve as resolvePath } from 'node:path';
// vm.endpoint's grammar is ops-health's (the docker checker's own); host:port is Go's, in ops-http.
import { DOCKER_ENDPOINT_FORMS, readDockerEndpoint, type DockerEndpoint } from '@fabric-ops/ops-health/endpoint';
import { formatGoDuration, splitHostPort, type HostPort } from '@fabric-ops/ops-http/go';
import { describeValue, readLeaf, zeroValue, type Dialect, type LeafIssue, type KeySpec, type SettingRole, type SettingValue } from './keys.ts';
import { otelExporterOverride, otelSettingOverrides, otlpEndpointProblem, parseOtlpHeaders, type OtelOverride, type OtlpTarget } from './otlp.ts';
import { closeName } from './suggest.ts';

/** Where an effective value came from. */
export type ValueSource = { readonly from: 'default' } | { readonly from: 'file' } | { readonly from: 'env'; readonly variable: string };

export type MetricsProvider = 'prometheus' | 'statsd' | 'disabled';

/** The values that take more than one key's parsing, parsed once here. Meaningful only without problems. */
export interface ParsedValues {
  readonly listenAddress: HostPort;
  /** An unknown provider has become 'disabled' (with a warning). */
  readonly provider: MetricsProvider;
  /** The StatsD daemon; '' as host means this machine, as Go dials it. */
  readonly statsdAddress: HostPort;
  /** undefined when `vm.endpoint` is empty (no docker checker). */
  readonly dockerEndpoint: DockerEndpoint | undefined;
  /** Where the OTLP push goes; undefined when it is off. */
  readonly otlp: OtlpTarget | undefined;
}

export interface Resolution {
  /** Parsed values by role; a key whose value failed to parse holds its default. */
  readonly values: ReadonlyMap<SettingRole, SettingValue>;
  readonly parsed: ParsedValues;
  /** What each setting is called in a message: the variable when the environment set it, else `<file>: <key>`. */
  readonly labels: ReadonlyMap<SettingRole, string>;
  /** By key as the sample file spells it (`operations.tls.enabled`, `Metrics.Statsd.Prefix`). */
  readonly sources: Readonly<Record<string, ValueSource>>;
  readonly problems: readonly string[];
  readonly warnings: readonly string[];
}

export interface ResolveInput {
  readonly dialect: Dialect;
  /** The parsed YAML document (anything: the file may hold garbage). */
  readonly document: unknown;
  readonly env: NodeJS.ProcessEnv;
  /** Name used in messages, e.g. `core.yaml`. */
  readonly fileLabel: string;
  /** Directory of the loaded file, for the peer's relative TLS paths. */
  readonly configDir: string;
}

/**
 * Every StatsD line carries the prefix; with Fabric's longest metric names a line then still
 * fits one Ethernet-sized datagram (ops-metrics packs 1,432 bytes). A longer prefix used to
 * pass and then no line was ever sent.
 */
export const MAX_STATSD_PREFIX_BYTES = 1024;

/** Node.js turns a longer setInterval delay into 1ms, which would flush StatsD in a tight loop. */
const MAX_TIMER_NANOS = 2_147_483_647 * 1e6;
const NANOS_PER_MS = 1e6;

function isMapping(node: unknown): node is Record<string, unknown> {
  return typeof node === 'object' && node !== null && !Array.isArray(node) && !(node instanceof Uint8Array);
}

/** viper and mapstructure match keys without regard to case; an exact match wins. */
function childKey(mapping: Record<string, unknown>, name: string): string | undefined {
  if (Object.hasOwn(mapping, name)) return name;
  const lower = name.toLowerCase();
  return Object.keys(mapping).find((key) => key.toLowerCase() === lower);
}

type Lookup = { readonly found: true; readonly value: unknown } | { readonly found: false };

class DocumentReader {
  readonly structuralProblems: string[] = [];
  private readonly reported = new Set<string>();

  constructor(
    private readonly document: unknown,
    private readonly fileLabel: string,
  ) {}

  /** The node at `path`; a non-mapping on the way is reported once and treated as absent. */
  lookup(path: readonly string[]): Lookup {
    let node: unknown = this.document;
    for (let depth = 0; depth < path.length; depth += 1) {
      if (node === null || node === undefined) return { found: false };
      if (!isMapping(node)) {
        const at = path.slice(0, depth).join('.');
        if (!this.reported.has(at)) {
          this.reported.add(at);
          const where = at === '' ? `${this.fileLabel}: ` : `${this.fileLabel}: ${at}: `;
          this.structuralProblems.push(`${where}expected a mapping, got ${describeValue(node)}`);
        }
        return { found: false };
      }
      const key = childKey(node, path[depth]!);
      if (key === undefined) return { found: false };
      node = node[key];
    }
    return { found: true, value: node };
  }
}

/** A key as written by the operator, kept on one line. */
function printableKey(key: string): string {
  return /^[\w-]{1,80}$/.test(key) ? key : describeValue(key);
}

function sourceLabel(fileLabel: string, spec: KeySpec, source: ValueSource): string {
  return source.from === 'env' ? source.variable : `${fileLabel}: ${spec.key}`;
}

/** One line per issue: `<where>: <message>`, with list positions as `key[1]`. */
function issueLines(where: string, issues: readonly LeafIssue[]): string[] {
  return issues.map((issue) => {
    const suffix = issue.path.map((index) => `[${index}]`).join('');
    return `${where}${suffix}: ${issue.message}`;
  });
}

function hostPortOf(text: string): HostPort | { readonly problem: string } {
  const split = splitHostPort(text);
  // Go's text is `address <a>: <why>`; the message already shows the address
  return 'problem' in split ? { problem: split.problem.replace(/^address .*: /, '') } : split;
}

/** As written when it was text (cut short, as every echoed value), else Go's spelling. */
function displayDuration(nanos: number, raw: unknown): string {
  return typeof raw === 'string' ? describeValue(raw) : JSON.stringify(formatGoDuration(nanos));
}

/**
 * Maps a parsed YAML document and the environment onto the operations settings: defaults,
 * file values, environment overrides, per-key validation (readLeaf), then the rules that tie
 * keys together. Pure: no file or process access.
 */
export function resolveSettings(input: ResolveInput): Resolution {
  const { dialect, env, fileLabel } = input;
  const reader = new DocumentReader(input.document, fileLabel);

  const values = new Map<SettingRole, SettingValue>();
  const rawValues = new Map<SettingRole, unknown>();
  const sources: Record<string, ValueSource> = {};
  const specs = new Map<SettingRole, KeySpec>();
  const leafProblems: string[] = [];
  const failed = new Set<SettingRole>();
  // OpenTelemetry's variables, between the file and our own variables: OTEL_METRICS_EXPORTER
  // gives `otlp.enabled`; the rest are read only once the push is on (otlp.enabled comes first).
  const otelExporter = otelExporterOverride(env);
  if (otelExporter.problem !== undefined) leafProblems.push(otelExporter.problem);
  let otelSettings: ReturnType<typeof otelSettingOverrides> | undefined;
  const otelOverride = (role: SettingRole): OtelOverride | undefined => {
    if (role === 'otlp.enabled') return otelExporter.override;
    if (!role.startsWith('otlp.') || values.get('otlp.enabled') !== true) return undefined;
    if (otelSettings === undefined) {
      otelSettings = otelSettingOverrides(env);
      leafProblems.push(...otelSettings.problems);
    }
    return otelSettings.overrides.get(role);
  };

  for (const spec of dialect.keys) {
    specs.set(spec.role, spec);
    let source: ValueSource = { from: 'default' };
    let raw: unknown;
    const envText = env[spec.envVar];
    const inFile = reader.lookup(spec.path);
    const otel = otelOverride(spec.role);
    if (envText !== undefined && (envText !== '' || dialect.emptyEnvOverrides)) {
      source = { from: 'env', variable: spec.envVar };
      raw = envText === '' ? zeroValue(spec.kind) : envText;
    } else if (otel !== undefined) {
      source = { from: 'env', variable: otel.variable };
      raw = otel.raw;
    } else if (inFile.found && inFile.value !== null && inFile.value !== undefined) {
      source = { from: 'file' };
      raw = inFile.value;
    }
    sources[spec.key] = source;
    if (source.from === 'default') {
      values.set(spec.role, spec.defaultValue);
      continue;
    }
    rawValues.set(spec.role, raw);
    const read = readLeaf(spec.kind, dialect, raw);
    if (read.ok) {
      values.set(spec.role, read.value);
    } else {
      failed.add(spec.role);
      values.set(spec.role, spec.defaultValue);
      leafProblems.push(...issueLines(sourceLabel(fileLabel, spec, source), read.issues));
    }
  }

  const warnings: string[] = [];
  const keyProblems: string[] = [];
  for (const section of dialect.checkedSections) {
    const found = reader.lookup(section.path);
    if (!found.found || !isMapping(found.value)) continue;
    const names: string[] = [];
    for (const spec of dialect.keys) {
      const below = spec.path.length > section.path.length && section.path.every((part, i) => part === spec.path[i]);
      if (below && !names.includes(spec.path[section.path.length]!)) names.push(spec.path[section.path.length]!);
    }
    names.push(...section.alsoAllowed);
    const known = new Set(names.map((name) => name.toLowerCase()));
    for (const key of Object.keys(found.value)) {
      if (known.has(key.toLowerCase())) continue;
      const where = `${fileLabel}: ${[...section.path, printableKey(key)].join('.')}`;
      const guess = closeName(key, names);
      const hint = guess === undefined ? '' : `; did you mean ${guess}?`;
      if (dialect.unknownKeysAreErrors) keyProblems.push(`${where}: unknown key${hint}; expected one of ${names.join(', ')}`);
      else warnings.push(`${where}: unknown key, ignored${hint}`);
    }
  }
  // A misspelt section hides every key below it (`operation:` leaves the server on plain HTTP
  // with its defaults), so a top-level name close to one we read is reported like a misspelt key.
  if (isMapping(input.document)) {
    const ours = [...new Set(dialect.keys.map((spec) => spec.path[0]!))];
    const fabrics = new Set(dialect.topLevelSections.map((name) => name.toLowerCase()));
    for (const key of Object.keys(input.document)) {
      if (fabrics.has(key.toLowerCase())) continue;
      const guess = closeName(key, ours);
      if (guess === undefined) continue;
      const where = `${fileLabel}: ${printableKey(key)}`;
      if (dialect.unknownKeysAreErrors) keyProblems.push(`${where}: unknown section; did you mean ${guess}?`);
      else warnings.push(`${where}: unknown section, ignored; did you mean ${guess}?`);
    }
  }

  const crossProblems: string[] = [];
  const ok = (role: SettingRole) => !failed.has(role);
  const labelOf = (role: SettingRole) => sourceLabel(fileLabel, specs.get(role)!, sources[specs.get(role)!.key]!);
  const keyOf = (role: SettingRole) => specs.get(role)!.key;

  if (ok('tls.enabled') && values.get('tls.enabled') === true) {
    for (const [role, what] of [
      ['tls.certFile', 'a PEM certificate file'],
      ['tls.keyFile', 'a PEM private key file'],
    ] as const) {
      if (ok(role) && values.get(role) === '') {
        crossProblems.push(`${labelOf(role)}: expected ${what} when ${keyOf('tls.enabled')} is true, got ""`);
      }
    }
    // Fabric starts like this, but no client can then pass the certificate check on /logspec and /metrics.
    if (ok('tls.clientRootCAs') && (values.get('tls.clientRootCAs') as readonly string[]).length === 0) {
      warnings.push(`${labelOf('tls.clientRootCAs')}: no client CA files while ${keyOf('tls.enabled')} is true; /logspec and /metrics will refuse every client`);
    }
  }

  let listenAddress: HostPort = { host: '', port: 0 };
  if (ok('listenAddress')) {
    const text = values.get('listenAddress') as string;
    // Go's net.Listen takes "" as every interface and a free port
    const parsed = text === '' ? listenAddress : hostPortOf(text);
    if ('problem' in parsed) crossProblems.push(`${labelOf('listenAddress')}: expected host:port, got ${describeValue(text)} (${parsed.problem})`);
    else listenAddress = parsed;
  }

  for (const [role, least] of [
    ['health.checkTimeout', 1],
    ['health.cacheTTL', 0],
    ['health.checkInterval', 0],
  ] as const) {
    const nanos = values.get(role) as number;
    if (!ok(role)) continue;
    const raw = rawValues.get(role);
    if (nanos < least * NANOS_PER_MS) {
      const what = least === 0 ? 'a duration of 0s (off) or more' : 'a duration of at least 1ms';
      crossProblems.push(`${labelOf(role)}: expected ${what} like ${dialect.durationExample}, got ${displayDuration(nanos, raw)}`);
    } else if (nanos > MAX_TIMER_NANOS) {
      crossProblems.push(`${labelOf(role)}: expected a duration of at most 596h (the longest timer Node.js keeps), got ${displayDuration(nanos, raw)}`);
    }
  }

  let dockerEndpoint: DockerEndpoint | undefined;
  if (specs.has('vm.endpoint') && ok('vm.endpoint')) {
    const text = values.get('vm.endpoint') as string;
    if (text !== '') {
      const parsed = readDockerEndpoint(text);
      if (parsed.ok) dockerEndpoint = parsed.endpoint;
      else crossProblems.push(`${labelOf('vm.endpoint')}: expected ${DOCKER_ENDPOINT_FORMS} (or "" for no docker health check), got ${describeValue(text)} (${parsed.reason})`);
    }
  }

  let statsdAddress: HostPort = { host: '127.0.0.1', port: 8125 };
  let provider: MetricsProvider = 'disabled';
  const providerText = values.get('metrics.provider');
  if (ok('metrics.provider')) {
    if (providerText === 'prometheus' || providerText === 'statsd' || providerText === 'disabled') provider = providerText;
    if (providerText === 'statsd') {
      const statsdNode = reader.lookup(dialect.statsdSection);
      const statsdFromEnv = dialect.keys.some((spec) => spec.role.startsWith('statsd.') && sources[spec.key]!.from === 'env');
      const sectionInFile = statsdNode.found && isMapping(statsdNode.value);
      // a statsd value that is not a mapping was reported by the reader already
      const sectionMalformed = statsdNode.found && statsdNode.value !== null && statsdNode.value !== undefined && !sectionInFile;
      if (!sectionInFile && !statsdFromEnv) {
        if (!sectionMalformed) {
          crossProblems.push(`${fileLabel}: ${dialect.statsdSection.join('.')}: expected a statsd section (network, address, write interval) when ${keyOf('metrics.provider')} is statsd`);
        }
      } else {
        const network = values.get('statsd.network');
        if (ok('statsd.network') && network !== 'udp' && network !== 'tcp') {
          crossProblems.push(`${labelOf('statsd.network')}: expected udp or tcp, got ${describeValue(network)}`);
        }
        if (ok('statsd.address')) {
          const text = values.get('statsd.address') as string;
          const parsed = text === '' ? { problem: 'missing port in address' } : hostPortOf(text);
          if ('problem' in parsed || parsed.port === 0) {
            const why = 'problem' in parsed ? parsed.problem : 'the port is missing';
            crossProblems.push(`${labelOf('statsd.address')}: expected a host:port address when ${keyOf('metrics.provider')} is statsd, got ${describeValue(text)} (${why})`);
          } else {
            // Go dials ":8125" on this machine
            statsdAddress = { host: parsed.host === '' ? '127.0.0.1' : parsed.host, port: parsed.port };
          }
        }
        const prefix = values.get('statsd.prefix') as string;
        const prefixBytes = Buffer.byteLength(prefix);
        if (ok('statsd.prefix') && prefixBytes > MAX_STATSD_PREFIX_BYTES) {
          crossProblems.push(
            `${labelOf('statsd.prefix')}: expected a prefix of at most ${MAX_STATSD_PREFIX_BYTES} bytes (every StatsD line carries it) when ${keyOf('metrics.provider')} is statsd, got ${describeValue(prefix)} (${prefixBytes} bytes)`,
          );
        }
        const interval = values.get('statsd.writeInterval') as number;
        if (ok('statsd.writeInterval') && interval < 1e6) {
          const raw = rawValues.get('statsd.writeInterval');
          const bareNumber = dialect.bareNumberIsNanoseconds && (typeof raw === 'number' || (typeof raw === 'string' && /^[-+]?[\d.]+$/.test(raw)));
          const hint = bareNumber ? ' (a bare number means nanoseconds)' : '';
          crossProblems.push(
            `${labelOf('statsd.writeInterval')}: expected a duration of at least 1ms like ${dialect.durationExample} when ${keyOf('metrics.provider')} is statsd, got ${displayDuration(interval, raw)}${hint}`,
          );
        } else if (ok('statsd.writeInterval') && interval > MAX_TIMER_NANOS) {
          crossProblems.push(
            `${labelOf('statsd.writeInterval')}: expected a duration of at most 596h (the longest timer Node.js keeps) when ${keyOf('metrics.provider')} is statsd, got ${displayDuration(interval, rawValues.get('statsd.writeInterval'))}`,
          );
        }
      }
    } else if (providerText !== 'prometheus' && providerText !== 'disabled') {
      // Fabric's own words, which operators search for; the one warning this setting gives.
      const shown = typeof providerText === 'string' && /^[\w.-]*$/.test(providerText) ? providerText : describeValue(providerText);
      warnings.push(`${labelOf('metrics.provider')}: Unknown provider type: ${shown}; metrics disabled (expected prometheus, statsd or disabled)`);
    }
  }

  let otlp: OtlpTarget | undefined;
  if (ok('otlp.enabled') && values.get('otlp.enabled') === true) {
    const before = crossProblems.length;
    if (ok('metrics.provider') && provider !== 'prometheus') {
      crossProblems.push(`${labelOf('otlp.enabled')}: the OTLP push sends the series /metrics serves, so it needs ${keyOf('metrics.provider')} prometheus, got ${describeValue(providerText)}`);
    }
    const endpoint = values.get('otlp.endpoint') as string;
    const endpointProblem = otlpEndpointProblem(endpoint);
    if (ok('otlp.endpoint') && endpointProblem !== undefined) {
      crossProblems.push(`${labelOf('otlp.endpoint')}: expected an http:// or https:// URL like http://localhost:4318/v1/metrics, got ${describeValue(endpoint)} (${endpointProblem})`);
    }
    const headers = parseOtlpHeaders(values.get('otlp.headers') as string);
    if (ok('otlp.headers') && 'problem' in headers) crossProblems.push(`${labelOf('otlp.headers')}: ${headers.problem}`);
    for (const role of ['otlp.timeout', 'otlp.interval'] as const) {
      const nanos = values.get(role) as number;
      if (!ok(role)) continue;
      // A push collects and encodes every series: more often than every 100ms is a busy loop (ops-metrics' MIN_OTLP_INTERVAL_MS).
      const least = role === 'otlp.interval' ? 100 : 1;
      if (nanos < least * NANOS_PER_MS || nanos > MAX_TIMER_NANOS) {
        crossProblems.push(
          `${labelOf(role)}: expected a duration from ${least}ms to 596h (the longest timer Node.js keeps) when ${keyOf('otlp.enabled')} is true, got ${displayDuration(nanos, rawValues.get(role))}`,
        );
      }
    }
    const clean = crossProblems.length === before && !['otlp.endpoint', 'otlp.headers', 'otlp.timeout', 'otlp.interval'].some((role) => failed.has(role as SettingRole));
    if (clean && 'headers' in headers) {
      otlp = {
        endpoint,
        headers: headers.headers,
        timeoutMs: (values.get('otlp.timeout') as number) / NANOS_PER_MS,
        intervalMs: (values.get('otlp.interval') as number) / NANOS_PER_MS,
      };
    }
  }

  if (dialect.resolvesTlsPathsAgainstConfigDir) {
    const anchor = (path: string) => (path === '' || isAbsolute(path) ? path : resolvePath(input.configDir, path));
    values.set('tls.certFile', anchor(values.get('tls.certFile') as string));
    values.set('tls.keyFile', anchor(values.get('tls.keyFile') as string));
    values.set('tls.clientRootCAs', (values.get('tls.clientRootCAs') as readonly string[]).map(anchor));
  }

  const labels = new Map<SettingRole, string>();
  for (const spec of dialect.keys) labels.set(spec.role, labelOf(spec.role));

  return {
    values,
    parsed: { listenAddress, provider, statsdAddress, dockerEndpoint, otlp },
    labels,
    sources,
    problems: [...reader.structuralProblems, ...leafProblems, ...keyProblems, ...crossProblems],
    warnings,
  };
}
