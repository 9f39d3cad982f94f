import { setMaxListeners } from 'node:events';
import type { Command, ConnectionOptions, FleetOptions } from './args.ts';
import { openOpsClient, readTlsMaterial, type OpsClient, type OpsResponse, type TlsMaterial } from './client.ts';
import { healthAnswer, parseJsonAnswer, rejectionText, specAnswer, versionAnswer } from './answers.ts';
import { isOpsctlError, OpsctlError } from './errors.ts';
import { addressTarget, CREDENTIAL_LABELS, fetchPrometheusTargets, mergeTargets, readFileSd, type FleetTarget, type TargetCredentials } from './targets.ts';

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
  | 'unexpected-response';

/** One target's outcome; the JSON field names are part of the CLI's contract. */
export interface FleetRow {
  readonly target: string;
  readonly labels: Readonly<Record<string, string>>;
  ok: boolean;
  /** health: the server's status text. */
  status?: string;
  /** health: the checks that failed, as the node reports them. */
  failed_checks?: readonly { component: string; reason: string }[];
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
    return { client: openOpsClient({ ...base, tls: true, ...(serverName !== undefined ? { serverName } : {}) }, context.defaultMaterial, limits) };
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
    return { client: openOpsClient({ ...base, tls: true, ...(credentials.serverName !== undefined ? { serverName: credentials.serverName } : {}) }, read, limits) };
  } catch (error) {
    return { failure: new TargetFailure('credentials', error instanceof Error ? error.message : String(error)) };
  }
}

function failed(row: FleetRow, failure: TargetFailure): FleetRow {
  row.ok = false;
  row.error = failure.message;
  row.reason = failure.reason;
  return row;
}

async function healthOf(client: OpsClient, command: Extract<Command, { kind: 'health' }>, row: FleetRow): Promise<void> {
  const path = command.component !== undefined ? `/healthz/${encodeURIComponent(command.component)}` : `/${command.endpoint}`;
  const res = await client.request('GET', path);
  if (res.status === 408) throw new TargetFailure('unhealthy', `${path}: the health checks did not finish before the node's deadline (408)`);
  if (res.status !== 200 && res.status !== 503) throw statusFailure(path, res);
  const body = healthAnswer(path, parseJsonAnswer(path, res.body));
  if (body.status !== undefined) row.status = body.status;
  if (res.status === 503) {
    const checks = body.failed_checks ?? [];
    row.failed_checks = checks;
    const list = checks.map((check) => `${check.component}: ${check.reason}`).join('; ');
    throw new TargetFailure('unhealthy', `503 ${body.status ?? 'Service Unavailable'}${list ? `: ${list}` : ''}`);
  }
}

async function versionOf(client: OpsClient, row: FleetRow): Promise<void> {
  const res = await client.request('GET', '/version');
  if (res.status !== 200) throw statusFailure('/version', res);
  const body = versionAnswer('/version', parseJsonAnswer('/version', res.body));
  row.Version = body.Version;
  row.CommitSHA = body.CommitSHA;
}

/** Whether a target may hold the new spec although its row failed (a PUT with no answer). */
const uncertain = new WeakSet<FleetRow>();

