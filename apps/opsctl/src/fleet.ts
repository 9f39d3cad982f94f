import { setMaxListeners } from 'node:events';
import type { Command, ConnectionOptions, FleetOptions } from './args.ts';
import { openOpsClient, readTlsMaterial, type OpsClient, type OpsResponse, type TlsMaterial } from './client.ts';
import { healthAnswer, parseJsonAnswer, rejectionText, specAnswer, versionAnswer } from './answers.ts';
import { isOpsctlError, OpsctlError } from './errors.ts';
import { MAX_PARKED, PARK_AFTER_MS, ParkingRoom, parkingClient, Slots } from './internal/schedule.ts';
import { cutText, detached } from './internal/terminal-text.ts';
import { addressTarget, CREDENTIAL_LABELS, fetchPrometheusTargets, jobsText, mergeTargets, readFileSd, type FleetTarget, type TargetCredentials } from './targets.ts';

/**
 * Why a target's row failed. Stable strings, for `--json` consumers:
 * - `connection-refused`: nothing listens on the address (node stopped, wrong port)
 * - `timeout`: no connection, TLS handshake or answer within --timeout (black-holed address, hung node)
 * - `deadline`: --deadline passed before the target finished (or before it was tried)
 * - `tls-refused`: the TLS handshake failed on the node's side (client certificate missing or
 *   rejected, no common version, the node does not speak TLS)
 * - `untrusted-certificate`: the node's certificate does not verify against the CA in use
 * - `unauthorized`: the node answered 401 (it wants a client certificate it trusts)
 * - `unhealthy`: health answered 503 (or 408: its checks ran out of time)
 * - `rejected`: logspec set answered 400 (the node refused the spec)
 * - `credentials`: the credential files named by the target's labels cannot be used
 * - `unreachable`: any other network failure (unknown host, host unreachable, connection dropped)
 * - `unexpected-response`: another status, or a body that is not what the endpoint sends
 * - `not-operations-server`: logspec set: the first GET /logspec answered what no operations
 *   server sends (another status than 200 or 401, or not a spec); nothing was sent to it, and
 *   `--rollback` does not count it as a failure of the change
 */
export type FleetFailureReason =
  | 'connection-refused'
  | 'timeout'
  | 'deadline'
  | 'tls-refused'
  | 'untrusted-certificate'
  | 'unauthorized'
  | 'unhealthy'
  | 'rejected'
  | 'credentials'
  | 'unreachable'
  | 'unexpected-response'
  | 'not-operations-server';

/** One target's outcome; the JSON field names are part of the CLI's contract. */
export interface FleetRow {
  readonly target: string;
  readonly labels: Readonly<Record<string, string>>;
  ok: boolean;
  /** health: the server's status text. */
  status?: string;
  /** health: the checks that failed, as the node reports them (the first MAX_FAILED_CHECKS). */
  failed_checks?: readonly { component: string; reason: string }[];
  /** health: how many more failed checks the node reported than `failed_checks` keeps. */
  more_failed_checks?: number;
  Version?: string;
  CommitSHA?: string;
  /** logspec get: the active spec; logspec set: the spec in force when opsctl finished with the target. */
  spec?: string;
  /** logspec set: the spec before the change. */
  previous_spec?: string;
  /** logspec set: the node accepted the new spec. */
  changed?: boolean;
  /** logspec set --dry-run: nothing was sent but reads. */
  dry_run?: boolean;
  /** logspec set --rollback: the previous spec was put back. */
  rolled_back?: boolean;
  error?: string;
  reason?: FleetFailureReason;
  latency_ms: number;
}

export interface FleetResult {
  readonly exitCode: number;
  readonly rows: readonly FleetRow[];
}

/** Hooks of a fleet run: `onRow` gets each row once it is final, in target order (for streaming output). */
export interface FleetHooks {
  readonly onRow?: (row: FleetRow) => void;
  /** When the command started (performance.now()): --deadline counts from here, discovery included. */
  readonly startedAt?: number;
}

