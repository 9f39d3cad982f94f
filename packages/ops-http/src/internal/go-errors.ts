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
