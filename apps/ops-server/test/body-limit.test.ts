import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createOperationsSystem, type OperationsSystem } from '../src/index.ts';

const systems: OperationsSystem[] = [];
afterEach(async () => {
  await Promise.all(systems.splice(0).map((s) => s.stop()));
});

function put(address: string, path: string, body: string): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  const port = Number(address.slice(address.lastIndexOf(':') + 1));
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'PUT', agent: false, headers: { 'Content-Type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('limits.bodyLimitBytes', () => {
  it('caps the /logspec PUT body (116 bytes against a 10-byte limit → 413)', async () => {
    const s = createOperationsSystem({ listenAddress: '127.0.0.1:0', version: { version: '1', commitSha: 'x' }, limits: { bodyLimitBytes: 10 } });
    systems.push(s);
    await s.start();
    const body = JSON.stringify({ spec: 'info:' + 'a'.repeat(116 - 16) });
    expect(body).toHaveLength(116);
    const reply = await put(s.address(), '/logspec', body);
    expect(reply.status).toBe(413);
    expect(reply.body).toBe('{"error":"request body is larger than 10 bytes"}\n');
    expect(reply.headers.connection).toBe('close');
    expect(s.logging.spec()).not.toContain('aaaa');
  });
});