/**
 * What a row keeps of a node's answer: each string field cut to this many characters (with
 * `…`), at most MAX_FAILED_CHECKS failed checks. A thousand nodes each answering a megabyte
 * cost a thousand small rows, not a gigabyte.
 */
export const MAX_ROW_FIELD_CHARS: number = 512;
export const MAX_FAILED_CHECKS: number = 16;
/** Longest previous spec `--rollback` keeps to put back; a node answering more is not changed. */
export const MAX_ROLLBACK_SPEC_CHARS: number = 64 * 1024;
/** A field as a row keeps it: cut, and copied so that it holds nothing of the answer it came in. */
const bounded = (text: string): string => detached(cutText(text, MAX_ROW_FIELD_CHARS));

/**
 * The fleet reads small JSON answers; a cap far below the one-target limit (sized for /metrics)
 * keeps `concurrency` misbehaving nodes from filling memory.
 */
const FLEET_MAX_RESPONSE_BYTES = 1024 * 1024;

/** A failure with its reason, thrown inside one target's work. */
class TargetFailure extends Error {
  constructor(
    readonly reason: FleetFailureReason,
    message: string,
  ) {
    super(message);
  }
}

const UNTRUSTED_SERVER_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
]);

/** Drops the `https://host:port: ` prefix: the row already names the target. */
function withoutOrigin(message: string, client: OpsClient): string {
  return message.startsWith(`${client.origin}: `) ? message.slice(client.origin.length + 2) : message.startsWith(client.origin) ? message.slice(client.origin.length) : message;
}

/** Turns a client failure into a reason and a message without the target's own address. */
export function classifyFailure(error: unknown, client: OpsClient): TargetFailure {
  if (error instanceof TargetFailure) return error;
  if (!isOpsctlError(error)) return new TargetFailure('unexpected-response', error instanceof Error ? error.message : String(error));
  const cause = error.cause as NodeJS.ErrnoException | undefined;
  const message = withoutOrigin(error.message, client);
  const code = cause?.code;
  if (code === 'ECONNREFUSED') return new TargetFailure('connection-refused', 'connection refused');
  if (code === 'OPSCTL_TIMEOUT' || code === 'ETIMEDOUT') return new TargetFailure('timeout', message);
  if (code === 'OPSCTL_DEADLINE') return new TargetFailure('deadline', message);
  if (code !== undefined && UNTRUSTED_SERVER_CODES.has(code)) return new TargetFailure('untrusted-certificate', message);
  if (error.code === 'TLS') return new TargetFailure('tls-refused', message);
  if (error.code === 'UNREACHABLE') return new TargetFailure('unreachable', message);
  return new TargetFailure('unexpected-response', message);
}

function statusFailure(path: string, res: OpsResponse): TargetFailure {
  if (res.status === 401) return new TargetFailure('unauthorized', `${path}: 401, client certificate required (the node wants one signed by its client CA)`);
  const detail = res.body.trim().split('\n')[0]?.slice(0, 200) ?? '';
  return new TargetFailure('unexpected-response', `${path}: unexpected status ${res.status}${detail ? `: ${detail}` : ''}`);
}

async function readSpec(client: OpsClient): Promise<string> {
  const res = await client.request('GET', '/logspec');
  if (res.status !== 200) throw statusFailure('/logspec', res);
  return specAnswer('/logspec', parseJsonAnswer('/logspec', res.body));
}

async function putSpec(client: OpsClient, spec: string): Promise<void> {
  const res = await client.request('PUT', '/logspec', JSON.stringify({ spec }));
  if (res.status === 400) {
    throw new TargetFailure('rejected', `logspec rejected: ${rejectionText(res.body, 'the node answered 400')}`);
  }
  if (res.status !== 204 && res.status !== 200) throw statusFailure('/logspec', res);
}

/** Runs `work` over `items`, at most `limit` at once; items not started when `signal` aborts get `skipped`. */
export async function mapLimited<T, R>(items: readonly T[], limit: number, signal: AbortSignal, work: (item: T) => Promise<R>, skipped: (item: T) => R): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      const item = items[index]!;
      results[index] = signal.aborted ? skipped(item) : await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** How one target is reached: its client, or why it cannot be. */
