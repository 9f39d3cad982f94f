import { createRequire } from 'node:module';
import { dirname, isAbsolute, resolve } from 'node:path';
import { formatHostPort } from '@fabric-ops/ops-http/go';
import { parseDialAddress } from './address.ts';
import { shapeOf } from './answers.ts';
import { OpsctlError } from './errors.ts';
import { ActiveTargetsScanner } from './internal/active-targets.ts';
import { detached } from './internal/terminal-text.ts';
import { MAX_TARGETS_FILE_BYTES, readBoundedFile } from './read-file.ts';

/** A credential set chosen by a target's labels instead of --cacert/--cert/--key. */
export interface TargetCredentials {
  readonly caFile?: string;
  readonly certFile?: string;
  readonly keyFile?: string;
  readonly serverName?: string;
}

/** One operations server of the fleet. */
export interface FleetTarget {
  /** `host:port`; an IPv6 literal is bracketed. */
  readonly address: string;
  readonly host: string;
  readonly port: number;
  /** From `__scheme__` or Prometheus's scrape URL; undefined follows the TLS options. */
  readonly scheme?: 'http' | 'https';
  /** The labels shown in the rows: none starting with `__`, none naming credentials. */
  readonly labels: Readonly<Record<string, string>>;
  readonly credentials?: TargetCredentials;
}

/**
 * Label names that select a credential set per target. The `__` forms survive file_sd and
 * Prometheus's target API (as discovered labels) but are dropped before Prometheus stores a
 * series, so file paths never become labels of every metric; the plain forms work as well.
 */
export const CREDENTIAL_LABELS: { readonly [K in keyof TargetCredentials]-?: readonly [string, string] } = {
  caFile: ['__opsctl_cacert', 'opsctl_cacert'],
  certFile: ['__opsctl_cert', 'opsctl_cert'],
  keyFile: ['__opsctl_key', 'opsctl_key'],
  serverName: ['__opsctl_server_name', 'opsctl_server_name'],
} as const satisfies Record<keyof TargetCredentials, readonly string[]>;

const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const CREDENTIAL_LABEL_NAMES: ReadonlySet<string> = new Set(Object.values(CREDENTIAL_LABELS).flat());

function visibleLabels(labels: Readonly<Record<string, string>>): Record<string, string> {
  const shown: Record<string, string> = {};
  for (const name of Object.keys(labels).sort()) {
    if (name.startsWith('__') || CREDENTIAL_LABEL_NAMES.has(name)) continue;
    // Copied: a label of a Prometheus answer would otherwise keep its whole entry alive.
    shown[detached(name)] = detached(labels[name]!);
  }
  return shown;
}

/** Reads the credential labels; relative file paths resolve against `baseDir`. */
function credentialsFrom(labels: Readonly<Record<string, string>>, baseDir: string): TargetCredentials | undefined {
  const found: Record<string, string> = {};
  for (const [field, names] of Object.entries(CREDENTIAL_LABELS)) {
    const value = names.map((name) => labels[name]).find((v) => v !== undefined && v !== '');
    if (value === undefined) continue;
    found[field] = detached(field === 'serverName' || isAbsolute(value) ? value : resolve(baseDir, value));
  }
  return Object.keys(found).length > 0 ? (found as TargetCredentials) : undefined;
}

function schemeFrom(value: string | undefined, where: string): 'http' | 'https' | undefined {
  if (value === undefined) return undefined;
  if (value === 'http' || value === 'https') return value;
  throw new OpsctlError('USAGE', `${where}: __scheme__ must be http or https, got '${value}'`);
}

