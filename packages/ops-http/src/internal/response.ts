import { ServerResponse, type IncomingMessage, type OutgoingHttpHeader, type OutgoingHttpHeaders } from 'node:http';

type HeaderList = OutgoingHttpHeaders | OutgoingHttpHeader[];

/**
 * The response class `serverOptionsFor` gives the server. The router leaves a routed request's id
 * here instead of calling `setHeader`, and it goes out in the same `writeHead` call as the other
 * headers, as one flat array: Node's fast path, with no per-header map. The ops-http writers
 * build that array themselves; a handler that calls `writeHead` with an object, or answers with
 * `end()` alone, has its headers turned into one here.
 */
export class RoutedResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  pendingRequestId: string | undefined = undefined;

  override writeHead(statusCode: number, messageOrHeaders?: string | HeaderList, headers?: HeaderList): this {
    const id = this.pendingRequestId;
    const message = typeof messageOrHeaders === 'string' ? messageOrHeaders : undefined;
    let given = message === undefined ? (messageOrHeaders as HeaderList | undefined) : headers;
    if (id !== undefined) {
      this.pendingRequestId = undefined;
      given = withRequestId(id, given);
    }
    return message === undefined ? super.writeHead(statusCode, given) : super.writeHead(statusCode, message, given);
  }
}

function withRequestId(id: string, given: HeaderList | undefined): OutgoingHttpHeader[] {
  const list: OutgoingHttpHeader[] = ['X-Request-Id', id];
  if (Array.isArray(given)) {
    for (const item of given) list.push(item);
  } else if (given !== undefined) {
    for (const name in given) {
      const value = given[name];
      if (value !== undefined) list.push(name, value);
    }
  }
  return list;
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
