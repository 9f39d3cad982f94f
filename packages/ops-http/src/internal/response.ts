import { ServerResponse, type IncomingMessage, type OutgoingHttpHeader, type OutgoingHttpHeaders } from 'node:http';

type HeaderList = OutgoingHttpHeaders | OutgoingHttpHeader[];

/**
 * The response class `serverOptionsFor` gives the server. The router leaves a routed request's id
 * here instead of calling `setHeader`: the ops-http writers then put it in the one header array
 * they hand to `writeHead` (Node's fast path: no per-header map), and a handler that answers any
 * other way still gets it, added just before its headers go out.
 */
export class RoutedResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  pendingRequestId: string | undefined = undefined;

  override writeHead(statusCode: number, messageOrHeaders?: string | HeaderList, headers?: HeaderList): this {
    const id = this.pendingRequestId;
    if (id !== undefined) {
      this.pendingRequestId = undefined;
      this.setHeader('X-Request-Id', id);
    }
    return typeof messageOrHeaders === 'string' ? super.writeHead(statusCode, messageOrHeaders, headers) : super.writeHead(statusCode, messageOrHeaders);
  }
}

/** Gives the routed request's id to `res`: pending on a RoutedResponse, else set as a header now. */
export function attachRequestId(res: ServerResponse, id: string): void {
  if (res instanceof RoutedResponse) res.pendingRequestId = id;
  else res.setHeader('X-Request-Id', id);
}

/** A header array starting with the pending request id, if any (the caller writes it now). */
export function headerArray(res: ServerResponse): OutgoingHttpHeader[] {
  if (res instanceof RoutedResponse) {
    const id = res.pendingRequestId;
    if (id !== undefined) {
      res.pendingRequestId = undefined;
      return ['X-Request-Id', id];
    }
  }
  return [];
}
