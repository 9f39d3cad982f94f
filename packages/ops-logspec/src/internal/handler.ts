import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { goJson, readBody, writeEmpty, writeJson, writeJsonText, type Handler } from '@fabric-ops/ops-http';
import { formatRemoteAddress } from '@fabric-ops/ops-http/go';
import { isLogspecError, LogspecError } from '../errors.ts';
import { decodeLogSpecBody, decodeParsedLogSpec } from './go-json.ts';
import { formatSpec, parseSpec, parseSpecInSlices, PARSE_SLICE_CHARS, type ParsedSpec } from './spec.ts';

/**
 * What records a change: pino's loggers fit as they are, and every adapter's
 * `auditLogger(name)` returns one for its library.
 */
export interface AuditLogger {
  isLevelEnabled(level: 'debug' | 'info'): boolean;
  info(fields: Record<string, unknown>, message: string): void;
  debug(fields: Record<string, unknown>, message: string): void;
}

/**
 * What `/logspec` reads and changes: a pino `Logging`, any adapter's logging (winston, bunyan,
 * log4js), or a bare `LogLevels` (then the handler records changes only on `audit`).
 */
export interface LogspecTarget {
  spec(): string;
  activateSpec(spec: ParsedSpec): void;
  /** The logger changes are recorded on, by name (see `auditLoggerName`). */
  auditLogger?(name: string): AuditLogger;
}

const SILENT_AUDIT: AuditLogger = { isLevelEnabled: () => false, info: () => undefined, debug: () => undefined };

export interface LogspecHandlerOptions {
  /**
   * Who is asking, for the audit line: e.g. the verified client certificate's subject
   * (`clientSubjectOf` from ops-tls-auth). Undefined leaves it out.
   */
  readonly identify?: (req: IncomingMessage) => string | undefined;
  /** Largest PUT body read, in bytes (larger ones get 413). Default: ops-http's 1 MiB. */
  readonly bodyLimit?: number;
  /** The logger that records every change. Default: the `operations` logger of `logging`. */
  readonly auditLoggerName?: string;
  /** Records changes here instead of on `auditLoggerName`'s logger. */
  readonly audit?: AuditLogger;
  /**
   * Runs after a PUT's spec is validated and before it is activated and the 204 sent, with the
   * spec normalised (a multi-process primary applies it to its workers here). Not called for a
   * refused spec.
   */
  readonly beforeActivate?: (spec: string) => Promise<void>;
}

function writeError(res: ServerResponse, message: string): void {
  writeJson(res, 400, { error: message }, { trailingNewline: true });
}

/** How much of each spec the audit line carries; a longer one is cut, with its length and a hash. */
export const AUDIT_SPEC_LIMIT = 1024;

let lastHashed: { text: string; hash: string } | undefined;

// The old spec of one change is usually the new spec of the one before: hash each text once.
function shortHash(text: string): string {
  if (lastHashed?.text !== text) lastHashed = { text, hash: createHash('sha256').update(text).digest('hex').slice(0, 16) };
  return lastHashed.hash;
}

/**
 * The audit fields for one spec: the spec itself, or, past AUDIT_SPEC_LIMIT characters, its
 * start, its full length and a short SHA-256, so that a line stays small whatever the client
 * sent and two lines can still be told apart.
 */
export function auditFields(key: 'oldSpec' | 'newSpec', spec: string, into: Record<string, unknown>): void {
  if (spec.length <= AUDIT_SPEC_LIMIT) {
    into[key] = spec;
    return;
  }
  into[key] = `${spec.slice(0, AUDIT_SPEC_LIMIT)}…`;
  into[`${key}Length`] = spec.length;
  into[`${key}Sha256`] = shortHash(spec);
}

/** The body a framework's parser already put on the request, if it did (see logspecHandler). */
function parsedBodyOf(req: IncomingMessage): { readonly value: unknown } | undefined {
  const body = (req as IncomingMessage & { body?: unknown }).body;
  if (body === undefined) return undefined;
  if (typeof body === 'string' || body instanceof Uint8Array) return { value: body };
  // Express 4's parsers set `{}` when the content type is not theirs and leave the stream
  // unread: that `{}` is not the body. A body is taken as parsed once the stream is consumed.
  if (req.readableEnded || (req as IncomingMessage & { _body?: unknown })._body === true) return { value: body };
  return undefined;
}

function specOfParsedBody(value: unknown): string {
  if (typeof value === 'string') return decodeLogSpecBody(Buffer.from(value, 'utf8'));
  if (value instanceof Uint8Array) return decodeLogSpecBody(value);
  return decodeParsedLogSpec(value);
}

/**
 * Fabric's `/logspec`: GET → 200 `{"spec":"…"}` + newline; PUT decodes the body as Go
 * does, activates the spec and answers 204, or 400 `{"error":"…"}` + newline; any other
 * method → 400 `{"error":"invalid request method: <METHOD>"}`. Each successful PUT is
 * logged once at info with the old and new spec (each cut to AUDIT_SPEC_LIMIT) and who asked.
 *
 * The path is never looked at, so the handler can be mounted anywhere. When a framework's
 * body parser ran first, the body it left on `req.body` is used: a string or Buffer
 * (`express.text()`, `express.raw()`) is decoded as the raw body, an object
 * (`express.json()`) as the decoded JSON; otherwise the request stream is read.
 */
const HANDLER_OPTION_KEYS = ['identify', 'bodyLimit', 'auditLoggerName', 'audit', 'beforeActivate'];

function kindOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
}

