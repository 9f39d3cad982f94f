// The peer's /version as bytes on the wire, through the real system (router, request id and all):
// status line, header names in their case and order, and body. Only the Date and X-Request-Id
// values change per request, so they are masked.
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { useSystems } from './systems.ts';

const systems = useSystems();

async function rawExchange(address: string, requestText: string): Promise<string> {
  const [host, port] = [address.slice(0, address.lastIndexOf(':')), Number(address.slice(address.lastIndexOf(':') + 1))];
  const socket = connect({ host, port });
  socket.setEncoding('latin1');
  let received = '';
  socket.on('data', (chunk: string) => (received += chunk));
  socket.end(requestText);
  await new Promise<void>((resolve, reject) => {
    socket.on('close', () => resolve());
    socket.on('error', reject);
  });
  return received.replace(/^Date: .*$/m, 'Date: <date>').replace(/^X-Request-Id: .*$/m, 'X-Request-Id: <id>');
}

const head = (status: string, length: number): string =>
  `HTTP/1.1 ${status}\r\nX-Request-Id: <id>\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\nDate: <date>\r\nConnection: close\r\n\r\n`;

describe('/version on the wire', () => {
  it('answers GET with these exact bytes', async () => {
    const s = await systems.start({ version: { version: '2.5.16', commitSHA: '4072367' } });
    const body = '{"CommitSHA":"4072367","Version":"2.5.16"}';
    expect(await rawExchange(s.address(), 'GET /version HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).toBe(head('200 OK', body.length) + body);
  });

  it('answers another method 400 with these exact bytes', async () => {
    const s = await systems.start({ version: { version: '', commitSHA: '' } });
    const body = '{"Error":"invalid request method: PUT"}';
    const request = 'PUT /version HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n';
    expect(await rawExchange(s.address(), request)).toBe(head('400 Bad Request', body.length) + body);
  });

  it('answers GET with empty fields left out', async () => {
    const s = await systems.start({ version: { version: '', commitSHA: '' } });
    expect(await rawExchange(s.address(), 'GET /version HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).toBe(head('200 OK', 2) + '{}');
  });
});