type Reach = { readonly client: OpsClient } | { readonly failure: TargetFailure };

interface FleetContext {
  readonly connection: ConnectionOptions;
  readonly defaultMaterial: TlsMaterial;
  readonly materials: Map<string, Promise<TlsMaterial>>;
}

function labelNames(field: keyof TargetCredentials): string {
  return CREDENTIAL_LABELS[field][0];
}

async function reach(target: FleetTarget, context: FleetContext, signal: AbortSignal): Promise<Reach> {
  const { connection } = context;
  const scheme = target.scheme ?? (connection.tls ? 'https' : 'http');
  const limits = { signal, maxResponseBytes: FLEET_MAX_RESPONSE_BYTES };
  const base = { address: target.address, timeoutMs: connection.timeoutMs };
  if (scheme === 'http') return { client: openOpsClient({ ...base, tls: false }, {}, limits) };
  const credentials = target.credentials;
  if (credentials === undefined || (credentials.caFile === undefined && credentials.certFile === undefined && credentials.keyFile === undefined)) {
    const serverName = credentials?.serverName ?? connection.serverName;
    const caName = connection.caFile !== undefined ? `--cacert ${connection.caFile}` : undefined;
    return { client: openOpsClient({ ...base, tls: true, ...(serverName !== undefined ? { serverName } : {}) }, context.defaultMaterial, { ...limits, ...(caName !== undefined ? { caName } : {}) }) };
  }
  if ((credentials.certFile === undefined) !== (credentials.keyFile === undefined)) {
    return { failure: new TargetFailure('credentials', `labels ${labelNames('certFile')} and ${labelNames('keyFile')} go together: give both, or neither`) };
  }
  const key = `${credentials.caFile ?? ''}\0${credentials.certFile ?? ''}\0${credentials.keyFile ?? ''}`;
  let material = context.materials.get(key);
  if (material === undefined) {
    material = readTlsMaterial(credentials, { ca: `label ${labelNames('caFile')}`, cert: `label ${labelNames('certFile')}`, key: `label ${labelNames('keyFile')}` });
    context.materials.set(key, material);
  }
  try {
    const read = await material;
    const caName = credentials.caFile !== undefined ? `label ${labelNames('caFile')} ${credentials.caFile}` : undefined;
    return {
      client: openOpsClient({ ...base, tls: true, ...(credentials.serverName !== undefined ? { serverName: credentials.serverName } : {}) }, read, {
        ...limits,
        ...(caName !== undefined ? { caName } : {}),
      }),
    };
  } catch (error) {
    return { failure: new TargetFailure('credentials', error instanceof Error ? error.message : String(error)) };
  }
}

function failed(row: FleetRow, failure: TargetFailure): FleetRow {
  row.ok = false;
  row.error = bounded(failure.message);
  row.reason = failure.reason;
  return row;
}

async function healthOf(client: OpsClient, command: Extract<Command, { kind: 'health' }>, row: FleetRow): Promise<void> {
  const path = command.component !== undefined ? `/healthz/${encodeURIComponent(command.component)}` : `/${command.endpoint}`;
  const res = await client.request('GET', path);
  if (res.status === 408) throw new TargetFailure('unhealthy', `${path}: the health checks did not finish before the node's deadline (408)`);
  if (res.status !== 200 && res.status !== 503) throw statusFailure(path, res);
  const body = healthAnswer(path, parseJsonAnswer(path, res.body));
  if (body.status !== undefined) row.status = bounded(body.status);
  if (res.status === 503) {
    const all = body.failed_checks ?? [];
    const checks = all.slice(0, MAX_FAILED_CHECKS).map((check) => ({ component: bounded(check.component), reason: bounded(check.reason) }));
    row.failed_checks = checks;
    if (all.length > checks.length) row.more_failed_checks = all.length - checks.length;
    const list = checks.map((check) => `${check.component}: ${check.reason}`).join('; ');
    const more = row.more_failed_checks !== undefined ? `; and ${row.more_failed_checks} more` : '';
    throw new TargetFailure('unhealthy', `503 ${row.status ?? 'Service Unavailable'}${list ? `: ${list}${more}` : ''}`);
  }
}

