import { connect } from 'node:net';
import { createOperationsSystem, type OperationsSystem } from '@fabric-ops/ops-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Where Node's HTTP/1.1 and Go 1.26's net/http read the same bytes differently, against the
// operations system the bins run. The expected bytes are those Go's server writes
// (net/http server.go, conn.serve; transfer.go, parseTransferEncoding).

let system: OperationsSystem;
let port: number;
beforeAll(async () => {
  system = createOperationsSystem({ listenAddress: '127.0.0.1:0', version: { version: '1.0.0', commitSHA: 'abc1234' }, logger: { info() {}, warn() {}, error() {} } });
  await system.start();
  port = Number(system.address().slice(system.address().lastIndexOf(':') + 1));
});
afterAll(() => system?.stop());

/** Sends `request` (a string, or parts written one after another) and resolves everything the server sent before closing. */
function exchange(request: string | readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.setEncoding('latin1').on('data', (chunk: string) => (text += chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(text));
    socket.on('connect', () => {
      for (const part of typeof request === 'string' ? [request] : request) socket.write(part);
    });
    setTimeout(() => socket.destroy(), 5_000).unref();
  });
}

const goText = (statusLine: string, body = statusLine): string => `HTTP/1.1 ${statusLine}\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n${body}`;
const statusOf = (reply: string): string => reply.slice(0, reply.indexOf('\r\n'));

describe('header section size: Go reads up to 1 MiB (DefaultMaxHeaderBytes) before 431', () => {
  it('serves a request with a 64 KiB cookie and one with 900 KiB of headers', async () => {
    expect(statusOf(await exchange(`GET /version HTTP/1.1\r\nHost: x\r\nCookie: ${'c'.repeat(64 * 1024)}\r\nConnection: close\r\n\r\n`))).toBe('HTTP/1.1 200 OK');
    const many = Array.from({ length: 90 }, (_, i) => `X-Proxy-${i}: ${'p'.repeat(10_000)}\r\n`).join('');
    expect(statusOf(await exchange(['GET /version HTTP/1.1\r\nHost: x\r\n', many, 'Connection: close\r\n\r\n']))).toBe('HTTP/1.1 200 OK');
  });

  it("answers a header section past 1 MiB + 4 KiB with Go's 431", async () => {
    const reply = await exchange(['GET /version HTTP/1.1\r\nHost: x\r\nX-Big: ', 'b'.repeat(1024 * 1024 + 8 * 1024), '\r\n\r\n']);
    expect(reply).toBe(goText('431 Request Header Fields Too Large'));
  });
});

describe('transfer codings: from HTTP/1.1 on Go serves exactly one Transfer-Encoding field, `chunked`', () => {
  it("answers `gzip, chunked` with Go's 501 before the handler reads the body", async () => {
    const body = '{"spec":"debug"}';
    const chunked = `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
    expect(await exchange(`PUT /logspec HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n${chunked}`)).toBe(goText('501 Not Implemented', 'Unsupported transfer encoding'));
    expect(await exchange(`PUT /logspec HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n${chunked}`)).toBe(
      goText('501 Not Implemented', 'Unsupported transfer encoding'),
    );
    // Nothing was applied.
    expect(await exchange('GET /logspec HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).toMatch(/\r\n\r\n\{"spec":"info"\}\n$/);
  });

  it('still serves a chunked body, whatever the case of `chunked`', async () => {
    const body = '{"spec":"info"}';
    const reply = await exchange(`PUT /logspec HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: Chunked\r\nConnection: close\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`);
    expect(statusOf(reply)).toBe('HTTP/1.1 204 No Content');
  });
});

describe('bare LF line endings: refused (Go accepts them; see the README, "How it differs")', () => {
  it("answers a request whose lines end in a bare LF with Go's 400 text, and the CRLF form with 200", async () => {
    expect(await exchange('GET /healthz HTTP/1.0\n\n')).toBe(goText('400 Bad Request'));
    expect(await exchange('GET /healthz HTTP/1.0\r\nHost: x\nX-A: b\r\n\r\n')).toBe(goText('400 Bad Request'));
    expect(statusOf(await exchange('GET /healthz HTTP/1.0\r\n\r\n'))).toBe('HTTP/1.1 200 OK');
  });
});