function makeTarget(address: string, where: string, labels: Readonly<Record<string, string>>, baseDir: string, scheme?: 'http' | 'https'): FleetTarget {
  const parsed = parseDialAddress(address, where);
  const credentials = credentialsFrom(labels, baseDir);
  return {
    address: formatHostPort(parsed.host, parsed.port),
    host: parsed.host,
    port: parsed.port,
    ...(scheme !== undefined ? { scheme } : {}),
    labels: visibleLabels(labels),
    ...(credentials !== undefined ? { credentials } : {}),
  };
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The YAML parser, loaded the first time a file_sd file is read: it is most of what opsctl
 * would load at start (about 0.08 s of CPU and 10 MiB), and a one-node command never needs it.
 */
let yamlParse: ((text: string) => unknown) | undefined;
function parseYaml(text: string): unknown {
  yamlParse ??= (createRequire(import.meta.url)('yaml') as typeof import('yaml')).parse;
  return yamlParse(text);
}

/**
 * Parses a Prometheus file_sd document (JSON or YAML): a list of `{targets: [...], labels: {...}}`.
 * `source` names the file in messages; relative credential paths resolve against `baseDir`.
 */
export function parseFileSd(text: string, source: string, baseDir: string): FleetTarget[] {
  let document: unknown;
  try {
    document = parseYaml(text);
  } catch (error) {
    throw new OpsctlError('USAGE', `${source}: not a file_sd file (JSON or YAML): ${(error as Error).message.split('\n')[0]}`);
  }
  // An empty file is an empty list to Prometheus too.
  if (document === null || document === undefined) return [];
  if (!Array.isArray(document)) throw new OpsctlError('USAGE', `${source}: expected a list of {targets: [...], labels: {...}} groups`);
  const targets: FleetTarget[] = [];
  document.forEach((group: unknown, index) => {
    const where = `${source}: group ${index + 1}`;
    if (!isRecord(group)) throw new OpsctlError('USAGE', `${where}: expected {targets: [...], labels: {...}}`);
    for (const key of Object.keys(group)) {
      if (key !== 'targets' && key !== 'labels') throw new OpsctlError('USAGE', `${where}: unknown key '${key}'; a group has targets and labels`);
    }
    const list = group['targets'] ?? [];
    if (!Array.isArray(list)) throw new OpsctlError('USAGE', `${where}: targets must be a list of "host:port"`);
    const labels: Record<string, string> = {};
    const rawLabels = group['labels'] ?? {};
    if (!isRecord(rawLabels)) throw new OpsctlError('USAGE', `${where}: labels must be a map of name: value`);
    for (const [name, value] of Object.entries(rawLabels)) {
      if (!LABEL_NAME.test(name)) throw new OpsctlError('USAGE', `${where}: bad label name '${name}'`);
      if (typeof value !== 'string') throw new OpsctlError('USAGE', `${where}: label ${name} must be a string`);
      labels[name] = value;
    }
    const scheme = schemeFrom(labels['__scheme__'], where);
    list.forEach((entry: unknown, position) => {
      if (typeof entry !== 'string') throw new OpsctlError('USAGE', `${where}: targets[${position}] must be a "host:port" string`);
      targets.push(makeTarget(entry, `${where}: targets[${position}]`, labels, baseDir, scheme));
    });
  });
  return targets;
}

/** Reads one --targets file. An unreadable or malformed file is a usage error. */
export async function readFileSd(file: string): Promise<FleetTarget[]> {
  const text = (await readBoundedFile('--targets', file, MAX_TARGETS_FILE_BYTES)).toString('utf8');
  return parseFileSd(text, file, dirname(resolve(file)));
}

/** A plain `--address` given more than once. */
export function addressTarget(address: string): FleetTarget {
  return makeTarget(address, '--address', {}, process.cwd());
}

/** A map of label names to strings in a Prometheus answer, or a named error for anything else. */
function stringMap(value: unknown, where: string): Record<string, string> {
  if (value === undefined) return {};
  if (!isRecord(value)) throw new OpsctlError('UNEXPECTED_RESPONSE', `${where}: expected a map of label names to strings, got ${shapeOf(value)}`);
  for (const [name, text] of Object.entries(value)) {
    if (typeof text !== 'string') throw new OpsctlError('UNEXPECTED_RESPONSE', `${where}: label ${name.slice(0, 100)} is ${shapeOf(text)}, expected a string`);
  }
  return value as Record<string, string>;
}

/**
 * The scrape jobs `--prometheus` takes when no `--job` is given: those named `fabric-<something>`,
 * as deploy/prometheus names its operations jobs and as alerts.yml selects them. A Prometheus also
 * scrapes itself, exporters and probes; those are not operations servers.
 */
export const DEFAULT_JOB_PATTERN: RegExp = /^fabric-./;

/** How the selected jobs are named in messages. */
export function jobsText(jobs: readonly string[] | undefined): string {
  return jobs === undefined || jobs.length === 0 ? 'jobs named fabric-<something>' : `job ${jobs.join(', job ')}`;
}

/**
 * One element of Prometheus's `data.activeTargets`: address and scheme from its scrape URL,
 * the labels Prometheus attaches (without `instance` when it is just the address), and the
 * credential labels from the discovered labels. Undefined when it is not an operations target:
 * its job is not among `jobs` (without `jobs`: not named fabric-<something>), its scrape URL is
 * neither http nor https, or its scrape URL carries a `target` parameter (an exporter probing
 * another address for it, as the blackbox exporter's jobs do: the address is the exporter's).
 */
export function targetFromPrometheusEntry(entry: unknown, index: number, source: string, jobs?: readonly string[]): FleetTarget | undefined {
  const where = `${source}: data.activeTargets[${index}]`;
  if (!isRecord(entry)) throw new OpsctlError('UNEXPECTED_RESPONSE', `${where}: expected a target object, got ${shapeOf(entry)}`);
  const labels = stringMap(entry['labels'], `${where}.labels`);
  const scrapePool = typeof entry['scrapePool'] === 'string' ? entry['scrapePool'] : undefined;
  const jobNames = [scrapePool, labels['job']].filter((name): name is string => name !== undefined);
  const selected = jobs === undefined || jobs.length === 0 ? jobNames.some((name) => DEFAULT_JOB_PATTERN.test(name)) : jobNames.some((name) => jobs.includes(name));
  const scrapeUrl = entry['scrapeUrl'];
  let url: URL;
  try {
    if (typeof scrapeUrl !== 'string') throw new TypeError('not a string');
    url = new URL(scrapeUrl);
  } catch {
    throw new OpsctlError('UNEXPECTED_RESPONSE', `${where}: no valid scrapeUrl (${typeof scrapeUrl === 'string' ? JSON.stringify(scrapeUrl.slice(0, 200)) : shapeOf(scrapeUrl)})`);
  }
  if (!selected || url.searchParams.has('target')) return undefined;
  const scheme = url.protocol === 'https:' ? 'https' : url.protocol === 'http:' ? 'http' : undefined;
  if (scheme === undefined) return undefined;
  const port = url.port === '' ? (scheme === 'https' ? '443' : '80') : url.port;
  const address = `${url.hostname}:${port}`;
  const shown: Record<string, string> = { ...labels };
  if (shown['instance'] === address || shown['instance'] === url.host) delete shown['instance'];
  const discovered = stringMap(entry['discoveredLabels'], `${where}.discoveredLabels`);
  const filePath = discovered['__meta_filepath'];
  const baseDir = filePath !== undefined && isAbsolute(filePath) ? dirname(filePath) : process.cwd();
  const credentialSource: Record<string, string> = {};
  for (const name of CREDENTIAL_LABEL_NAMES) {
    const value = discovered[name] ?? labels[name];
    if (value !== undefined) credentialSource[name] = value;
  }
  return makeTarget(address, `${where}.scrapeUrl`, { ...shown, ...credentialSource }, baseDir, scheme);
}

/** The targets of a whole, already parsed `/api/v1/targets` answer (see targetFromPrometheusEntry). */
export function targetsFromPrometheus(body: unknown, source: string, jobs?: readonly string[]): FleetTarget[] {
  const active = isRecord(body) && isRecord(body['data']) ? body['data']['activeTargets'] : undefined;
  if (!Array.isArray(active)) throw new OpsctlError('UNEXPECTED_RESPONSE', `${source}: the answer has no data.activeTargets list`);
  const targets: FleetTarget[] = [];
  active.forEach((entry: unknown, index) => {
    const target = targetFromPrometheusEntry(entry, index, source, jobs);
    if (target !== undefined) targets.push(target);
  });
  return targets;
}

/** Checks a --prometheus value: the base URL of a Prometheus server. */
export function checkPrometheusUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new OpsctlError('USAGE', `--prometheus: expected the server's URL, e.g. http://prometheus:9090, got '${text}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OpsctlError('USAGE', `--prometheus: expected an http or https URL, got '${text}'`);
  return text.replace(/\/+$/, '');
}

/** Room for tens of thousands of targets with their discovered labels; read as it arrives, never held whole. */
export const MAX_TARGET_LIST_BYTES: number = 64 * 1024 * 1024;

export interface DiscoveryLimits {
  /** --timeout: the request, from connecting to the last byte. */
  readonly timeoutMs: number;
  /** The command's --deadline, already running. */
  readonly deadline?: AbortSignal;
  /** How the deadline is named in messages (`--deadline 60s`). */
  readonly deadlineText?: string;
}

/**
 * Asks a running Prometheus for the targets it scrapes, within --timeout and the command's
 * --deadline. The answer is parsed as it arrives (see ActiveTargetsScanner): one target entry
 * is held at a time, and a wrong one ends the read.
 */
export async function fetchPrometheusTargets(baseUrl: string, jobs: readonly string[] | undefined, limits: DiscoveryLimits): Promise<FleetTarget[]> {
  const source = `--prometheus ${baseUrl}`;
  const timeout = AbortSignal.timeout(limits.timeoutMs);
  const signal = limits.deadline !== undefined ? AbortSignal.any([timeout, limits.deadline]) : timeout;
  const why = (error: unknown, answered: boolean): string => {
    if (limits.deadline?.aborted && !timeout.aborted) return `${limits.deadlineText ?? '--deadline'} passed before ${answered ? 'the end of its answer' : 'its answer'}`;
    if ((error as Error).name === 'TimeoutError' || timeout.aborted) return `no ${answered ? 'complete answer' : 'answer'} within ${limits.timeoutMs / 1000}s`;
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return cause?.code === 'ECONNREFUSED' ? 'connection refused' : (cause?.message ?? (error as Error).message);
  };
  let response: Response;
  try {
    response = await fetch(`${baseUrl}/api/v1/targets?state=active`, { signal });
  } catch (error) {
    throw new OpsctlError('UNREACHABLE', `${source}: ${why(error, false)}`, { cause: error });
  }
  if (response.status !== 200) {
    await response.body?.cancel().catch(() => undefined);
    throw new OpsctlError('UNEXPECTED_RESPONSE', `${source}/api/v1/targets: unexpected status ${response.status}`);
  }
  const targets: FleetTarget[] = [];
  const scanner = new ActiveTargetsScanner((entry, index) => {
    const target = targetFromPrometheusEntry(entry, index, source, jobs);
    if (target !== undefined) targets.push(target);
  });
  const decoder = new TextDecoder('utf-8');
  // An entry's problem names the entry; a problem of the whole answer names the endpoint.
  const answerError = (error: Error): OpsctlError =>
    new OpsctlError('UNEXPECTED_RESPONSE', /^(data\.|the answer has no)/.test(error.message) ? `${source}: ${error.message}` : `${source}/api/v1/targets: ${error.message}`);
  let size = 0;
  const stop = async (error: OpsctlError): Promise<never> => {
    await response.body?.cancel().catch(() => undefined);
    throw error;
  };
  try {
    for await (const chunk of response.body ?? []) {
      size += chunk.length;
      if (size > MAX_TARGET_LIST_BYTES) return await stop(new OpsctlError('UNEXPECTED_RESPONSE', `${source}/api/v1/targets: answer larger than ${MAX_TARGET_LIST_BYTES} bytes`));
      try {
        scanner.write(decoder.decode(chunk, { stream: true }));
      } catch (error) {
        return await stop(error instanceof OpsctlError ? error : answerError(error as Error));
      }
    }
  } catch (error) {
    if (error instanceof OpsctlError) throw error;
    throw new OpsctlError('UNREACHABLE', `${source}/api/v1/targets: ${why(error, true)}`, { cause: error });
  }
  try {
    scanner.write(decoder.decode());
    scanner.end();
  } catch (error) {
    throw error instanceof OpsctlError ? error : answerError(error as Error);
  }
  return targets;
}

/** One list, each address once (first wins), ordered by host then port. */
export function mergeTargets(lists: readonly (readonly FleetTarget[])[]): FleetTarget[] {
  const seen = new Map<string, FleetTarget>();
  for (const list of lists) {
    for (const target of list) {
      if (!seen.has(target.address)) seen.set(target.address, target);
    }
  }
  return [...seen.values()].sort((a, b) => (a.host < b.host ? -1 : a.host > b.host ? 1 : a.port - b.port));
}