async function versionOf(client: OpsClient, row: FleetRow): Promise<void> {
  const res = await client.request('GET', '/version');
  if (res.status !== 200) throw statusFailure('/version', res);
  const body = versionAnswer('/version', parseJsonAnswer('/version', res.body));
  row.Version = bounded(body.Version);
  row.CommitSHA = bounded(body.CommitSHA);
}

/** Whether a target may hold the new spec although its row failed (a PUT with no answer). */
const uncertain = new WeakSet<FleetRow>();
/** The whole previous spec of each row `--rollback` may restore (the row shows it cut). */
const restorable = new WeakMap<FleetRow, string>();

/**
 * The first read of `logspec set`: an answer no operations server gives (404, HTML, JSON without
 * a spec) names the target as not one, so that it changes nothing and rolls nothing back.
 */
async function readFirstSpec(client: OpsClient): Promise<string> {
  try {
    return await readSpec(client);
  } catch (error) {
    const failure = classifyFailure(error, client);
    if (failure.reason !== 'unexpected-response') throw failure;
    throw new TargetFailure('not-operations-server', `not an operations server (nothing sent): ${failure.message}`);
  }
}

async function setSpec(client: OpsClient, spec: string, fleet: FleetOptions, row: FleetRow): Promise<void> {
  const previous = await readFirstSpec(client);
  row.previous_spec = bounded(previous);
  row.spec = row.previous_spec;
  row.changed = false;
  if (fleet.dryRun) {
    row.dry_run = true;
    if (previous === spec) row.previous_spec = spec;
    return;
  }
  if (fleet.rollback) {
    if (previous.length > MAX_ROLLBACK_SPEC_CHARS) {
      throw new TargetFailure('unexpected-response', `/logspec: the current spec is ${previous.length} characters, more than --rollback keeps (${MAX_ROLLBACK_SPEC_CHARS}); not changed`);
    }
    restorable.set(row, previous);
  }
  uncertain.add(row);
  try {
    await putSpec(client, spec);
  } catch (error) {
    // A rejected spec is certain not to be in force; a lost answer may not be.
    if (error instanceof TargetFailure && error.reason === 'rejected') uncertain.delete(row);
    throw error;
  }
  uncertain.delete(row);
  row.changed = true;
  // Read it back: the node normalises the spec (sorted, levels spelled its way).
  row.spec = bounded(await readSpec(client));
}

/** The targets of every source, each once, narrowed by --match; a usage error when none is left. */
async function discoverTargets(fleet: FleetOptions, connection: ConnectionOptions, deadline: AbortSignal): Promise<FleetTarget[]> {
  const sources: Promise<FleetTarget[]>[] = [...fleet.targetFiles.map((file) => readFileSd(file)), Promise.resolve(fleet.addresses.map((address) => addressTarget(address)))];
  if (fleet.prometheusUrl !== undefined) {
    sources.push(fetchPrometheusTargets(fleet.prometheusUrl, fleet.jobs, { timeoutMs: connection.timeoutMs, deadline, deadlineText: `--deadline ${fleet.deadlineMs / 1000}s` }));
  }
  const found = mergeTargets(await Promise.all(sources));
  const where = () =>
    [...fleet.targetFiles, ...(fleet.prometheusUrl !== undefined ? [`${fleet.prometheusUrl} ${jobsText(fleet.jobs)}`] : []), ...(fleet.addresses.length > 0 ? ['--address'] : [])].join(', ');
  if (found.length === 0) throw new OpsctlError('USAGE', `no targets in ${where()}`);
  const wanted = fleet.match ?? [];
  const targets = found.filter((target) => wanted.every(({ name, value }) => target.labels[name] === value));
  if (targets.length === 0) {
    const asked = wanted.map(({ name, value }) => `${name}=${value}`).join(',');
    throw new OpsctlError('USAGE', `no target has the labels ${asked} (of ${found.length} in ${where()})`);
  }
  return targets;
}

