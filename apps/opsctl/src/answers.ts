// The JSON answers of an operations server, checked field by field: a server (or something else
// on its port) may send any JSON at all, and a wrong shape must end in a named error, never in a
// TypeError or in a made-up value.
import { OpsctlError } from './errors.ts';

export interface FailedCheck {
  readonly component: string;
  readonly reason: string;
}

/** What /healthz, /livez and /readyz answer. */
export interface HealthAnswer {
  readonly status?: string;
  readonly time?: string;
  readonly failed_checks?: readonly FailedCheck[];
}

/** What /version answers. */
export interface VersionAnswer {
  readonly Version: string;
  readonly CommitSHA: string;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** How a JSON value looks, for messages: never the value itself, which may be huge. */
export function shapeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** `where` is `origin + path` (one target) or the path (a fleet row, which names the target). */
const wrongShape = (where: string, why: string): OpsctlError => new OpsctlError('UNEXPECTED_RESPONSE', `${where}: ${why}`);

export function parseJsonAnswer(where: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw wrongShape(where, 'the answer is not JSON');
  }
}

function object(where: string, value: unknown): Record<string, unknown> {
  if (!isRecord(value)) throw wrongShape(where, `expected a JSON object, got ${shapeOf(value)}`);
  return value;
}

function optionalString(where: string, body: Record<string, unknown>, field: string): string | undefined {
  const value = body[field];
  if (value === undefined || typeof value === 'string') return value;
  throw wrongShape(where, `"${field}" is ${shapeOf(value)}, expected a string`);
}

function requiredString(where: string, body: Record<string, unknown>, field: string): string {
  const value = optionalString(where, body, field);
  if (value === undefined) throw wrongShape(where, `the answer has no "${field}" string`);
  return value;
}

export function healthAnswer(where: string, value: unknown): HealthAnswer {
  const body = object(where, value);
  const status = optionalString(where, body, 'status');
  const time = optionalString(where, body, 'time');
  const raw = body['failed_checks'];
  // Go writes a nil list as null.
  if (raw !== undefined && raw !== null && !Array.isArray(raw)) throw wrongShape(where, `"failed_checks" is ${shapeOf(raw)}, expected a list`);
  const failed_checks = (raw ?? []).map((check: unknown, index: number): FailedCheck => {
    const at = `${where}: failed_checks[${index}]`;
    const entry = object(at, check);
    return { component: requiredString(at, entry, 'component'), reason: requiredString(at, entry, 'reason') };
  });
  return { ...(status !== undefined ? { status } : {}), ...(time !== undefined ? { time } : {}), ...(raw !== undefined ? { failed_checks } : {}) };
}

export function versionAnswer(where: string, value: unknown): VersionAnswer {
  const body = object(where, value);
  return { Version: requiredString(where, body, 'Version'), CommitSHA: requiredString(where, body, 'CommitSHA') };
}

export function specAnswer(where: string, value: unknown): string {
  return requiredString(where, object(where, value), 'spec');
}

/** Why a PUT /logspec was refused: the `error` of a JSON body, else the text, else a fallback. */
export function rejectionText(text: string, fallback: string): string {
  try {
    const body: unknown = JSON.parse(text);
    if (isRecord(body) && typeof body['error'] === 'string') return body['error'].slice(0, 500);
  } catch {
    // Not JSON: keep the text.
  }
  return text.trim().split('\n')[0]?.slice(0, 500) || fallback;
}
