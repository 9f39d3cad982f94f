import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createAuthorizer, MAX_LOGGED_URL_CHARS, NOT_ALLOWED_MESSAGE, UNAUTHORIZED_MESSAGE } from './authorize.ts';
import { markVerifiedClient } from './identity.ts';

function request(url: string, verified: boolean, subject = 'CN=operator,O=Org2'): IncomingMessage {
  const socket = {
    encrypted: true,
    remoteAddress: '127.0.0.1',
    remotePort: 4242,
    getPeerX509Certificate: () => ({ subject: subject.split(',').reverse().join('\n'), subjectAltName: undefined }),
  };
  if (verified) markVerifiedClient(socket as never);
  return { url, method: 'GET', socket } as unknown as IncomingMessage;
}

describe('refusal lines', () => {
  it('10,000 refused requests with 15 KB URLs write a bounded number of bytes', () => {
    let bytes = 0;
    let lines = 0;
    let suppressedTotal = 0;
    const logger = {
      warn: (obj: object, msg?: string) => {
        lines += 1;
        bytes += JSON.stringify(obj).length + (msg ?? '').length;
        suppressedTotal += (obj as { suppressed?: number }).suppressed ?? 0;
      },
    };
    let now = 0;
    // 1 ms per request: the 10,000 requests span 10 s of the authorizer's clock.
    const authorize = createAuthorizer({ logger, clock: () => now, allowList: { '/logspec': [{ commonName: 'admin' }] } });
    const url = `/metrics?${'a'.repeat(15 * 1024)}`;
    for (let i = 0; i < 10_000; i += 1) {
      now += 1;
      const refused = i % 2 === 0 ? authorize(request(url, false), { path: '/metrics' }) : authorize(request(`/logspec?${url}`, true), { path: '/logspec' });
      expect(refused.allow).toBe(false);
    }
    // 10 lines a second over 10 (+1 partial) seconds, each at most the cut URL plus a few fields.
    expect(lines).toBeLessThanOrEqual(110);
    expect(bytes).toBeLessThan(110 * (MAX_LOGGED_URL_CHARS + 400));
    // Nothing disappears without a trace: written + counted = refused, bar the last second (its count rides on a later line).
    expect(lines + suppressedTotal).toBeGreaterThanOrEqual(9_000);
  });

  it('cuts the URL to its first 256 characters and marks the cut', () => {
    const seen: Record<string, unknown>[] = [];
    const authorize = createAuthorizer({ logger: { warn: (obj) => seen.push(obj as Record<string, unknown>) } });
    const url = `/logspec/${'b'.repeat(1_000)}`;
    authorize(request(url, false), { path: '/logspec' });
    authorize(request('/logspec', false), { path: '/logspec' });
    expect(seen[0]?.['URL']).toBe(`${url.slice(0, 256)}…`);
    expect(seen[1]?.['URL']).toBe('/logspec');
  });

  it('reports how many lines it held back on the next line it writes', () => {
    const messages: string[] = [];
    const fields: Record<string, unknown>[] = [];
    let now = 0;
    const authorize = createAuthorizer({
      logger: { warn: (obj, msg) => (fields.push(obj as Record<string, unknown>), messages.push(msg ?? '')) },
      maxRefusalsLoggedPerSecond: 2,
      clock: () => now,
      allowList: { '/logspec': [{ commonName: 'admin' }] },
    });
    for (let i = 0; i < 5; i += 1) authorize(request('/metrics', false), { path: '/metrics' });
    now = 1_000;
    authorize(request('/logspec', true), { path: '/logspec' });
    expect(messages).toEqual([UNAUTHORIZED_MESSAGE, UNAUTHORIZED_MESSAGE, `${NOT_ALLOWED_MESSAGE} (3 more refused requests not logged)`]);
    expect(fields[2]).toMatchObject({ suppressed: 3, Subject: 'CN=operator,O=Org2' });
  });
});