async function setSpec(client: OpsClient, spec: string, dryRun: boolean, row: FleetRow): Promise<void> {
  const previous = await readSpec(client);
  row.previous_spec = previous;
  row.spec = previous;
  row.changed = false;
  if (dryRun) {
    row.dry_run = true;
    return;
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
  row.spec = await readSpec(client);
}

/** Runs one fleet command to completion within the deadline; never rejects for a target's failure. */
export async function runFleetCommand(command: Command, connection: ConnectionOptions, fleet: FleetOptions): Promise<FleetResult> {
  const sources: Promise<FleetTarget[]>[] = [
    ...fleet.targetFiles.map((file) => readFileSd(file)),
    Promise.resolve(fleet.addresses.map((address) => addressTarget(address))),
  ];
  if (fleet.prometheusUrl !== undefined) sources.push(fetchPrometheusTargets(fleet.prometheusUrl, fleet.job, connection.timeoutMs));
  const targets = mergeTargets(await Promise.all(sources));
  if (targets.length === 0) {
    const where = [...fleet.targetFiles, ...(fleet.prometheusUrl !== undefined ? [`${fleet.prometheusUrl}${fleet.job !== undefined ? ` job ${fleet.job}` : ''}`] : [])].join(', ');
    throw new OpsctlError('USAGE', `no targets in ${where}`);
  }
  const context: FleetContext = {
    connection,
    // The default credentials are the operator's own: an unreadable file is a usage error, as for one target.
    defaultMaterial: connection.tls ? await readTlsMaterial(connection) : {},
    materials: new Map(),
  };

  const runOnTarget = async (target: FleetTarget, signal: AbortSignal): Promise<FleetRow> => {
    const row: FleetRow = { target: target.address, labels: target.labels, ok: true, latency_ms: 0 };
    const started = performance.now();
    const reached = await reach(target, context, signal);
    if ('failure' in reached) return failed(row, reached.failure);
    try {
      switch (command.kind) {
        case 'health':
          await healthOf(reached.client, command, row);
          break;
        case 'version':
          await versionOf(reached.client, row);
          break;
        case 'logspec-get':
          row.spec = await readSpec(reached.client);
          break;
        case 'logspec-set':
          await setSpec(reached.client, command.spec, fleet.dryRun, row);
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
  };
  const notTried = (target: FleetTarget, why: string): FleetRow => ({ target: target.address, labels: target.labels, ok: false, error: `not tried: ${why}`, reason: 'deadline', latency_ms: 0 });
  const rows = await runPhase(targets, fleet, runOnTarget, notTried);

  if (command.kind === 'logspec-set' && fleet.rollback && rows.some((row) => !row.ok)) {
    await rollBack(targets, rows, context, fleet);
  }
  return { exitCode: rows.every((row) => row.ok) ? 0 : 1, rows };
}

/** Runs one pass under the concurrency limit and a fresh deadline; `skipped` answers for items never started. */
async function runPhase<T>(items: readonly T[], fleet: FleetOptions, work: (item: T, signal: AbortSignal) => Promise<FleetRow>, skipped: (item: T, why: string) => FleetRow): Promise<FleetRow[]> {
  const deadline = new AbortController();
  // Each target in flight listens for the deadline: up to `concurrency` listeners, none leaked.
  setMaxListeners(fleet.concurrency + 1, deadline.signal);
  const timer = setTimeout(() => deadline.abort(), fleet.deadlineMs);
  const why = `--deadline ${fleet.deadlineMs / 1000}s passed first`;
  try {
    return await mapLimited(items, fleet.concurrency, deadline.signal, (item) => work(item, deadline.signal), (item) => skipped(item, why));
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Puts the previous spec back on every target that took the new one (or may have: its PUT got
 * no answer), with its own deadline so a slow first pass cannot leave the fleet half-changed.
 */
async function rollBack(targets: readonly FleetTarget[], rows: FleetRow[], context: FleetContext, fleet: FleetOptions): Promise<void> {
  const todo = targets.map((target, index) => ({ target, row: rows[index]! })).filter(({ row }) => row.previous_spec !== undefined && (row.changed === true || uncertain.has(row)));
  const rollbackFailed = (row: FleetRow, failure: TargetFailure) => failed(row, new TargetFailure(failure.reason, `rollback failed: ${failure.message}`));
  await runPhase(
    todo,
    fleet,
    async ({ target, row }, signal) => {
      const started = performance.now();
      const reached = await reach(target, context, signal);
      if ('failure' in reached) return rollbackFailed(row, reached.failure);
      try {
        await putSpec(reached.client, row.previous_spec!);
        row.rolled_back = true;
        row.changed = false;
        row.spec = await readSpec(reached.client);
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
