import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

export const REQUEST_ID_HEADER = 'x-request-id';

/**
 * Reuses the client's `X-Request-Id` (the first one when several were sent) or makes
 * a UUIDv4, stores it on the request headers for handlers and loggers, and echoes it
 * on the response.
 */
export function assignRequestId(req: IncomingMessage, res: ServerResponse): string {
  const header = req.headers[REQUEST_ID_HEADER];
  // Node joins repeated headers with ", "; only then pay for the per-header view to take the first.
  const given = typeof header === 'string' && header.includes(',') ? req.headersDistinct[REQUEST_ID_HEADER]?.[0] : header;
  const id = typeof given === 'string' && given !== '' ? given : randomUUID();
  req.headers[REQUEST_ID_HEADER] = id;
  res.setHeader('X-Request-Id', id);
  return id;
}

/** The id assigned to a routed request, if any. */
export function requestIdOf(req: IncomingMessage): string | undefined {
  const value = req.headers[REQUEST_ID_HEADER];
  return typeof value === 'string' ? value : undefined;
}
