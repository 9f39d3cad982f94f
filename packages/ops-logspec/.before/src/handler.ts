import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody, writeEmpty, writeJson, type Handler } from '@fabric-ops/ops-http';
import { isLogspecError } from './errors.ts';
import { decodeLogSpecBody } from './go-json.ts';
import type { Logging } from './registry.ts';
import { normaliseSpec } from './spec.ts';

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
}

/** `ip:port` as Go prints `RemoteAddr` (`[::1]:5000` for IPv6). */
function remoteAddressOf(req: IncomingMessage): string {
  const { remoteAddress, remotePort } = req.socket;
  if (remoteAddress === undefined) return '';
  return remoteAddress.includes(':') ? `[${remoteAddress}]:${remotePort ?? ''}` : `${remoteAddress}:${remotePort ?? ''}`;
}

function writeError(res: ServerResponse, message: string): void {
  writeJson(res, 400, { error: message }, { trailingNewline: true });
}

/**
 * Fabric's `/logspec`: GET → 200 `{"spec":"…"}` + newline; PUT decodes the body as Go
 * does, activates the spec and answers 204, or 400 `{"error":"…"}` + newline; any other
 * method → 400 `{"error":"invalid request method: <METHOD>"}`. Each successful PUT is
 * logged once at info with the old and new spec and who asked.
 */
export function logspecHandler(logging: Logging, options: LogspecHandlerOptions = {}): Handler {
  const audit = logging.getLogger(options.auditLoggerName ?? 'operations');
  const limit = options.bodyLimit;
  const put = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const body = await readBody(req, limit === undefined ? {} : { limit });
    let spec: string;
    let next: string;
    try {
      spec = decodeLogSpecBody(body);
      next = normaliseSpec(spec);
    } catch (error) {
      if (!isLogspecError(error)) throw error;
      writeError(res, error.message);
      return;
    }
    const client = options.identify?.(req);
    const record = { oldSpec: logging.spec(), newSpec: next, remoteAddress: remoteAddressOf(req), ...(client === undefined ? {} : { client }) };
    // The line is written under whichever spec lets it through: a change that silences the
    // operations logger is still recorded, and so is one that unsilences it.
    const loggedBefore = audit.isLevelEnabled('info');
    if (loggedBefore) audit.info(record, 'logging spec changed');
    logging.activateSpec(spec);
    if (!loggedBefore) audit.info(record, 'logging spec changed');
    writeEmpty(res, 204);
  };
  // Only PUT waits for a body; GET and refusals stay synchronous so that polling costs no promise.
  return (req, res) => {
    if (req.method === 'GET') {
      // Reads are frequent (scripts poll): build the log fields only when the line will be written.
      if (audit.isLevelEnabled('debug')) audit.debug({ remoteAddress: remoteAddressOf(req) }, 'logging spec read');
      writeJson(res, 200, { spec: logging.spec() }, { trailingNewline: true });
      return;
    }
    if (req.method !== 'PUT') {
      writeError(res, `invalid request method: ${req.method ?? ''}`);
      return;
    }
    return put(req, res);
  };
}
