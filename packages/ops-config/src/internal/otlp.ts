import { describeValue, type SettingRole } from './keys.ts';

/** Where the metrics provider pushes over OTLP/HTTP (protobuf): the `otlp` section and `OTEL_*` variables, parsed. */
export interface OtlpTarget {
  /** The full URL pushes are POSTed to, used as is. */
  readonly endpoint: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly intervalMs: number;
}

/** A value an OpenTelemetry variable gives a setting, in the form the setting's own key takes. */
export interface OtelOverride {
  readonly variable: string;
  readonly raw: string | boolean;
}

const EXPORTER_VARIABLE = 'OTEL_METRICS_EXPORTER';
const KNOWN_EXPORTERS = new Set(['otlp', 'prometheus', 'console', 'none']);
const ONLY_PROTOCOL = 'http/protobuf';

/** OpenTelemetry's rule: a variable set to the empty string is unset. */
function variable(env: NodeJS.ProcessEnv, name: string): { readonly name: string; readonly text: string } | undefined {
  const text = env[name]?.trim();
  return text === undefined || text === '' ? undefined : { name, text };
}

/** The signal's own variable wins over the generic one (OpenTelemetry's precedence). */
function signalOrGeneric(env: NodeJS.ProcessEnv, suffix: string) {
  return variable(env, `OTEL_EXPORTER_OTLP_METRICS_${suffix}`) ?? variable(env, `OTEL_EXPORTER_OTLP_${suffix}`);
}

/** `OTEL_METRICS_EXPORTER` as a value of `otlp.enabled`: true when its list names otlp. */
export function otelExporterOverride(env: NodeJS.ProcessEnv): { readonly override?: OtelOverride; readonly problem?: string } {
  const found = variable(env, EXPORTER_VARIABLE);
  if (found === undefined) return {};
  const names = found.text.split(',').map((name) => name.trim().toLowerCase());
  const unknown = names.filter((name) => !KNOWN_EXPORTERS.has(name));
  if (unknown.length > 0) {
    return {
      problem: `${EXPORTER_VARIABLE}: expected a comma-separated list of otlp, prometheus, console or none (only otlp turns the push on), got ${describeValue(found.text)}`,
    };
  }
  return { override: { variable: EXPORTER_VARIABLE, raw: names.includes('otlp') } };
}

/**
 * The other OpenTelemetry variables, read only when the push is on (a process may inherit
 * variables meant for another program's SDK): the endpoint (the signal's own used as is, the
 * generic one with `/v1/metrics` appended), headers, timeout and interval (whole milliseconds,
 * turned into durations the keys take), each named by the variable that set it.
 */
export function otelSettingOverrides(env: NodeJS.ProcessEnv): { readonly overrides: Map<SettingRole, OtelOverride>; readonly problems: string[] } {
  const overrides = new Map<SettingRole, OtelOverride>();
  const problems: string[] = [];
  const signalEndpoint = variable(env, 'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT');
  const genericEndpoint = variable(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  if (signalEndpoint !== undefined) overrides.set('otlp.endpoint', { variable: signalEndpoint.name, raw: signalEndpoint.text });
  else if (genericEndpoint !== undefined) {
    const base = genericEndpoint.text;
    overrides.set('otlp.endpoint', { variable: genericEndpoint.name, raw: `${base}${base.endsWith('/') ? '' : '/'}v1/metrics` });
  }
  const headers = signalOrGeneric(env, 'HEADERS');
  if (headers !== undefined) overrides.set('otlp.headers', { variable: headers.name, raw: headers.text });
  const millis = (role: SettingRole, found: { readonly name: string; readonly text: string } | undefined, example: string) => {
    if (found === undefined) return;
    if (/^\d+$/.test(found.text)) overrides.set(role, { variable: found.name, raw: `${found.text}ms` });
    else problems.push(`${found.name}: expected a whole number of milliseconds like ${example}, got ${describeValue(found.text)}`);
  };
  millis('otlp.timeout', signalOrGeneric(env, 'TIMEOUT'), '10000');
  millis('otlp.interval', variable(env, 'OTEL_METRIC_EXPORT_INTERVAL'), '60000');
  const protocol = signalOrGeneric(env, 'PROTOCOL');
  if (protocol !== undefined && protocol.text !== ONLY_PROTOCOL) {
    problems.push(`${protocol.name}: expected ${ONLY_PROTOCOL} (the one OTLP protocol the metrics push speaks), got ${describeValue(protocol.text)}`);
  }
  return { overrides, problems };
}

/** RFC 9110's token: what a header name may be. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Headers written as OpenTelemetry writes them: `name=value` pairs separated by commas, values
 * percent-decoded (`authorization=Bearer%20abc,x-tenant=org1`). Empty text is no headers.
 */
export function parseOtlpHeaders(text: string): { readonly headers: Record<string, string> } | { readonly problem: string } {
  const headers: Record<string, string> = {};
  for (const entry of text.split(',')) {
    if (entry.trim() === '') continue;
    const at = entry.indexOf('=');
    const name = (at < 0 ? entry : entry.slice(0, at)).trim();
    if (at < 0 || !HEADER_NAME.test(name)) {
      return { problem: `expected name=value pairs separated by commas like api-key=abc,x-tenant=org1, got ${describeValue(entry.trim())}` };
    }
    let value: string;
    try {
      value = decodeURIComponent(entry.slice(at + 1).trim());
    } catch {
      return { problem: `the value of ${name} is not valid percent-encoding` };
    }
    if (/[\r\n\0]/.test(value)) return { problem: `the value of ${name} must be text on one line` };
    headers[name.toLowerCase()] = value;
  }
  return { headers };
}

/** Why `text` cannot be the push's endpoint, or undefined when it can. */
export function otlpEndpointProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'not a URL';
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? undefined : `scheme ${url.protocol.slice(0, -1)}`;
}
