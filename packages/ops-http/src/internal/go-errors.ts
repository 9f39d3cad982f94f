import type { Duplex } from 'node:stream';
import type { IncomingMessage, ServerResponse } from 'node:http';

// Go's server answers a request it cannot parse before any handler runs, with a fixed text, no
// Date and no Content-Length, and closes the connection (net/http server.go, conn.serve).
export function writeGoRequestError(res: ServerResponse, statusLine: string, body: string = statusLine): void {
  res.sendDate = false;
  // Delimited by the close, as Go's is; Node would otherwise frame it chunked for an HTTP/1.1 client.
  res.useChunkedEncodingByDefault = false;
  const [status, ...reason] = statusLine.split(' ');
  res.writeHead(Number(status), reason.join(' '), ['Content-Type', 'text/plain; charset=utf-8', 'Connection', 'close']);
  res.end(body);
}

/**
 * A request whose transfer coding Go's server does not serve (net/http transfer.go,
 * parseTransferEncoding): from HTTP/1.1 on, Transfer-Encoding must be one field whose value is
 * `chunked` (any case); anything else (`gzip, chunked`, two fields) is its 501 before any handler
 * runs. Node's parser reads `gzip, chunked` as chunked, so the router asks this first.
 */
export function unsupportedTransferEncoding(req: IncomingMessage): boolean {
  const atLeast11 = req.httpVersionMajor > 1 || (req.httpVersionMajor === 1 && req.httpVersionMinor >= 1);
  if (!atLeast11 || req.headers['transfer-encoding'] === undefined) return false;
  const fields = req.headersDistinct['transfer-encoding'] ?? [];
  return fields.length !== 1 || fields[0]!.toLowerCase() !== 'chunked';
}

/** Go's answer to such a request (server.go): the reason is the body, the value is not echoed. */
export function writeUnsupportedTransferEncoding(res: ServerResponse): void {
  writeGoRequestError(res, '501 Not Implemented', 'Unsupported transfer encoding');
}

/** Go's answer to a malformed request line or request target: `400 Bad Request`. */
export function writeMalformedRequest(res: ServerResponse): void {
  writeGoRequestError(res, '400 Bad Request');
}

/** Go's answer to a request whose protocol version is not HTTP/1.x. */
export function writeUnsupportedVersion(res: ServerResponse): void {
  writeGoRequestError(res, '505 HTTP Version Not Supported: unsupported protocol version');
}

/**
 * How long a refused connection stays half-closed before it is destroyed: Go's rstAvoidanceDelay
 * (net/http server.go, closeWriteAndWait), time for the client to read the answer before a close
 * with its unread bytes pending turns into a reset that would discard it.
 */
const REFUSED_CLOSE_DELAY_MS = 500;

/**
 * Writes `answer` and closes: the write side at once, the whole socket `REFUSED_CLOSE_DELAY_MS`
 * later. The server listens with allowHalfOpen, so `end()` alone would leave the connection
 * reading for as long as the client keeps its side open; and after a request timeout Node has
 * taken the connection off the list its deadline check walks, so nothing else would ever close it.
 */
function answerAndClose(socket: Duplex, answer: string): void {
  socket.end(answer);
  const linger = setTimeout(() => socket.destroy(), REFUSED_CLOSE_DELAY_MS);
  linger.unref();
  socket.once('close', () => clearTimeout(linger));
}

/**
 * A `clientError` listener that answers requests Node's parser refuses with the bytes Go's server
 * writes for requests it cannot read (server.go, conn.serve): `431 Request Header Fields Too
 * Large` for an oversized header block, `501 Not Implemented` + `Unsupported transfer encoding`
 * for a transfer coding it does not know, `400 Bad Request` otherwise; each text/plain with the
 * reason as body, then the connection is closed (half at once, wholly after Go's 500 ms, whether
 * or not the client closes its side). A reset or unwritable socket is just destroyed; a request
 * timeout keeps Node's `408` (Go closes without a word, which clients read as a reset).
 */
export function answerClientErrorAsGo(error: Error & { code?: string; reason?: string }, socket: Duplex): void {
  const pending = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || pending?.headersSent === true) {
    socket.destroy();
    return;
  }
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    answerAndClose(socket, 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n');
    return;
  }
  const headers = '\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n';
  if (error.code === 'HPE_HEADER_OVERFLOW') answerAndClose(socket, `HTTP/1.1 431 Request Header Fields Too Large${headers}431 Request Header Fields Too Large`);
  // A transfer coding Go does not know is its 501; Transfer-Encoding beside Content-Length (which
  // llhttp reports under the same code) is a 400 here, where Go would let chunked win.
  else if (error.code === 'HPE_INVALID_TRANSFER_ENCODING' && !/Content-Length/i.test(error.reason ?? '')) {
    answerAndClose(socket, `HTTP/1.1 501 Not Implemented${headers}Unsupported transfer encoding`);
  } else answerAndClose(socket, `HTTP/1.1 400 Bad Request${headers}400 Bad Request`);
}
