import type { Duplex } from 'node:stream';
import type { ServerResponse } from 'node:http';

// Go's server answers a request it cannot parse before any handler runs, with a fixed text, no
// Date and no Content-Length, and closes the connection (net/http server.go, conn.serve).
export function writeGoRequestError(res: ServerResponse, statusLine: string): void {
  res.sendDate = false;
  // Delimited by the close, as Go's is; Node would otherwise frame it chunked for an HTTP/1.1 client.
  res.useChunkedEncodingByDefault = false;
  const [status, ...reason] = statusLine.split(' ');
  res.writeHead(Number(status), reason.join(' '), ['Content-Type', 'text/plain; charset=utf-8', 'Connection', 'close']);
  res.end(statusLine);
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
 * A `clientError` listener that answers requests Node's parser refuses with the bytes Go's server
 * writes for requests it cannot read (server.go, conn.serve): `431 Request Header Fields Too
 * Large` for an oversized header block, `501 Not Implemented` + `Unsupported transfer encoding`
 * for a transfer coding it does not know, `400 Bad Request` otherwise; each text/plain with the
 * reason as body, then the connection is closed. A reset or unwritable socket is just destroyed;
 * a request timeout keeps Node's `408` (Go closes without a word, which clients read as a reset).
 */
export function answerClientErrorAsGo(error: Error & { code?: string; reason?: string }, socket: Duplex): void {
  const pending = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || pending?.headersSent === true) {
    socket.destroy();
    return;
  }
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    socket.end('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n');
    return;
  }
  const headers = '\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n';
  if (error.code === 'HPE_HEADER_OVERFLOW') socket.end(`HTTP/1.1 431 Request Header Fields Too Large${headers}431 Request Header Fields Too Large`);
  // A transfer coding Go does not know is its 501; Transfer-Encoding beside Content-Length (which
  // llhttp reports under the same code) is a 400 here, where Go would let chunked win.
  else if (error.code === 'HPE_INVALID_TRANSFER_ENCODING' && !/Content-Length/i.test(error.reason ?? '')) {
    socket.end(`HTTP/1.1 501 Not Implemented${headers}Unsupported transfer encoding`);
  } else socket.end(`HTTP/1.1 400 Bad Request${headers}400 Bad Request`);
}