/** Calls `onRow` with each row once it and every row before it are final. */
function inOrder(count: number, onRow: ((row: FleetRow) => void) | undefined): (index: number, row: FleetRow) => void {
  const done = new Array<FleetRow | undefined>(count);
  let next = 0;
  return (index, row) => {
    done[index] = row;
    while (next < count && done[next] !== undefined) {
      onRow?.(done[next]!);
      done[next++] = undefined;
    }
  };
}

/** Runs one fleet command to completion within the deadline; never rejects for a target's failure. */
export async function runFleetCommand(command: Command, connection: ConnectionOptions, fleet: FleetOptions, hooks: FleetHooks = {}): Promise<FleetResult> {
  // --deadline counts from the command's start: asking Prometheus for the targets spends it too.
  const deadline = new AbortController();
  // Each target in flight listens for the deadline: up to `concurrency` listeners, plus the
  // parked ones (internal/schedule.ts), none leaked.
  setMaxListeners(fleet.concurrency + MAX_PARKED + 2, deadline.signal);
  const spent = performance.now() - (hooks.startedAt ?? performance.now());
  const timer = setTimeout(() => deadline.abort(), Math.max(0, fleet.deadlineMs - spent));
  let rows: FleetRow[];
  let targets: FleetTarget[];
  let context: FleetContext;
  // With --rollback a row may still change after the first pass: rows go out at the end.
  const rollingBack = command.kind === 'logspec-set' && fleet.rollback;
  try {
    targets = await discoverTargets(fleet, connection, deadline.signal);
    context = {
      connection,
      // The default credentials are the operator's own: an unreadable file is a usage error, as for one target.
      defaultMaterial: connection.tls ? await readTlsMaterial(connection) : {},
      materials: new Map(),
    };
    rows = await runTargets(command, targets, context, fleet, deadline.signal, rollingBack ? undefined : hooks.onRow);
  } finally {
    clearTimeout(timer);
  }
  if (rollingBack) {
    // A target that is not an operations server (an exporter's address, say) says nothing about the change.
    if (rows.some((row) => !row.ok && row.reason !== 'not-operations-server')) await rollBack(targets, rows, context, fleet);
    if (hooks.onRow !== undefined) for (const row of rows) hooks.onRow(row);
  }
  return { exitCode: rows.every((row) => row.ok) ? 0 : 1, rows };
}

/**
 * Every target once, `concurrency` at a time, in order. With more targets than slots, a target
 * whose first request has not answered within PARK_AFTER_MS waits for it without a slot
 * (internal/schedule.ts), so black-holed nodes never keep the others waiting for their --timeout.
 */
async function runTargets(
  command: Command,
  targets: readonly FleetTarget[],
  context: FleetContext,
  fleet: FleetOptions,
  signal: AbortSignal,
  onRow: ((row: FleetRow) => void) | undefined,
): Promise<FleetRow[]> {
  const rows = new Array<FleetRow>(targets.length);
  const emit = inOrder(targets.length, onRow);
  const finish = (index: number, row: FleetRow): void => {
    rows[index] = row;
    emit(index, row);
  };
  const why = `--deadline ${fleet.deadlineMs / 1000}s passed first`;
  const slots = new Slots(fleet.concurrency);
  const parking = targets.length > fleet.concurrency ? { room: new ParkingRoom(MAX_PARKED), afterMs: Math.min(PARK_AFTER_MS, context.connection.timeoutMs) } : undefined;
  const stopped = new Promise<void>((resolve) => {
    const stop = () => {
      slots.close();
      resolve();
    };
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
  });
  const tasks: Promise<void>[] = [];
  for (let index = 0; index < targets.length; index++) {
    if (!signal.aborted) await Promise.race([slots.acquire(false), stopped]);
    const target = targets[index]!;
    if (signal.aborted) {
      finish(index, { target: target.address, labels: target.labels, ok: false, error: `not tried: ${why}`, reason: 'deadline', latency_ms: 0 });
      continue;
    }
    const holder = { holding: true };
    tasks.push(
      runOnTarget(command, target, context, fleet, signal, (client) => (parking !== undefined ? parkingClient(client, parking.afterMs, slots, parking.room, holder) : client)).then((row) => {
        if (holder.holding) slots.release();
        finish(index, row);
      }),
    );
  }
  await Promise.all(tasks);
  return rows;
}