/** What a JavaScript caller handed logspecHandler, checked at once: a bad value is named now, not a TypeError at the first request. */
function checkHandlerArguments(logging: unknown, options: unknown): void {
  const invalid = (message: string): never => {
    throw new LogspecError('INVALID_OPTIONS', `logspecHandler: ${message}`);
  };
  const target = logging as Partial<Record<'spec' | 'activateSpec', unknown>> | null | undefined;
  if (typeof target !== 'object' || target === null || typeof target.spec !== 'function' || typeof target.activateSpec !== 'function') {
    invalid(`expected the logging to control (createLogging, createLeanLogging, an adapter's logging or createLogLevels: an object with spec() and activateSpec()), got ${kindOf(logging)}`);
  }
  if (typeof options !== 'object' || options === null || Array.isArray(options)) invalid(`expected options as an object, got ${kindOf(options)}`);
  const given = options as Record<string, unknown>;
  for (const key of Object.keys(given)) if (!HANDLER_OPTION_KEYS.includes(key)) invalid(`unknown option ${key} (known: ${HANDLER_OPTION_KEYS.join(', ')})`);
  for (const key of ['identify', 'beforeActivate'] as const) if (given[key] !== undefined && typeof given[key] !== 'function') invalid(`${key} must be a function, got ${kindOf(given[key])}`);
  const limit = given['bodyLimit'];
  if (limit !== undefined && (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 0)) invalid(`bodyLimit must be a whole number of bytes, got ${kindOf(limit)} ${String(limit)}`);
  if (given['auditLoggerName'] !== undefined && typeof given['auditLoggerName'] !== 'string') invalid(`auditLoggerName must be a string, got ${kindOf(given['auditLoggerName'])}`);
}

export function logspecHandler(logging: LogspecTarget, options: LogspecHandlerOptions = {}): Handler {
  checkHandlerArguments(logging, options);
  const audit = options.audit ?? logging.auditLogger?.(options.auditLoggerName ?? 'operations') ?? SILENT_AUDIT;
  const limit = options.bodyLimit;
  const beforeActivate = options.beforeActivate;
  const change = (req: IncomingMessage, res: ServerResponse, decode: () => string): void | Promise<void> => {
    let text: string;
    try {
      text = decode();
    } catch (error) {
      if (!isLogspecError(error)) throw error;
      writeError(res, error.message);
      return;
    }
    // A large spec is parsed in slices between turns of the event loop, so it cannot hold
    // every other connection; requests pipelined behind it on its connection still wait for it.
    if (text.length > PARSE_SLICE_CHARS) {
      return parseSpecInSlices(text).then(
        (parsed) => apply(req, res, parsed),
        (error: unknown) => {
          if (!isLogspecError(error)) throw error;
          writeError(res, error.message);
        },
      );
    }
    let parsed: ParsedSpec;
    try {
      parsed = parseSpec(text);
    } catch (error) {
      if (!isLogspecError(error)) throw error;
      writeError(res, error.message);
      return;
    }
    return apply(req, res, parsed);
  };
  const apply = (req: IncomingMessage, res: ServerResponse, parsed: ParsedSpec): void | Promise<void> => {
    const oldSpec = logging.spec();
    // Printed once: activateSpec below reuses this text.
    const newSpec = formatSpec(parsed);
    // Built only when the line is written: a spec that keeps the audit logger below info (as
    // `peer.operations=info:warn` does for `operations`) costs no certificate parsing or formatting.
    const record = (): Record<string, unknown> => {
      const client = options.identify?.(req);
      const fields: Record<string, unknown> = {};
      auditFields('oldSpec', oldSpec, fields);
      auditFields('newSpec', newSpec, fields);
      fields['remoteAddress'] = formatRemoteAddress(req.socket.remoteAddress, req.socket.remotePort);
      if (client !== undefined) fields['client'] = client;
      return fields;
    };
    // Behind `beforeActivate` the client may be gone by the time the line is written: take who
    // asked while the connection is certainly open.
    const early = beforeActivate === undefined ? undefined : record();
    // The line is written under whichever spec lets it through: a change that silences the
    // operations logger is still recorded, and so is one that unsilences it. Either way it
    // is handed to the destination before the 204.
    const activate = () => {
      const loggedBefore = audit.isLevelEnabled('info');
      if (loggedBefore) audit.info(early ?? record(), 'logging spec changed');
      logging.activateSpec(parsed);
      if (!loggedBefore && audit.isLevelEnabled('info')) audit.info(early ?? record(), 'logging spec changed');
      writeEmpty(res, 204);
    };
    if (beforeActivate === undefined) return activate();
    return beforeActivate(newSpec).then(activate);
  };
  const put = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const body = await readBody(req, limit === undefined ? {} : { limit });
    await change(req, res, () => decodeLogSpecBody(body));
  };
  // The GET body of the spec last read: the spec changes rarely and is read often (scripts poll),
  // so it is encoded once per spec, not per read.
  let readSpec: string | undefined;
  let readBodyText = '';
  // Only PUT waits for a body; GET and refusals stay synchronous so that polling costs no promise.
  return (req, res) => {
    if (req.method === 'GET') {
      // Build the log fields only when the line will be written.
      if (audit.isLevelEnabled('debug')) audit.debug({ remoteAddress: formatRemoteAddress(req.socket.remoteAddress, req.socket.remotePort) }, 'logging spec read');
      const spec = logging.spec();
      if (spec !== readSpec) {
        readBodyText = goJson({ spec }) + '\n';
        readSpec = spec;
      }
      writeJsonText(res, 200, readBodyText);
      return;
    }
    if (req.method !== 'PUT') {
      writeError(res, `invalid request method: ${req.method ?? ''}`);
      return;
    }
    const parsedBody = parsedBodyOf(req);
    if (parsedBody !== undefined) {
      return change(req, res, () => specOfParsedBody(parsedBody.value));
    }
    return put(req, res);
  };
}
