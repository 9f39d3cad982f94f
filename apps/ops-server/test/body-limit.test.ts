import { send } from '@fabric-ops/test-kit';
import { describe, expect, it } from 'vitest';
import { useSystems } from './systems.ts';

const systems = useSystems();

describe('limits.bodyLimitBytes', () => {
  it('caps the /logspec PUT body (116 bytes against a 10-byte limit → 413)', async () => {
    const s = await systems.start({ limits: { bodyLimitBytes: 10 } });
    const body = JSON.stringify({ spec: 'info:' + 'a'.repeat(116 - 16) });
    expect(body).toHaveLength(116);
    const reply = await send(s.address(), '/logspec', { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body });
    expect(reply.status).toBe(413);
    expect(reply.body).toBe('{"error":"request body is larger than 10 bytes"}\n');
    expect(reply.headers.connection).toBe('close');
    expect(s.logging.spec()).not.toContain('aaaa');
  });
});