/** One target's row; `wrap` gives the client its scheduling (parkingClient) or leaves it. */
async function runOnTarget(command: Command, target: FleetTarget, context: FleetContext, fleet: FleetOptions, signal: AbortSignal, wrap: (client: OpsClient) => OpsClient): Promise<FleetRow> {
  const row: FleetRow = { target: target.address, labels: boundedLabels(target.labels), ok: true, latency_ms: 0 };
  const started = performance.now();
  const reached = await reach(target, context, signal);
  if ('failure' in reached) return failed(row, reached.failure);
  const client = wrap(reached.client);
  try {
    switch (command.kind) {
      case 'health':
        await healthOf(client, command, row);
        break;
      case 'version':
        await versionOf(client, row);
        break;
      case 'logspec-get':
        row.spec = bounded(await readSpec(client));
        break;
      case 'logspec-set':
        await setSpec(client, command.spec, fleet, row);
        break;
      default:
        throw new TargetFailure('unexpected-response', `'${command.kind}' does not run against a set of targets`);
    }
  } catch (error) {
    failed(row, classifyFailure(error, reached.client));
  } finally {
    row.latency_ms = Math.round(performance.now() - started);
  }
  return row;
}

/** The labels a row shows, each value cut like any other field (a Prometheus answer supplies them). */
function boundedLabels(labels: Readonly<Record<string, string>>): Record<string, string> {
  const shown: Record<string, string> = {};
  for (const [name, value] of Object.entries(labels)) shown[bounded(name)] = bounded(value);
  return shown;
}

/** Runs the rollback under the concurrency limit and a fresh deadline; `skipped` answers for items never started. */
async function runPhase<T>(items: readonly T[], fleet: FleetOptions, work: (item: T, signal: AbortSignal) => Promise<FleetRow>, skipped: (item: T, why: string) => FleetRow): Promise<FleetRow[]> {
  const deadline = new AbortController();
  // Each target in flight listens for the deadline: up to `concurrency` listeners, none leaked.
  setMaxListeners(fleet.concurrency + 1, deadline.signal);
  const timer = setTimeout(() => deadline.abort(), fleet.deadlineMs);
  const why = `--deadline ${fleet.deadlineMs / 1000}s passed first`;
  try {
    return await mapLimited(
      items,
      fleet.concurrency,
      deadline.signal,
      (item) => work(item, deadline.signal),
      (item) => skipped(item, why),
    );
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Puts the previous spec back on every target that took the new one (or may have: its PUT got
 * no answer), with its own deadline so a slow first pass cannot leave the fleet half-changed.
 */
async function rollBack(targets: readonly FleetTarget[], rows: FleetRow[], context: FleetContext, fleet: FleetOptions): Promise<void> {
  const todo = targets.map((target, index) => ({ target, row: rows[index]! })).filter(({ row }) => restorable.has(row) && (row.changed === true || uncertain.has(row)));
  const rollbackFailed = (row: FleetRow, failure: TargetFailure) => failed(row, new TargetFailure(failure.reason, `rollback failed: ${failure.message}`));
  await runPhase(
    todo,
    fleet,
    async ({ target, row }, signal) => {
      const started = performance.now();
      const reached = await reach(target, context, signal);
      if ('failure' in reached) return rollbackFailed(row, reached.failure);
      try {
        await putSpec(reached.client, restorable.get(row)!);
        row.rolled_back = true;
        row.changed = false;
        row.spec = bounded(await readSpec(reached.client));
      } catch (error) {
        rollbackFailed(row, classifyFailure(error, reached.client));
      } finally {
        row.latency_ms += Math.round(performance.now() - started);
      }
      return row;
    },
    ({ row }, why) => rollbackFailed(row, new TargetFailure('deadline', `not tried: ${why}`)),
  );
}
