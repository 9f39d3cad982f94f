import type { ServerResponse } from 'node:http';
import { RoutedResponse } from './response.ts';

const NOT_FOUND_BODY = '404 page not found\n';

/**
 * Go ServeMux's 404 (`404 page not found\n`, text/plain, `X-Content-Type-Options: nosniff`),
 * for the router's unknown paths and a handler's unknown sub-resources alike. Like the router's
 * own 404, it carries no `X-Request-Id`: Fabric answers such paths before any handler runs.
 */
export function writeNotFound(res: ServerResponse): void {
  if (res instanceof RoutedResponse) res.pendingRequestId = undefined;
  else res.removeHeader('X-Request-Id');
  // In Go's order: it writes header keys sorted.
  res.writeHead(404, ['Content-Type', 'text/plain; charset=utf-8', 'X-Content-Type-Options', 'nosniff', 'Content-Length', NOT_FOUND_BODY.length]);
  res.end(NOT_FOUND_BODY);
}
